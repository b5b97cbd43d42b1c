#include "tests/batching/case_result_listener.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>

#include "tests/batching/case_result_file.hpp"

namespace mlacheck::batching {
namespace {

class CaseResultListener : public ::testing::EmptyTestEventListener {
 public:
  explicit CaseResultListener(std::filesystem::path dir) : dir_(std::move(dir)) {}

  void OnTestStart(const ::testing::TestInfo&) override { messages_.str(""); }

  // Every assertion's message, in GoogleTest's own "file:line: Failure" form, and the skip reason.
  void OnTestPartResult(const ::testing::TestPartResult& part) override {
    if (part.skipped()) {
      messages_ << (part.file_name() ? part.file_name() : "unknown file") << ':' << part.line_number() << ": Skipped\n"
                << part.message() << '\n';
    } else if (part.failed()) {
      messages_ << (part.file_name() ? part.file_name() : "unknown file") << ':' << part.line_number() << ": Failure\n"
                << part.message() << '\n';
    }
  }

  // Failures outside any case (a global environment's set-up or tear-down: the GPU properties'
  // coverage check) belong to the whole process; the marker also says the program reached its end.
  void OnTestProgramEnd(const ::testing::UnitTest& unit) override {
    const ::testing::TestResult& outside = unit.ad_hoc_test_result();
    std::ostringstream failures;
    for (int i = 0; i < outside.total_part_count(); ++i) {
      const ::testing::TestPartResult& part = outside.GetTestPartResult(i);
      if (!part.failed()) continue;
      failures << (part.file_name() ? part.file_name() : "unknown file") << ':' << part.line_number() << ": Failure\n"
               << part.message() << '\n';
    }
    write_program_end(dir_, failures.str());
  }

  void OnTestEnd(const ::testing::TestInfo& info) override {
    const ::testing::TestResult& outcome = *info.result();
    CaseResult result;
    result.status = outcome.Failed()    ? CaseStatus::failed
                    : outcome.Skipped() ? CaseStatus::skipped
                                        : CaseStatus::passed;
    result.milliseconds = static_cast<long long>(outcome.elapsed_time());
    result.messages = messages_.str();
    write_case_result(dir_, std::string(info.test_suite_name()) + "." + info.name(), result);
  }

 private:
  std::filesystem::path dir_;
  std::ostringstream messages_;
};

}  // namespace

void install_case_result_listener() {
  const char* dir = std::getenv("MLACHECK_CASE_RESULTS_DIR");
  if (dir == nullptr || *dir == '\0') return;
  ::testing::UnitTest::GetInstance()->listeners().Append(new CaseResultListener(dir));
}

}  // namespace mlacheck::batching
