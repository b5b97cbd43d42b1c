// main() of the test executables whose cases ctest runs in batches (cmake/MlacheckBatchedTests.cmake):
// GoogleTest's own main plus the listener that hands each case's outcome to its ctest test.
#include <gtest/gtest.h>

#include "tests/batching/case_result_listener.hpp"

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  mlacheck::batching::install_case_result_listener();
  return RUN_ALL_TESTS();
}
