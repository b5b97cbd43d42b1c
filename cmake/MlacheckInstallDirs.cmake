# Where an installed mlacheck keeps its parts (GNUInstallDirs under CMAKE_INSTALL_PREFIX), and the
# paths between them that the code needs: an installed `mlacheck` or libmlacheck_capi.so finds the
# data tables relative to its own file (plan/data_files.cpp), and the installed Python package
# finds the library relative to itself, so an install works from any prefix and any folder.
set(MLACHECK_INSTALL_DATADIR "${CMAKE_INSTALL_DATADIR}/mlacheck")
set(MLACHECK_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/mlacheck"
    CACHE STRING "Where the CMake package (mlacheckConfig.cmake) is installed, under the prefix")
# MLACHECK_INSTALL_PYTHONDIR, where the Python package goes, depends on the interpreter:
# python/CMakeLists.txt sets it.

# Relative paths, computed under a stand-in prefix so that they hold for whatever prefix
# `cmake --install --prefix` is given later.
function(mlacheck_relative_install_path out from to)
  foreach(_dir from to)
    if(IS_ABSOLUTE "${${_dir}}")
      message(FATAL_ERROR "mlacheck: install folder ${${_dir}} must be relative to the prefix")
    endif()
  endforeach()
  file(RELATIVE_PATH _relative "/prefix/${from}" "/prefix/${to}")
  string(REGEX REPLACE "/$" "" _relative "${_relative}")
  set(${out} "${_relative}" PARENT_SCOPE)
endfunction()
mlacheck_relative_install_path(MLACHECK_DATA_FROM_BINDIR "${CMAKE_INSTALL_BINDIR}" "${MLACHECK_INSTALL_DATADIR}")
mlacheck_relative_install_path(MLACHECK_DATA_FROM_LIBDIR "${CMAKE_INSTALL_LIBDIR}" "${MLACHECK_INSTALL_DATADIR}")
