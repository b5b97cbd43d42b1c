#pragma once
// Progress of a long run on stderr: done/total, failures so far, rate and ETA. On a terminal one
// line rewritten in place; otherwise (CI logs) a plain line at most every `quiet_interval_s`.
#include <chrono>
#include <cstddef>
#include <cstdio>

namespace mlacheck::cli {

class Progress {
 public:
  Progress(std::size_t total, std::FILE* out, bool interactive, double quiet_interval_s = 30.0);
  void case_done(bool failed);
  void finish();

 private:
  void print(bool final_line);

  std::size_t total_;
  std::size_t done_ = 0;
  std::size_t failed_ = 0;
  std::FILE* out_;
  bool interactive_;
  double quiet_interval_s_;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_print_;
};

// True when stderr is a terminal.
bool stderr_is_terminal();

}  // namespace mlacheck::cli
