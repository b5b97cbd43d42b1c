#pragma once
// The buffers of one backend run in one memory, kept together so that one canary check covers every
// one of them and every buffer a backend writes is poisoned before it runs. The staging layer puts
// the problem's tensors here; a backend adds its own intermediates to the same set.
#include <cstddef>
#include <deque>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/dtype.hpp"
#include "device/staging/guarded_buffer.hpp"
#include "device/staging/run_result.hpp"

namespace mlacheck {

class GuardedBufferSet {
 public:
  explicit GuardedBufferSet(StagingMemory memory) : memory_(memory) {}
  StagingMemory memory() const noexcept { return memory_; }

  // An input: a copy of `host`.
  GuardedBuffer& input(std::string name, std::span<const std::byte> host);
  template <class T>
  GuardedBuffer& input(std::string name, std::span<const T> host) {
    return input(std::move(name), std::as_bytes(host));
  }
  // An output (or intermediate) of `count` elements of `t`, poisoned with poison_word(t)
  // (core/poison_codes.hpp) so that an element no kernel wrote is caught.
  GuardedBuffer& output(std::string name, DType t, std::size_t count);
  // An int32 intermediate, poisoned with kPoisonIndex (0x7FFFFFFF): an index nobody wrote is far out of range.
  GuardedBuffer& indices(std::string name, std::size_t count);
  // Untyped scratch (a backend's workspace) of `bytes`, poisoned by workspace_poison's rule.
  GuardedBuffer& scratch(std::string name, std::size_t bytes);

  // Every buffer whose guards were overwritten, in the order the buffers were added.
  std::vector<BrokenCanary> broken_canaries() const;
  // The first buffer of that name, or nullptr.
  GuardedBuffer* find(std::string_view name) noexcept;
  std::size_t size() const noexcept { return buffers_.size(); }
  // The i-th buffer added (i < size()).
  const GuardedBuffer& at(std::size_t i) const { return *buffers_.at(i); }

 private:
  StagingMemory memory_;
  std::deque<std::unique_ptr<GuardedBuffer>> buffers_;
};

// Poisons `b` with poison_word(t) (core/poison_codes.hpp), as output() does: an element of `t` no kernel
// wrote then reads as unwritten.
void dtype_poison(GuardedBuffer& b, DType t);

// Poisons `b` with the widest of the 32-, 16- and 8-bit poisons its size allows (kPoisonIndex
// 0x7FFFFFFF, kPoisonBf16, kPoisonFp8E4M3Fn): untyped scratch read as f32, int32 or 16-bit floats
// before it is written then holds a NaN or an index far out of range. Nothing reads scratch back
// as unwritten, so it needs NaNs, not codes no kernel writes.
void workspace_poison(GuardedBuffer& b);

}  // namespace mlacheck
