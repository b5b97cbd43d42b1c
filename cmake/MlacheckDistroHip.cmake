# Makes CMake's HIP language work with a distribution's packaged ROCm (Debian/Ubuntu: hipcc,
# libamdhip64-dev, rocm-device-libs), which scatters HIP over /usr. The HIP language expects one
# ROCm root holding lib/cmake/hip-lang, and its try_compile projects find the packages hip-lang
# depends on (amd_comgr, AMDDeviceLibs) only through CMAKE_PREFIX_PATH. So we build such a root
# in the build tree from symlinks, export it through the environment (which try_compile
# inherits), and point the language at the clang that hipcc itself uses (or, with
# MLACHECK_HIP_CLANG19, at Debian's clang-19: MlacheckClang19Hip.cmake).
# A real ROCm install (/opt/rocm), or a user-given CMAKE_HIP_COMPILER_ROCM_ROOT, is left alone.

set(_MLACHECK_DISTRO_HIP_ROOT "${CMAKE_BINARY_DIR}/rocm-root")

# Sets <reason_var> to why a distro layout was detected but cannot be used; empty otherwise
# (also when there is no distro layout: then CMake's own HIP detection decides).
function(_mlacheck_prepare_distro_hip reason_var)
  set(${reason_var} "" PARENT_SCOPE)
  set(_pkgdir "/usr/lib/${CMAKE_LIBRARY_ARCHITECTURE}/cmake")
  if(EXISTS "/opt/rocm" OR NOT EXISTS "${_pkgdir}/hip-lang/hip-lang-config.cmake")
    return()
  endif()
  if(DEFINED CMAKE_HIP_COMPILER_ROCM_ROOT
     AND NOT CMAKE_HIP_COMPILER_ROCM_ROOT STREQUAL _MLACHECK_DISTRO_HIP_ROOT)
    return()
  endif()

  find_program(_hipconfig hipconfig NO_CACHE)
  if(NOT _hipconfig)
    set(${reason_var} "packaged HIP found in ${_pkgdir} but no hipconfig (install hipcc)" PARENT_SCOPE)
    return()
  endif()
  # hipconfig prints the clang directory and the version of the clang hipcc calls; distros
  # install it versioned (clang++-15 next to an unrelated default clang++).
  execute_process(COMMAND "${_hipconfig}" --full OUTPUT_VARIABLE _hipconfig_out ERROR_QUIET)
  if(NOT _hipconfig_out MATCHES "HIP_CLANG_PATH *: *([^\n]+)\n[^\n]*clang version ([0-9]+)")
    set(${reason_var} "hipconfig --full does not name the clang that hipcc uses" PARENT_SCOPE)
    return()
  endif()
  set(_clang_dir "${CMAKE_MATCH_1}")
  set(_clang_major "${CMAKE_MATCH_2}")
  find_program(_clang NAMES clang++-${_clang_major} clang++ PATHS "${_clang_dir}" NO_DEFAULT_PATH NO_CACHE)
  file(GLOB _llvm_bitcode_dirs "/usr/lib/llvm-${_clang_major}/lib/clang/*/amdgcn/bitcode")
  find_path(_bitcode_dir ockl.bc NO_DEFAULT_PATH NO_CACHE
            PATHS "/usr/lib/${CMAKE_LIBRARY_ARCHITECTURE}/amdgcn/bitcode" "/usr/lib/amdgcn/bitcode"
                  ${_llvm_bitcode_dirs})
  find_path(_device_libs_dir AMDDeviceLibsConfig.cmake NO_DEFAULT_PATH NO_CACHE
            PATHS "/usr/lib/cmake/AMDDeviceLibs" "${_pkgdir}/AMDDeviceLibs")
  if(NOT _clang OR NOT _bitcode_dir OR NOT _device_libs_dir)
    string(CONCAT _reason "packaged HIP found in ${_pkgdir} but incomplete: clang++-${_clang_major} "
                  "'${_clang}', device bitcode '${_bitcode_dir}', AMDDeviceLibs '${_device_libs_dir}' "
                  "(install hipcc and rocm-device-libs)")
    set(${reason_var} "${_reason}" PARENT_SCOPE)
    return()
  endif()

  # MLACHECK_HIP_CLANG19 swaps in clang-19 and a device-library folder that also serves gfx942.
  set(_extra_flags "")
  if(MLACHECK_HIP_CLANG19)
    _mlacheck_prepare_clang19_hip("${_bitcode_dir}" _clang _bitcode_dir _extra_flags)
  endif()

  set(_root "${_MLACHECK_DISTRO_HIP_ROOT}")
  file(MAKE_DIRECTORY "${_root}/lib/cmake")
  foreach(_pkg hip-lang hip amd_comgr hsa-runtime64)
    file(CREATE_LINK "${_pkgdir}/${_pkg}" "${_root}/lib/cmake/${_pkg}" SYMBOLIC)
  endforeach()
  file(CREATE_LINK "${_device_libs_dir}" "${_root}/lib/cmake/AMDDeviceLibs" SYMBOLIC)

  if(DEFINED ENV{CMAKE_PREFIX_PATH} AND NOT "$ENV{CMAKE_PREFIX_PATH}" STREQUAL "")
    set(ENV{CMAKE_PREFIX_PATH} "${_root}:$ENV{CMAKE_PREFIX_PATH}")
  else()
    set(ENV{CMAKE_PREFIX_PATH} "${_root}")
  endif()
  if(NOT CMAKE_HIP_COMPILER)
    set(CMAKE_HIP_COMPILER "${_clang}" CACHE FILEPATH "HIP compiler")
  endif()
  set(CMAKE_HIP_COMPILER_ROCM_ROOT "${_root}" CACHE PATH "ROCm root for CMake's HIP language")
  # Prepended to the user's flags on every configure, never stored in the cache.
  string(STRIP "--rocm-path=/usr --hip-device-lib-path=${_bitcode_dir} ${_extra_flags}" _flags)
  set(CMAKE_HIP_FLAGS "${_flags} ${CMAKE_HIP_FLAGS}" PARENT_SCOPE)
  message(STATUS "HIP from distribution packages: ${_clang}, ROCm root shim ${_root}")
endfunction()
