#pragma once
// Progress of a long run on stderr: cases done of the total, failures so far, cases per second
// and the time left at that rate. On a terminal one line rewritten in place after every case;
// otherwise (CI logs) a plain line at most every `quiet_interval_s` seconds. The last line gives
// the time the run took. python/mlacheck/running/_progress.py prints the same lines for the Python runner.
#include <cstddef>
#include <cstdio>
#include <functional>
#include <string>

namespace mlacheck::cli {

// "[done/total] F failed, R cases/s, ETA E s" ("took E s" on the last line). The rate is
// done / elapsed and the time left (total - done) / rate; both 0 while nothing is known.
std::string progress_line(std::size_t done, std::size_t total, std::size_t failed, double elapsed_s, bool final_line);

class Progress {
 public:
  using Clock = std::function<double()>;  // seconds, monotonic
  Progress(std::size_t total, std::FILE* out, bool interactive, double quiet_interval_s = 30.0,
           Clock clock = steady_seconds);
  void case_done(bool failed);
  // For runs whose length is known only as a bound (mutate's hunts end at a fault's first catch):
  // the total as now known.
  void set_total(std::size_t total) { total_ = total; }
  // A failure found in a case already counted (mutate's clean run of a generated case).
  void add_failure() { ++failed_; }
  std::size_t done() const { return done_; }
  void finish();

  static double steady_seconds();

 private:
  void print(bool final_line);

  std::size_t total_;
  std::size_t done_ = 0;
  std::size_t failed_ = 0;
  std::FILE* out_;
  bool interactive_;
  double quiet_interval_s_;
  Clock clock_;
  double start_;
  double last_print_;
};

// True when stderr is a terminal.
bool stderr_is_terminal();

}  // namespace mlacheck::cli
