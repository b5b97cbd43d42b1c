#pragma once
// The one prefetch loop: a list of cases whose host half (inputs, the oracle) is prepared ahead on
// a few threads while the caller takes them in list order, pull-style. At most `lookahead`
// prepared cases wait to be taken, so memory stays bounded; the cases being prepared share the
// host's threads for their oracles by their work (harness/oracle_share.hpp). run_cases()
// (run/case_prefetch.hpp) is built on it for the built-in backend, and the C API's prefetcher
// (api/case_prefetcher.hpp, mlacheck_prefetch_*) for a caller that runs its own backend.
#include <condition_variable>
#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "harness/oracle_share.hpp"

namespace mlacheck {

template <class Prepared>
class PrefetchQueue {
 public:
  // prepare(i, oracle_threads): case i's host half, its oracle on `oracle_threads` threads.
  using Prepare = std::function<Prepared(std::size_t index, int oracle_threads)>;

  // `works` holds each case's work (case_work; 0 for one with no oracle), which sizes its share of
  // the threads. With lookahead 0 nothing runs ahead: next() prepares on the caller's thread.
  PrefetchQueue(std::vector<double> works, std::size_t lookahead, std::size_t threads, Prepare prepare)
      : work_(std::move(works)), lookahead_(lookahead), prepare_(std::move(prepare)), slots_(work_.size()) {
    if (lookahead_ > 0 && threads == 0) throw std::invalid_argument("threads must be at least 1");
    if (lookahead_ == 0) return;
    threads_.reserve(threads);
    for (std::size_t t = 0; t < threads; ++t) threads_.emplace_back([this] { prepare_ahead(); });
  }
  // Cancels: no case is claimed any more, the preparations under way finish (an oracle is not
  // interruptible) and the threads are joined; cases not taken are freed.
  ~PrefetchQueue() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    changed_.notify_all();
    for (std::thread& t : threads_) t.join();
  }
  PrefetchQueue(const PrefetchQueue&) = delete;
  PrefetchQueue& operator=(const PrefetchQueue&) = delete;

  // The next case in list order once prepared (blocks until then); what its preparation threw is
  // thrown here. Throws std::out_of_range past the last case. One thread takes.
  Prepared next() {
    std::unique_lock lock(mutex_);
    if (next_take_ >= slots_.size()) {
      throw std::out_of_range("all " + std::to_string(slots_.size()) + " cases were taken");
    }
    const std::size_t i = next_take_;
    if (lookahead_ == 0) {
      ++next_take_;
      lock.unlock();
      return prepare_(i, 1);  // no threads ahead: the oracle on the caller's thread alone
    }
    changed_.wait(lock, [&] { return slots_[i].ready; });
    Slot slot = std::move(slots_[i]);
    ++next_take_;
    lock.unlock();
    changed_.notify_all();  // a place in the lookahead came free
    if (slot.error) std::rethrow_exception(slot.error);
    return std::move(*slot.prepared);
  }

  std::size_t size() const { return slots_.size(); }
  // How many cases next() has handed out (the taking thread is the only one that asks).
  std::size_t taken() const { return next_take_; }

 private:
  struct Slot {
    bool ready = false;
    std::optional<Prepared> prepared;
    std::exception_ptr error;
  };

  void prepare_ahead() {
    std::unique_lock lock(mutex_);
    for (;;) {
      changed_.wait(lock, [this] {
        return stopping_ || (next_claim_ < slots_.size() && next_claim_ < next_take_ + lookahead_);
      });
      if (stopping_) return;
      const std::size_t i = next_claim_++;
      lock.unlock();
      Slot slot;
      try {
        // The case and those prepared beside it share the host's threads by their work, so a heavy
        // case among light ones, or a short queue (the run's last cases), keeps every core busy.
        slot.prepared.emplace(prepare_(i, oracle_threads_in_queue(work_, i, lookahead_)));
      } catch (...) {  // nothing may escape a thread: next() throws it on the taker's
        slot.error = std::current_exception();
      }
      slot.ready = true;
      lock.lock();
      slots_[i] = std::move(slot);
      changed_.notify_all();
    }
  }

  std::vector<double> work_;
  std::size_t lookahead_;
  Prepare prepare_;
  std::vector<Slot> slots_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::size_t next_claim_ = 0;  // the first case no thread has claimed
  std::size_t next_take_ = 0;   // the case next() hands out next
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace mlacheck
