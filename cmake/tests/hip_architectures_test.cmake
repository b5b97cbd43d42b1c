# cmake -P cmake/tests/hip_architectures_test.cmake
# The architecture rules of cmake/MlacheckHipArchitectures.cmake, on the outputs that ROCm's agent
# listers print and on each kind of toolchain, including the machines we have none of (ROCm with
# MI300X or MI355X GPUs, an old ROCm on an MI355X). Fails on the first rule broken.
cmake_minimum_required(VERSION 3.25)
include(${CMAKE_CURRENT_LIST_DIR}/../MlacheckHipArchitectures.cmake)

function(expect_equal what actual expected)
  if(NOT "${actual}" STREQUAL "${expected}")
    message(SEND_ERROR "${what}: got '${actual}', expected '${expected}'")
  endif()
endfunction()

# The architectures mlacheck_hip_architectures_for picks from its inputs: the HIP install (DISTRO or
# ROCM), whether the compiler is clang-19, the GPUs present and whether the compiler knows gfx950.
function(expect_archs what source clang19 present knows_gfx950 expected)
  mlacheck_hip_architectures_for(${source} ${clang19} "${present}" ${knows_gfx950} _archs _why)
  expect_equal("${what}" "${_archs}" "${expected}")
endfunction()

# rocm_agent_enumerator: the CPU agent gfx000 first, one line per GPU (8 x MI300X).
mlacheck_hip_parse_agents("gfx000\ngfx942\ngfx942\ngfx942\ngfx942\ngfx942\ngfx942\ngfx942\ngfx942\n" _names)
expect_equal("rocm_agent_enumerator, 8 MI300X" "${_names}" "gfx942")
# offload-arch with target ids, two kinds of GPU.
mlacheck_hip_parse_agents("gfx90a:sramecc+:xnack-\ngfx942:sramecc+:xnack-\n" _names)
expect_equal("offload-arch with features" "${_names}" "gfx90a;gfx942")
mlacheck_hip_parse_agents("" _names)
expect_equal("no GPU" "${_names}" "")

mlacheck_hip_split_supported("gfx942;gfx1100;gfx908;gfx950" _supported _unsupported)
expect_equal("supported" "${_supported}" "gfx942;gfx950")
expect_equal("unsupported" "${_unsupported}" "gfx1100;gfx908")

# Debian's packages: the hipcc default must stay gfx90a;gfx940 (clang-15 cannot target gfx942).
expect_archs("Debian, hipcc" DISTRO OFF "" FALSE "gfx90a;gfx940")
expect_archs("Debian, clang-19" DISTRO ON "" FALSE "gfx90a;gfx942")
expect_archs("Debian, a clang that knows gfx950" DISTRO ON "" TRUE "gfx90a;gfx942;gfx950")

# ROCm: the GPUs present, only those.
expect_archs("ROCm 6.4, MI300X" ROCM OFF "gfx942" TRUE "gfx942")
expect_archs("ROCm 6.4, MI355X" ROCM OFF "gfx950" TRUE "gfx950")
expect_archs("ROCm 6.2, MI250X and MI300X" ROCM OFF "gfx90a;gfx942" FALSE "gfx90a;gfx942")
# No GPU, or none this build can target: the default list, gfx950 where the compiler knows it.
expect_archs("ROCm 6.4, no GPU" ROCM OFF "" TRUE "gfx90a;gfx942;gfx950")
expect_archs("ROCm 6.2, no GPU" ROCM OFF "" FALSE "gfx90a;gfx942")
expect_archs("ROCm 6.2 on an MI355X (warns)" ROCM OFF "gfx950" FALSE "gfx90a;gfx942")
expect_archs("ROCm on an RDNA3 GPU (warns)" ROCM OFF "gfx1100" FALSE "gfx90a;gfx942")

# Probing a ROCm install: listers that fail or list nothing are passed over for the next one.
set(_rocm "${CMAKE_CURRENT_BINARY_DIR}/hip_architectures_test_rocm")
file(REMOVE_RECURSE "${_rocm}")
function(fake_lister path text rc)
  file(WRITE "${path}" "#!/bin/sh\nprintf '${text}'\nexit ${rc}\n")
  file(CHMOD "${path}" PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE)
endfunction()
file(MAKE_DIRECTORY "${_rocm}/llvm/bin" "${_rocm}/bin")
fake_lister("${_rocm}/llvm/bin/offload-arch" "" 1)                     # no GPU driver answering
fake_lister("${_rocm}/llvm/bin/amdgpu-arch" "" 0)                      # lists nothing
fake_lister("${_rocm}/bin/rocm_agent_enumerator" "gfx000\\ngfx942\\ngfx942\\n" 0)
_mlacheck_hip_gpus_present("${_rocm}" "${_rocm}/llvm/bin/clang++" _present)
expect_equal("listers passed over until rocm_agent_enumerator" "${_present}" "gfx942")
fake_lister("${_rocm}/llvm/bin/offload-arch" "gfx90a:sramecc+:xnack-\\n" 0)
_mlacheck_hip_gpus_present("${_rocm}" "${_rocm}/llvm/bin/clang++" _present)
expect_equal("offload-arch first" "${_present}" "gfx90a")
file(REMOVE_RECURSE "${_rocm}")
