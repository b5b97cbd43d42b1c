# `cmake --install`: the mlacheck tool, libmlacheck_capi.so, the headers of include/mlacheck/, the
# data tables, the Python package and the CMake package, under GNUInstallDirs folders
# (cmake/MlacheckInstallDirs.cmake names them). A consumer then writes
#   find_package(mlacheck 0.1 REQUIRED)
#   target_link_libraries(my_plugin PRIVATE mlacheck::backend_abi)   # a backend plugin: the ABI header
#   target_link_libraries(my_tool PRIVATE mlacheck::capi)            # the harness C API
# and an installed `mlacheck` finds its tables from the prefix, run from any folder (docs/install.md).
include(CMakePackageConfigHelpers)

install(TARGETS mlacheck_capi mlacheck_backend_abi EXPORT mlacheckTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
if(TARGET mlacheck)
  install(TARGETS mlacheck RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/mlacheck DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.h")
install(FILES ${PROJECT_SOURCE_DIR}/scenarios/upstream.csv ${PROJECT_SOURCE_DIR}/scenarios/known_bugs.csv
              ${PROJECT_SOURCE_DIR}/plan/production_factors.csv ${PROJECT_SOURCE_DIR}/plan/impossible_combinations.csv
              ${PROJECT_SOURCE_DIR}/plan/tiers/smoke.plan ${PROJECT_SOURCE_DIR}/plan/tiers/pre-merge.plan
              ${PROJECT_SOURCE_DIR}/plan/tiers/nightly.plan
        DESTINATION ${MLACHECK_INSTALL_DATADIR})
install(FILES ${PROJECT_SOURCE_DIR}/LICENSE DESTINATION ${CMAKE_INSTALL_DOCDIR})

# The Python package, with the library and its version recorded relative to itself
# (python/CMakeLists.txt writes the installed copy's _paths.py and _version.py).
install(DIRECTORY ${PROJECT_SOURCE_DIR}/python/mlacheck DESTINATION ${MLACHECK_INSTALL_PYTHONDIR}
        FILES_MATCHING PATTERN "*.py" PATTERN "__pycache__" EXCLUDE)
install(FILES ${MLACHECK_PYTHON_INSTALLED_PATHS} ${MLACHECK_PYTHON_VERSION_FILE}
        DESTINATION ${MLACHECK_INSTALL_PYTHONDIR}/mlacheck)
# Its dist-info (as pip would write): importlib.metadata finds the distribution, pytest loads the
# plugin from the pytest11 entry point with no -p, and the console_scripts entry names the
# `python -m mlacheck` command line (the C++ tool already is bin/mlacheck here).
set(_dist_info "${CMAKE_CURRENT_BINARY_DIR}/mlacheck-${PROJECT_VERSION}.dist-info")
file(WRITE "${_dist_info}/METADATA"
     "Metadata-Version: 2.1\nName: mlacheck\nVersion: ${PROJECT_VERSION}\nRequires-Dist: numpy\n")
file(WRITE "${_dist_info}/entry_points.txt"
     "[console_scripts]\nmlacheck = mlacheck.cli._main:main\n\n[pytest11]\nmlacheck.pytest_plugin = mlacheck.pytest_plugin\n")
file(WRITE "${_dist_info}/INSTALLER" "cmake\n")
install(DIRECTORY "${_dist_info}" DESTINATION ${MLACHECK_INSTALL_PYTHONDIR})

# The CMake package: mlacheck::capi and mlacheck::backend_abi, with a version file. Before 1.0 a
# minor version may change the ABI, so only the same major.minor is compatible.
install(EXPORT mlacheckTargets NAMESPACE mlacheck:: FILE mlacheckTargets.cmake
        DESTINATION ${MLACHECK_INSTALL_CMAKEDIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/mlacheckConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/mlacheckConfig.cmake
                              INSTALL_DESTINATION ${MLACHECK_INSTALL_CMAKEDIR}
                              PATH_VARS MLACHECK_INSTALL_DATADIR CMAKE_INSTALL_BINDIR)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/mlacheckConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/mlacheckConfig.cmake ${PROJECT_BINARY_DIR}/mlacheckConfigVersion.cmake
        DESTINATION ${MLACHECK_INSTALL_CMAKEDIR})
