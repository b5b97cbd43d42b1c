#include "tests/batching/case_result_file.hpp"

#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace mlacheck::batching {

std::string case_result_file_name(std::string_view full_name) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string name;
  for (const char c : full_name) {
    const bool plain =
        (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
    if (plain) {
      name += c;
    } else {
      const auto byte = static_cast<unsigned char>(c);
      name += '%';
      name += kHex[byte >> 4];
      name += kHex[byte & 15];
    }
  }
  // "." and ".." are the only plain names a path would read specially.
  if (name == "." || name == "..") name = "%2E" + name.substr(1);
  return name + ".result";
}

std::string_view to_string(CaseStatus status) {
  switch (status) {
    case CaseStatus::passed:
      return "PASSED";
    case CaseStatus::failed:
      return "FAILED";
    case CaseStatus::skipped:
      return "SKIPPED";
  }
  return "?";
}

void write_case_result(const std::filesystem::path& dir, std::string_view full_name, const CaseResult& result) {
  const std::filesystem::path path = dir / case_result_file_name(full_name);
  const std::filesystem::path temporary = path.string() + ".partial";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << to_string(result.status) << ' ' << result.milliseconds << '\n' << result.messages;
    if (!out.flush()) throw std::runtime_error("cannot write " + temporary.string());
  }
  std::filesystem::rename(temporary, path);
}

std::optional<CaseResult> read_case_result(const std::filesystem::path& dir, std::string_view full_name) {
  const std::filesystem::path path = dir / case_result_file_name(full_name);
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::string status;
  CaseResult result;
  if (!(in >> status >> result.milliseconds) || in.get() != '\n') {
    throw std::runtime_error(path.string() + ": not a case result (expected '<STATUS> <ms>' on its first line)");
  }
  if (status == "PASSED") {
    result.status = CaseStatus::passed;
  } else if (status == "FAILED") {
    result.status = CaseStatus::failed;
  } else if (status == "SKIPPED") {
    result.status = CaseStatus::skipped;
  } else {
    throw std::runtime_error(path.string() + ": unknown status '" + status + "'");
  }
  std::ostringstream rest;
  rest << in.rdbuf();
  result.messages = rest.str();
  return result;
}

namespace {
constexpr const char* kProgramEnd = "program.end";  // not a case file: those end in ".result"
}  // namespace

void write_program_end(const std::filesystem::path& dir, std::string_view failures_outside_cases) {
  const std::filesystem::path temporary = dir / (std::string(kProgramEnd) + ".partial");
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << failures_outside_cases;
    if (!out.flush()) throw std::runtime_error("cannot write " + temporary.string());
  }
  std::filesystem::rename(temporary, dir / kProgramEnd);
}

std::optional<std::string> read_program_end(const std::filesystem::path& dir) {
  std::ifstream in(dir / kProgramEnd, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace mlacheck::batching
