# The oracle's speed rests on Eigen's vectorised GEMM. Builds are carried to other machines (the
# GPU host), so we target a portable x86-64 level rather than -march=native: x86-64-v3 (AVX2+FMA)
# where the building machine has it. MLACHECK_CPU_ARCH overrides ("" keeps the compiler default).
include(CheckCXXSourceRuns)
if(NOT DEFINED MLACHECK_CPU_ARCH)
  set(_arch "")
  if(CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64")
    check_cxx_source_runs("int main(){ return (__builtin_cpu_supports(\"avx2\") && __builtin_cpu_supports(\"fma\")) ? 0 : 1; }"
                          MLACHECK_HOST_HAS_AVX2)
    if(MLACHECK_HOST_HAS_AVX2)
      set(_arch "x86-64-v3")
    endif()
  endif()
  set(MLACHECK_CPU_ARCH "${_arch}" CACHE STRING "-march level for host code (empty: compiler default)")
endif()
add_library(mlacheck_cpu_arch INTERFACE)
if(MLACHECK_CPU_ARCH)
  target_compile_options(mlacheck_cpu_arch INTERFACE $<$<COMPILE_LANGUAGE:CXX>:-march=${MLACHECK_CPU_ARCH}>)
endif()
