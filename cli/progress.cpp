#include "cli/progress.hpp"

#include <unistd.h>

#include <chrono>
#include <utility>

namespace mlacheck::cli {

bool stderr_is_terminal() { return ::isatty(STDERR_FILENO) == 1; }

std::string progress_line(std::size_t done, std::size_t total, std::size_t failed, double elapsed_s, bool final_line) {
  const double rate = elapsed_s > 0.0 ? static_cast<double>(done) / elapsed_s : 0.0;
  const double left = rate > 0.0 && total > done ? static_cast<double>(total - done) / rate : 0.0;
  char line[160];
  std::snprintf(line, sizeof line, "[%zu/%zu] %zu failed, %.1f cases/s, %s %.0f s", done, total, failed, rate,
                final_line ? "took" : "ETA", final_line ? elapsed_s : left);
  return line;
}

double Progress::steady_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

Progress::Progress(std::size_t total, std::FILE* out, bool interactive, double quiet_interval_s, Clock clock)
    : total_(total),
      out_(out),
      interactive_(interactive),
      quiet_interval_s_(quiet_interval_s),
      clock_(std::move(clock)),
      start_(clock_()),
      last_print_(start_) {}

void Progress::case_done(bool failed) {
  ++done_;
  if (failed) ++failed_;
  if (interactive_ || clock_() - last_print_ >= quiet_interval_s_) print(false);
}

void Progress::finish() { print(true); }

void Progress::print(bool final_line) {
  last_print_ = clock_();
  const std::string line = progress_line(done_, total_, failed_, last_print_ - start_, final_line);
  // On a terminal \r and erase-to-end rewrite the line in place; the last one ends it.
  if (interactive_) {
    std::fprintf(out_, "\r%s%s", line.c_str(), final_line ? "\n" : "\033[K");
  } else {
    std::fprintf(out_, "%s\n", line.c_str());
  }
  std::fflush(out_);
}

}  // namespace mlacheck::cli
