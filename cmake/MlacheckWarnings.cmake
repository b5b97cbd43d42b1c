# One place for the warning flags of the project's own C++ targets.
add_library(mlacheck_warnings INTERFACE)
target_compile_options(mlacheck_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion>)
# GCC 12 reports false -Wrestrict positives inside libstdc++'s string concatenation at -O2
# (GCC bug 105329); they say nothing about our code.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
  target_compile_options(mlacheck_warnings INTERFACE $<$<COMPILE_LANGUAGE:CXX>:-Wno-restrict>)
endif()
if(MLACHECK_WERROR)
  target_compile_options(mlacheck_warnings INTERFACE $<$<COMPILE_LANGUAGE:CXX>:-Werror>)
endif()
