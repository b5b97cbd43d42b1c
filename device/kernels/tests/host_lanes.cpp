#include "device/kernels/tests/host_lanes.hpp"

#include <cstddef>
#include <numeric>
#include <thread>

namespace mlacheck::test {

HostBlock::HostBlock(int width, int warps)
    : width_(width),
      warps_(warps),
      slots_(static_cast<std::size_t>(width * warps)),
      block_barrier_(width * warps),
      outside_per_thread_(static_cast<std::size_t>(width * warps), 0) {
  for (int w = 0; w < warps; ++w) warp_barriers_.emplace_back(width);
}

// Publish, wait for the whole warp, read the partner's slot, wait again so nobody overwrites a
// slot before every lane has read it: the lockstep exchange of one hardware shuffle.
HostBlock::Slot HostBlock::exchange(int rank, int lane_mask, Slot value) {
  const int warp = rank / width_;
  const int partner = (rank % width_) ^ lane_mask;
  std::barrier<>& warp_barrier = warp_barriers_[static_cast<std::size_t>(warp)];
  slots_[static_cast<std::size_t>(rank)] = value;
  warp_barrier.arrive_and_wait();
  Slot result = value;
  if (partner < width_) {
    result = slots_[static_cast<std::size_t>(warp * width_ + partner)];
  } else {
    ++outside_per_thread_[static_cast<std::size_t>(rank)];
  }
  warp_barrier.arrive_and_wait();
  return result;
}

void HostBlock::run(const std::function<void(const Lanes&)>& body) {
  std::vector<std::thread> threads;
  threads.reserve(static_cast<std::size_t>(width_ * warps_));
  for (int rank = 0; rank < width_ * warps_; ++rank) {
    threads.emplace_back([this, rank, &body] { body(Lanes(this, rank)); });
  }
  for (std::thread& t : threads) t.join();
  partner_outside_warp_ = std::accumulate(outside_per_thread_.begin(), outside_per_thread_.end(), 0);
}

}  // namespace mlacheck::test
