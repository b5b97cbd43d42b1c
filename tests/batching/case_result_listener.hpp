#pragma once
// A GoogleTest listener that writes each finished case's outcome to MLACHECK_CASE_RESULTS_DIR
// (tests/batching/case_result_file.hpp), so that one process can run a batch of device cases in one
// GPU context while ctest still reports every case as a test of its own.

namespace mlacheck::batching {

// Appends the listener when MLACHECK_CASE_RESULTS_DIR is set; does nothing otherwise. Call after
// InitGoogleTest and before RUN_ALL_TESTS.
void install_case_result_listener();

}  // namespace mlacheck::batching
