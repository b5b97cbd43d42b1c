# MLACHECK_HIP_CLANG19=ON: the HIP code compiled by Debian 12's clang-19 instead of the clang-15
# that Debian's hipcc 5.2 calls, for the target clang-15 does not know: gfx942 (MI300X). A compile
# check only: Debian's HIP 5.2 runtime cannot load gfx942 code objects; running needs ROCm 6.
# gfx950 (MI350X/MI355X) needs LLVM 20, which Debian 12 does not have.
#
#   cmake -S . -B build-gfx942 -DMLACHECK_GPU=hip -DMLACHECK_HIP_CLANG19=ON
#
# It stands on the distro shim (MlacheckDistroHip.cmake: the ROCm root of package links, the HIP
# headers of libamdhip64-dev) and adds what clang-19 needs on top of Debian's ROCm 5.2 packages:
#  - the compiler, clang++-19 from PATH (its folder is where hip-lang looks for clang's runtime
#    builtins: /usr/lib/clang/*, which clang-15's packages fill);
#  - a device-library folder in the build tree: Debian's rocm-device-libs bitcode plus an
#    oclc_isa_version_942.bc generated here with llvm-as-19, since 5.2 ships none (it holds one
#    constant, the ISA version 9402; the 5.2 libraries only compare it against older versions);
#  - -mcode-object-version=5, so the code object and the ABI library (oclc_abi_version_500) agree
#    whatever the compiler's default;
#  - /usr/include among the implicit HIP include folders (MlacheckGpu.cmake, after
#    enable_language): CMake 3.25 filters it for C, CXX and CUDA but not HIP, and the resulting
#    `-isystem /usr/include` from Debian's hip-lang breaks libstdc++'s `#include_next <math.h>`
#    under clang-19.
# Configure a fresh build folder with it: the HIP compiler of an existing one cannot change.

# Sets <compiler_var>, <bitcode_var> (the device-library folder to pass clang) and <flags_var>,
# given Debian's bitcode folder. Stops the configure with the reason when a piece is missing.
function(_mlacheck_prepare_clang19_hip debian_bitcode_dir compiler_var bitcode_var flags_var)
  find_program(_clang19 clang++-19 NO_CACHE)
  find_program(_llvm_dis llvm-dis-19 NO_CACHE)
  find_program(_llvm_as llvm-as-19 NO_CACHE)
  if(NOT _clang19 OR NOT _llvm_dis OR NOT _llvm_as)
    message(FATAL_ERROR "MLACHECK_HIP_CLANG19 needs clang++-19, llvm-dis-19 and llvm-as-19 "
                        "(scripts/install-deps.sh installs clang-19, lld-19, llvm-19)")
  endif()

  set(_dir "${CMAKE_BINARY_DIR}/amdgcn-bitcode-clang19")
  file(MAKE_DIRECTORY "${_dir}")
  file(GLOB _libraries "${debian_bitcode_dir}/*.bc")
  foreach(_library IN LISTS _libraries)
    get_filename_component(_name "${_library}" NAME)
    file(CREATE_LINK "${_library}" "${_dir}/${_name}" SYMBOLIC)
  endforeach()

  # The gfx942 ISA-version library, derived from the gfx940 one (same module, same data layout)
  # with its one constant changed, so it links like the other 5.2 libraries.
  set(_isa940 "${debian_bitcode_dir}/oclc_isa_version_940.bc")
  set(_isa942 "${_dir}/oclc_isa_version_942.bc")
  if(NOT EXISTS "${debian_bitcode_dir}/oclc_isa_version_942.bc")
    if(NOT EXISTS "${_isa940}")
      message(FATAL_ERROR "MLACHECK_HIP_CLANG19: ${_isa940} not found (install rocm-device-libs)")
    endif()
    execute_process(COMMAND "${_llvm_dis}" "${_isa940}" -o -
                    RESULT_VARIABLE _rc OUTPUT_VARIABLE _ir ERROR_VARIABLE _err)
    string(REGEX MATCHALL "constant i32 9400" _found "${_ir}")
    list(LENGTH _found _count)
    if(NOT _rc EQUAL 0 OR NOT _count EQUAL 1)
      message(FATAL_ERROR "MLACHECK_HIP_CLANG19: ${_isa940} is not the one-constant module expected "
                          "(${_err})")
    endif()
    string(REPLACE "constant i32 9400" "constant i32 9402" _ir "${_ir}")
    file(WRITE "${_dir}/oclc_isa_version_942.ll" "${_ir}")
    execute_process(COMMAND "${_llvm_as}" "${_dir}/oclc_isa_version_942.ll" -o "${_isa942}"
                    RESULT_VARIABLE _rc ERROR_VARIABLE _err)
    if(NOT _rc EQUAL 0)
      message(FATAL_ERROR "MLACHECK_HIP_CLANG19: llvm-as-19 failed on oclc_isa_version_942.ll: ${_err}")
    endif()
  endif()

  set(${compiler_var} "${_clang19}" PARENT_SCOPE)
  set(${bitcode_var} "${_dir}" PARENT_SCOPE)
  set(${flags_var} "-mcode-object-version=5" PARENT_SCOPE)
  message(STATUS "HIP with clang-19 for gfx942: ${_clang19}, device libraries ${_dir}")
endfunction()
