# Chooses the GPU backend from MLACHECK_GPU (auto, hip, cuda, off) and enables its language.
# What the rest of the build sees:
#   MLACHECK_GPU_BACKEND   hip, cuda or none
#   MLACHECK_GPU_ENABLED   ON when a backend is built (device folders guard their .hip files on it)
#   MLACHECK_GPU_NONE_REASON  why there is no backend (for "built without GPU support" messages)
#   mlacheck_gpu           INTERFACE target: the definition MLACHECK_GPU_HIP or MLACHECK_GPU_CUDA
#                          and the GPU runtime library
#   mlacheck_add_gpu_sources(<target> <file.hip>...)  adds kernel sources, compiled for the backend
#   mlacheck_gpu_code      a target building every library that holds .hip code: the kernels and
#                          the back end, no tests (CI's lean gfx942 compile check); empty without
#                          a backend
# The kernels are HIP C++ in .hip files, compiled as C++20 like the host code; on NVIDIA the same
# files are compiled as CUDA through device/platform/hip_to_cuda.hpp.
include(CheckLanguage)

set(_mlacheck_gpu_choices auto hip cuda off)
if(NOT MLACHECK_GPU IN_LIST _mlacheck_gpu_choices)
  message(FATAL_ERROR "MLACHECK_GPU must be one of auto, hip, cuda or off, not '${MLACHECK_GPU}'")
endif()

option(MLACHECK_HIP_CLANG19
       "Compile the HIP code with Debian's clang-19 (adds gfx942; Debian's packaged HIP only)" OFF)

include(${CMAKE_CURRENT_LIST_DIR}/MlacheckDistroHip.cmake)
include(${CMAKE_CURRENT_LIST_DIR}/MlacheckClang19Hip.cmake)
include(${CMAKE_CURRENT_LIST_DIR}/MlacheckHipArchitectures.cmake)

# Sets <found_var> and, when not found, <reason_var>. Leaves CMAKE_HIP_COMPILER set when found.
function(_mlacheck_find_hip found_var reason_var)
  _mlacheck_prepare_distro_hip(_distro_reason)
  if(_distro_reason)
    set(${found_var} OFF PARENT_SCOPE)
    set(${reason_var} "${_distro_reason}" PARENT_SCOPE)
    return()
  endif()
  if(MLACHECK_HIP_CLANG19 AND NOT CMAKE_HIP_COMPILER_ROCM_ROOT STREQUAL _MLACHECK_DISTRO_HIP_ROOT)
    message(FATAL_ERROR "MLACHECK_HIP_CLANG19 is for Debian's packaged HIP (hipcc, libamdhip64-dev, "
                        "rocm-device-libs); a ROCm install brings its own clang, which knows gfx942")
  endif()
  check_language(HIP)
  if(CMAKE_HIP_COMPILER)
    set(${found_var} ON PARENT_SCOPE)
  else()
    set(${found_var} OFF PARENT_SCOPE)
    set(${reason_var} "no HIP toolchain: CMake's HIP language found no ROCm clang" PARENT_SCOPE)
  endif()
  # The distro shim passes its flags as a normal variable; hand it on to the caller.
  set(CMAKE_HIP_FLAGS "${CMAKE_HIP_FLAGS}" PARENT_SCOPE)
endfunction()

function(_mlacheck_find_cuda found_var reason_var)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    set(${found_var} ON PARENT_SCOPE)
  else()
    set(${found_var} OFF PARENT_SCOPE)
    set(${reason_var}
        "no CUDA toolchain: CMake's CUDA language found no working nvcc (put it on PATH or set CUDACXX)"
        PARENT_SCOPE)
  endif()
endfunction()

set(MLACHECK_GPU_BACKEND none)
set(MLACHECK_GPU_NONE_REASON "MLACHECK_GPU=off")  # auto replaces it with what it did not find
if(MLACHECK_GPU STREQUAL "hip" OR MLACHECK_GPU STREQUAL "auto")
  _mlacheck_find_hip(_hip_found _hip_reason)
  if(_hip_found)
    set(MLACHECK_GPU_BACKEND hip)
  elseif(MLACHECK_GPU STREQUAL "hip")
    message(FATAL_ERROR "MLACHECK_GPU=hip but ${_hip_reason}")
  endif()
endif()
if(MLACHECK_GPU STREQUAL "cuda" OR (MLACHECK_GPU STREQUAL "auto" AND MLACHECK_GPU_BACKEND STREQUAL "none"))
  _mlacheck_find_cuda(_cuda_found _cuda_reason)
  if(_cuda_found)
    set(MLACHECK_GPU_BACKEND cuda)
  elseif(MLACHECK_GPU STREQUAL "cuda")
    message(FATAL_ERROR "MLACHECK_GPU=cuda but ${_cuda_reason}")
  else()
    set(MLACHECK_GPU_NONE_REASON "${_hip_reason}, and ${_cuda_reason}")
  endif()
endif()

add_library(mlacheck_gpu INTERFACE)

if(MLACHECK_GPU_BACKEND STREQUAL "hip")
  # Unless given: gfx90a;gfx940 with Debian's hipcc, gfx90a;gfx942 with its clang-19, the GPUs
  # present on a ROCm install (MlacheckHipArchitectures.cmake).
  mlacheck_choose_hip_architectures()
  if(MLACHECK_HIP_CLANG19 AND NOT DEFINED CMAKE_HIP_IMPLICIT_INCLUDE_DIRECTORIES)
    # Keeps hip-lang's `-isystem /usr/include` off the command line, from the compiler checks
    # of enable_language on (MlacheckClang19Hip.cmake says why); the compiler's own list, which
    # holds /usr/include, replaces this once detected.
    set(CMAKE_HIP_IMPLICIT_INCLUDE_DIRECTORIES /usr/include)
  endif()
  enable_language(HIP)
  set(CMAKE_HIP_STANDARD 20)
  set(CMAKE_HIP_STANDARD_REQUIRED ON)
  set(CMAKE_HIP_EXTENSIONS OFF)
  target_compile_definitions(mlacheck_gpu INTERFACE MLACHECK_GPU_HIP)
  # Host-only translation units that link device code still need the runtime library.
  target_link_libraries(mlacheck_gpu INTERFACE hip-lang::host)
  # Same warnings as host C++ (cmake/MlacheckWarnings.cmake covers CXX only).
  target_compile_options(mlacheck_warnings INTERFACE
    $<$<COMPILE_LANGUAGE:HIP>:-Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion>)
  if(MLACHECK_WERROR)
    target_compile_options(mlacheck_warnings INTERFACE $<$<COMPILE_LANGUAGE:HIP>:-Werror>)
  endif()
  message(STATUS "mlacheck GPU backend: HIP for ${CMAKE_HIP_ARCHITECTURES} (${CMAKE_HIP_COMPILER})")
elseif(MLACHECK_GPU_BACKEND STREQUAL "cuda")
  # H100 and H200, with the Hopper-only instructions (sm_90a: wgmma, split_kv_wgmma_kernel.hpp);
  # code built for plain 90 keeps the portable kernels only. CMake's own default (52) is below what
  # CUDA 13 still supports. CUDAARCHS in the environment is CMake's own way to choose, so it wins
  # over our default.
  if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES AND NOT DEFINED ENV{CUDAARCHS})
    set(CMAKE_CUDA_ARCHITECTURES 90a CACHE STRING "NVIDIA GPU targets (compute capabilities)")
  endif()
  enable_language(CUDA)
  # CMake 3.25 does not know that nvcc 12+ takes -std=c++20 (later CMake versions define these).
  if(NOT DEFINED CMAKE_CUDA20_STANDARD_COMPILE_OPTION
     AND CMAKE_CUDA_COMPILER_VERSION VERSION_GREATER_EQUAL 12.0)
    set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
    set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
  endif()
  set(CMAKE_CUDA_STANDARD 20)
  set(CMAKE_CUDA_STANDARD_REQUIRED ON)
  set(CMAKE_CUDA_EXTENSIONS OFF)
  find_package(CUDAToolkit REQUIRED)
  target_compile_definitions(mlacheck_gpu INTERFACE MLACHECK_GPU_CUDA)
  # hip-clang lets device code call constexpr host functions (std::bit_cast, std::min ...);
  # nvcc needs this flag for the same sources to compile on both.
  target_compile_options(mlacheck_gpu INTERFACE $<$<COMPILE_LANGUAGE:CUDA>:--expt-relaxed-constexpr>)
  # Static runtime: binaries built here run on GPU hosts without a matching CUDA toolkit.
  target_link_libraries(mlacheck_gpu INTERFACE CUDA::cudart_static)
  target_compile_options(mlacheck_warnings INTERFACE
    $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra,-Wshadow,-Wconversion,-Wno-sign-conversion>)
  if(MLACHECK_WERROR)
    target_compile_options(mlacheck_warnings INTERFACE
      $<$<COMPILE_LANGUAGE:CUDA>:-Werror=all-warnings -Xcompiler=-Werror>)
  endif()
  message(STATUS "mlacheck GPU backend: CUDA for architectures ${CMAKE_CUDA_ARCHITECTURES} (${CMAKE_CUDA_COMPILER})")
else()
  message(STATUS "mlacheck GPU backend: none, device code skipped (${MLACHECK_GPU_NONE_REASON})")
endif()

if(MLACHECK_GPU_BACKEND STREQUAL "none")
  set(MLACHECK_GPU_ENABLED OFF)
else()
  set(MLACHECK_GPU_ENABLED ON)
endif()
add_custom_target(mlacheck_gpu_code)

# Adds .hip kernel sources to <target> and compiles them as HIP or, on NVIDIA, as CUDA (CMake
# passes nvcc `-x cu`, so the .hip extension is fine). Without a backend there is nothing that
# could compile them, so callers guard with if(MLACHECK_GPU_ENABLED).
function(mlacheck_add_gpu_sources target)
  if(NOT MLACHECK_GPU_ENABLED)
    message(FATAL_ERROR "mlacheck_add_gpu_sources(${target}) without a GPU backend; "
                        "guard the call with if(MLACHECK_GPU_ENABLED)")
  endif()
  string(TOUPPER "${MLACHECK_GPU_BACKEND}" _language)
  target_sources(${target} PRIVATE ${ARGN})
  set_source_files_properties(${ARGN} TARGET_DIRECTORY ${target} PROPERTIES LANGUAGE ${_language})
  target_link_libraries(${target} PRIVATE mlacheck_gpu)
  # The kernels and the back end; test programs' kernels are built (and run) with the tests.
  get_target_property(_type ${target} TYPE)
  if(_type MATCHES "_LIBRARY$")
    add_dependencies(mlacheck_gpu_code ${target})
  endif()
endfunction()
