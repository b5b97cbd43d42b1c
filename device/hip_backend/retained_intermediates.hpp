#pragma once
// Intermediates that live across the steps of a decode sequence, as the buffers of a captured
// CUDA graph do: the engine allocates them once, at capture, and every replay writes into the same
// memory. Two pieces:
//   SizingIntermediates    records, per intermediate, the most any preparation asked for (hands
//                          out null pointers, uploads nothing): a sequence's sessions prepared
//                          for each of its steps say how large each buffer must be;
//   RetainedIntermediates  a guarded buffer per intermediate in the run's GuardedBufferSet,
//                          reserved at the recorded sizes before the first step; a later request
//                          for the same name returns the same buffer, input() copies the new host
//                          data into it ("copied into the captured buffers"), and a request larger
//                          than the buffer throws std::length_error naming the intermediate, the
//                          step and both sizes. Buffers are poisoned once, when reserved, and then
//                          keep what the last step left: a launch that reads stale data reads
//                          what a replayed graph would.
#include <cstddef>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>

#include "core/dtype.hpp"
#include "device/hip_backend/decode_intermediates.hpp"
#include "device/staging/guarded_buffer_set.hpp"

namespace mlacheck {

enum class IntermediateKind : std::uint8_t { output, indices, input };

struct IntermediateNeed {
  IntermediateKind kind = IntermediateKind::output;
  DType dtype = DType::f32;  // outputs: their poison; indices and inputs are int32
  std::size_t bytes = 0;
};

class SizingIntermediates final : public DecodeIntermediates {
 public:
  void* output(std::string_view name, DType t, std::size_t count) override;
  std::int32_t* indices(std::string_view name, std::size_t count) override;
  const std::int32_t* input(std::string_view name, std::span<const std::int32_t> host) override;
  // Per name: the kind and dtype of its first request and the largest size of any request.
  const std::map<std::string, IntermediateNeed, std::less<>>& needs() const noexcept { return needs_; }

 private:
  void record(std::string_view name, IntermediateKind kind, DType t, std::size_t bytes);
  std::map<std::string, IntermediateNeed, std::less<>> needs_;
};

class RetainedIntermediates final : public DecodeIntermediates {
 public:
  explicit RetainedIntermediates(GuardedBufferSet& set) : set_(set) {}
  // Allocates every intermediate `sizes` recorded at its recorded size, poisoned (outputs with their
  // dtype's poison word, indices and inputs with 0x7FFFFFFF). Names already held are left alone.
  void reserve(const SizingIntermediates& sizes);
  // The step the next requests are for: named in the length_error of a request too large.
  void set_step(int step) noexcept { step_ = step; }

  // The buffer held under `name`, or one allocated now (and held from then on) at the size asked.
  void* output(std::string_view name, DType t, std::size_t count) override;
  std::int32_t* indices(std::string_view name, std::size_t count) override;
  // As above, `host` copied into the buffer's first bytes (the rest keeps what it held).
  const std::int32_t* input(std::string_view name, std::span<const std::int32_t> host) override;
  // The buffer held under `name`, or nullptr.
  GuardedBuffer* held(std::string_view name) const noexcept;

 private:
  GuardedBuffer& hold(std::string_view name, IntermediateKind kind, DType t, std::size_t bytes);

  GuardedBufferSet& set_;
  std::map<std::string, GuardedBuffer*, std::less<>> held_;
  int step_ = 0;
};

}  // namespace mlacheck
