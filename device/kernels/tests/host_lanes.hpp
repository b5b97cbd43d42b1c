#pragma once
// A thread block on CPU threads, one per GPU thread, as the `Lanes` of
// device/platform/lane_reductions.hpp: warps of 32 or 64 lanes whose shuffles meet at a per-warp
// barrier (the hardware's lockstep) and a block barrier for __syncthreads. The reductions the
// kernels run on the GPU run here unchanged, at either warp width.
#include <barrier>
#include <cstring>
#include <deque>
#include <functional>
#include <type_traits>
#include <vector>

namespace mlacheck::test {

class HostBlock {
 public:
  HostBlock(int width, int warps);
  HostBlock(const HostBlock&) = delete;
  HostBlock& operator=(const HostBlock&) = delete;

  class Lanes {
   public:
    int width() const { return block_->width_; }
    int lane() const { return rank_ % block_->width_; }
    int warp() const { return rank_ / block_->width_; }
    int warps() const { return block_->warps_; }
    int rank() const { return rank_; }
    // Every lane of the warp calls this together, as on the GPU.
    template <class T>
    T shuffle_xor(T value, int lane_mask) const {
      static_assert(std::is_trivially_copyable_v<T> && sizeof(T) <= sizeof(Slot));
      Slot mine{};
      std::memcpy(&mine, &value, sizeof(T));
      const Slot theirs = block_->exchange(rank_, lane_mask, mine);
      T result;
      std::memcpy(&result, &theirs, sizeof(T));
      return result;
    }
    void sync() const { block_->block_barrier_.arrive_and_wait(); }

   private:
    friend class HostBlock;
    Lanes(HostBlock* block, int rank) : block_(block), rank_(rank) {}
    HostBlock* block_;
    int rank_;
  };

  // Runs body(lanes) on every thread of the block and returns when all have finished.
  void run(const std::function<void(const Lanes&)>& body);

  // Shuffles whose partner lane lay outside the warp (the reduction asked for a lane that does
  // not exist); such a shuffle returns the caller's own value.
  int partner_outside_warp() const { return partner_outside_warp_; }

 private:
  using Slot = unsigned long long;
  Slot exchange(int rank, int lane_mask, Slot value);

  int width_;
  int warps_;
  std::vector<Slot> slots_;
  std::deque<std::barrier<>> warp_barriers_;
  std::barrier<> block_barrier_;
  std::vector<int> outside_per_thread_;
  int partner_outside_warp_ = 0;
};

}  // namespace mlacheck::test
