#include "cli/progress.hpp"

#include <unistd.h>

namespace mlacheck::cli {

bool stderr_is_terminal() { return ::isatty(STDERR_FILENO) == 1; }

Progress::Progress(std::size_t total, std::FILE* out, bool interactive, double quiet_interval_s)
    : total_(total),
      out_(out),
      interactive_(interactive),
      quiet_interval_s_(quiet_interval_s),
      start_(std::chrono::steady_clock::now()),
      last_print_(start_) {}

void Progress::case_done(bool failed) {
  ++done_;
  if (failed) ++failed_;
  const auto now = std::chrono::steady_clock::now();
  const double since = std::chrono::duration<double>(now - last_print_).count();
  if (interactive_ || since >= quiet_interval_s_) print(false);
}

void Progress::finish() { print(true); }

void Progress::print(bool final_line) {
  const auto now = std::chrono::steady_clock::now();
  last_print_ = now;
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  const double rate = elapsed > 0.0 ? static_cast<double>(done_) / elapsed : 0.0;
  const double eta = rate > 0.0 ? static_cast<double>(total_ - done_) / rate : 0.0;
  std::fprintf(out_, "%s[%zu/%zu] %zu failed, %.1f cases/s, %s %.0f s%s", interactive_ ? "\r" : "", done_, total_,
               failed_, rate, final_line ? "took" : "ETA", final_line ? elapsed : eta,
               interactive_ && !final_line ? "   " : "\n");
  std::fflush(out_);
}

}  // namespace mlacheck::cli
