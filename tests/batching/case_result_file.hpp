#pragma once
// One GoogleTest case's outcome as a file, the hand-over between a batch process (which runs many
// cases in one GPU context) and the per-case ctest test that reports it (cmake/MlacheckBatchedTests.cmake).
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace mlacheck::batching {

enum class CaseStatus { passed, failed, skipped };

struct CaseResult {
  CaseStatus status = CaseStatus::passed;
  long long milliseconds = 0;
  std::string messages;  // failure and skip messages with their file:line, as GoogleTest prints them
};

// A file name for a full GoogleTest name ("Suite/Prefix.Case/param"): every byte outside
// [A-Za-z0-9._-] becomes %XX, so names never clash and never leave the folder.
std::string case_result_file_name(std::string_view full_name);

// Writes atomically (a temporary file renamed into place): a batch killed mid-write leaves no
// half result that a reporter could mistake for a finished case.
void write_case_result(const std::filesystem::path& dir, std::string_view full_name, const CaseResult& result);

// The result of the case, or nothing when the batch never finished it (it crashed, hung or was
// not run). Throws std::runtime_error naming the file when it exists but cannot be read as a result.
std::optional<CaseResult> read_case_result(const std::filesystem::path& dir, std::string_view full_name);

std::string_view to_string(CaseStatus status);

// The marker a batch process leaves when it reaches its end, holding the failures outside any case
// (empty when there were none). Absent: the process died before its end.
void write_program_end(const std::filesystem::path& dir, std::string_view failures_outside_cases);
std::optional<std::string> read_program_end(const std::filesystem::path& dir);

}  // namespace mlacheck::batching
