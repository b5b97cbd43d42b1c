#pragma once
// A table written to a fresh file under the test's temporary directory, removed afterwards.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace mlacheck::scenarios {

class TempTable {
 public:
  explicit TempTable(const std::string& text) {
    static int counter = 0;
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    path_ = std::filesystem::path(::testing::TempDir()) /
            (std::string(info->test_suite_name()) + "." + info->name() + "." + std::to_string(counter++) + ".csv");
    std::ofstream(path_) << text;
  }
  ~TempTable() { std::filesystem::remove(path_); }
  TempTable(const TempTable&) = delete;
  TempTable& operator=(const TempTable&) = delete;
  std::string path() const { return path_.string(); }

 private:
  std::filesystem::path path_;
};

}  // namespace mlacheck::scenarios
