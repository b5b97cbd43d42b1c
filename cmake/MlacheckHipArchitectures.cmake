# The AMD GPU targets of the fat binary when CMAKE_HIP_ARCHITECTURES is not given:
#   Debian's packaged HIP, hipcc's clang-15      gfx90a;gfx940  (clang-15 knows no gfx942)
#   Debian's packaged HIP, MLACHECK_HIP_CLANG19  gfx90a;gfx942  (MlacheckClang19Hip.cmake)
#   a ROCm install                               the GPUs present that the kernels support, read
#                                                with offload-arch, amdgpu-arch or
#                                                rocm_agent_enumerator; without one, gfx90a;gfx942
# and gfx950 (MI350X/MI355X) joins the default lists where the compiler knows it: LLVM 20 and
# later, so ROCm >= 6.4, never Debian 12's clang-15 or clang-19.
# The kernels need MFMA with bf16_1k, wave64: CDNA2 (gfx90a) and later.
set(MLACHECK_HIP_SUPPORTED_ARCHITECTURES gfx90a gfx940 gfx941 gfx942 gfx950)

# The GPU names in the output of an agent lister, one agent per line ("gfx942" or a target id
# such as "gfx942:sramecc+:xnack-"), without the CPU agent gfx000 and without repeats.
function(mlacheck_hip_parse_agents text out_var)
  string(REGEX MATCHALL "gfx[0-9a-f]+" _names "${text}")
  list(REMOVE_ITEM _names gfx000)
  list(REMOVE_DUPLICATES _names)
  set(${out_var} "${_names}" PARENT_SCOPE)
endfunction()

# Splits GPU names into those the kernels support and the rest.
function(mlacheck_hip_split_supported names supported_var unsupported_var)
  set(_supported "")
  set(_unsupported "")
  foreach(_name IN LISTS names)
    if(_name IN_LIST MLACHECK_HIP_SUPPORTED_ARCHITECTURES)
      list(APPEND _supported ${_name})
    else()
      list(APPEND _unsupported ${_name})
    endif()
  endforeach()
  set(${supported_var} "${_supported}" PARENT_SCOPE)
  set(${unsupported_var} "${_unsupported}" PARENT_SCOPE)
endfunction()

# TRUE when <compiler> compiles device code for <arch> (an unknown processor is an error).
function(mlacheck_hip_compiler_knows compiler arch out_var)
  set(_probe "${CMAKE_BINARY_DIR}/CMakeFiles/mlacheck_arch_probe.c")
  file(WRITE "${_probe}" "int mlacheck_arch_probe;\n")
  execute_process(
    COMMAND "${compiler}" --target=amdgcn-amd-amdhsa -mcpu=${arch} -nogpulib -x c -c "${_probe}"
            -o "${_probe}.o"
    RESULT_VARIABLE _rc OUTPUT_QUIET ERROR_QUIET TIMEOUT 60)
  if(_rc EQUAL 0)
    set(${out_var} TRUE PARENT_SCOPE)
  else()
    set(${out_var} FALSE PARENT_SCOPE)
  endif()
endfunction()

# The GPUs this machine has, as the first agent lister that answers names them.
function(_mlacheck_hip_gpus_present rocm_root compiler out_var)
  get_filename_component(_compiler_dir "${compiler}" DIRECTORY)
  foreach(_lister offload-arch amdgpu-arch rocm_agent_enumerator)
    unset(_program)
    find_program(_program ${_lister} NO_CACHE
                 HINTS "${rocm_root}/llvm/bin" "${rocm_root}/bin" "${_compiler_dir}")
    if(NOT _program)
      continue()
    endif()
    execute_process(COMMAND "${_program}" RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_QUIET TIMEOUT 60)
    if(_rc EQUAL 0)
      mlacheck_hip_parse_agents("${_out}" _names)
      if(_names)
        set(${out_var} "${_names}" PARENT_SCOPE)
        return()
      endif()
    endif()
  endforeach()
  set(${out_var} "" PARENT_SCOPE)
endfunction()

# The decision itself, from what the configure step found (a plain function, so that
# cmake/tests/hip_architectures_test.cmake can hold it to the table above):
#   source        DISTRO (Debian's packaged HIP) or ROCM
#   clang19       MLACHECK_HIP_CLANG19
#   present       GPU names found on this machine (ROCM only)
#   knows_gfx950  whether the compiler targets gfx950
# Sets <out_var> to the architectures and <why_var> to the reason, for the configure log.
function(mlacheck_hip_architectures_for source clang19 present knows_gfx950 out_var why_var)
  set(_default_list TRUE)
  if(source STREQUAL "DISTRO")
    # Debian's HIP 5.2 runtime runs none of these beyond gfx90a, so there is nothing to probe.
    if(clang19)
      set(_archs gfx90a gfx942)
      set(_why "Debian's HIP with clang-19")
    else()
      set(_archs gfx90a gfx940)
      set(_why "Debian's HIP with hipcc's clang")
    endif()
  else()
    mlacheck_hip_split_supported("${present}" _archs _unsupported)
    if(gfx950 IN_LIST _archs AND NOT knows_gfx950)
      list(REMOVE_ITEM _archs gfx950)
      list(APPEND _unsupported "gfx950 (needs LLVM 20, ROCm >= 6.4)")
    endif()
    if(_unsupported)
      message(WARNING "mlacheck: not building for these GPUs of this machine: ${_unsupported}; the "
                      "kernels target ${MLACHECK_HIP_SUPPORTED_ARCHITECTURES} (MFMA with bf16_1k)")
    endif()
    set(_why "the GPUs of this machine")
    set(_default_list FALSE)
    if(NOT _archs)
      set(_default_list TRUE)
      set(_archs gfx90a gfx942)
      set(_why "no GPU this build can target found, the default list")
    endif()
  endif()
  if(_default_list AND knows_gfx950)
    list(APPEND _archs gfx950)
  endif()
  set(${out_var} "${_archs}" PARENT_SCOPE)
  set(${why_var} "${_why}" PARENT_SCOPE)
endfunction()

# Sets CMAKE_HIP_ARCHITECTURES (cache) unless the user gave it. Called once the HIP compiler is
# known (check_language) and before enable_language(HIP), which compiles for these targets.
function(mlacheck_choose_hip_architectures)
  if(DEFINED CMAKE_HIP_ARCHITECTURES)
    return()
  endif()
  mlacheck_hip_compiler_knows("${CMAKE_HIP_COMPILER}" gfx950 _knows_gfx950)
  if(CMAKE_HIP_COMPILER_ROCM_ROOT STREQUAL _MLACHECK_DISTRO_HIP_ROOT)
    set(_source DISTRO)
    set(_present "")
  else()
    set(_source ROCM)
    _mlacheck_hip_gpus_present("${CMAKE_HIP_COMPILER_ROCM_ROOT}" "${CMAKE_HIP_COMPILER}" _present)
  endif()
  mlacheck_hip_architectures_for(${_source} "${MLACHECK_HIP_CLANG19}" "${_present}" ${_knows_gfx950} _archs _why)
  set(CMAKE_HIP_ARCHITECTURES "${_archs}" CACHE STRING "AMD GPU targets of the fat binary")
  message(STATUS "mlacheck HIP architectures: ${_archs} (${_why}; the compiler knows gfx950: ${_knows_gfx950})")
endfunction()
