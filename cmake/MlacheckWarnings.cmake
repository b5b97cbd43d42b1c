# One place for the warning flags of the project's own C++ targets.
add_library(mlacheck_warnings INTERFACE)
target_compile_options(mlacheck_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion>)
if(MLACHECK_WERROR)
  target_compile_options(mlacheck_warnings INTERFACE $<$<COMPILE_LANGUAGE:CXX>:-Werror>)
endif()
