#include "core/parallel_for.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace mlacheck {

void parallel_for(int count, int threads, const std::function<void(int index, int worker)>& body) {
  const int workers = std::max(1, std::min(threads, count));
  if (workers == 1) {
    for (int i = 0; i < count; ++i) body(i, 0);
    return;
  }
  std::atomic<int> next{0};
  std::atomic<bool> failed{false};
  std::exception_ptr first_error;
  std::mutex error_lock;
  const auto work = [&](int worker) {
    for (int i = next++; i < count && !failed; i = next++) {
      try {
        body(i, worker);
      } catch (...) {
        const std::lock_guard<std::mutex> hold(error_lock);
        if (!first_error) first_error = std::current_exception();
        failed = true;
      }
    }
  };
  std::vector<std::thread> started;
  started.reserve(static_cast<std::size_t>(workers - 1));
  for (int w = 1; w < workers; ++w) started.emplace_back(work, w);
  work(0);
  for (std::thread& t : started) t.join();
  if (first_error) std::rethrow_exception(first_error);
}

}  // namespace mlacheck
