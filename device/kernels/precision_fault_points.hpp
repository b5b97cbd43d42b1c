#pragma once
// The precision faults (device/faults.hpp, kPrecisionFaults) at their places in the decode
// kernels. Each point is one fp32 intermediate of row_group_attention.hpp: the kernel passes the
// value through its point where it stores or computes it, and the point hands back the same bits
// unless its own fault is on. The switched-on faults travel as bits of a kernel parameter
// (AttentionParams::precision), the same for every thread of a launch, so a point's branch is
// uniform and the clean kernels pay one not-taken test where a point sits in a loop over KV tiles.
//
// Plain C++ with host + device functions: the kernels include it, and so do the CPU tests that
// hold every point to "identity when off, one rounding when on".
#include <cstdint>

#include "core/dtype_convert.hpp"
#include "device/faults.hpp"

namespace mlacheck::kernels {

// One bit per precision fault.
enum PrecisionFaultBit : std::uint32_t {
  kPartialOBf16 = 1u << 0,
  kRunningOBf16 = 1u << 1,
  kRunningOF16 = 1u << 2,
  kRowSumBf16 = 1u << 3,
  kRowMaxBf16 = 1u << 4,
  kLseBf16 = 1u << 5,
  kSoftmaxScaleBf16 = 1u << 6,
  kRowSumDropsKey = 1u << 7,
};
inline constexpr std::uint32_t kRunningOAny = kRunningOBf16 | kRunningOF16;

// The bit of a precision fault; 0 for every other fault.
inline std::uint32_t precision_fault_bit(Fault f) {
  switch (f) {
    case Fault::precision_partial_o_bf16:
      return kPartialOBf16;
    case Fault::precision_running_o_bf16:
      return kRunningOBf16;
    case Fault::precision_running_o_fp16:
      return kRunningOF16;
    case Fault::precision_row_sum_bf16:
      return kRowSumBf16;
    case Fault::precision_row_max_bf16:
      return kRowMaxBf16;
    case Fault::precision_lse_bf16:
      return kLseBf16;
    case Fault::precision_softmax_scale_bf16:
      return kSoftmaxScaleBf16;
    case Fault::precision_row_sum_drops_key:
      return kRowSumDropsKey;
    default:
      return 0;
  }
}

// The launch's bits: the precision faults of `faults`.
inline std::uint32_t precision_fault_bits(const FaultSet& faults) {
  std::uint32_t bits = 0;
  for (Fault f : kPrecisionFaults) {
    if (faults.has(f)) bits |= precision_fault_bit(f);
  }
  return bits;
}

// v rounded to T (round to nearest even, as from_float) and widened again.
template <class T>
MLACHECK_HD inline float through(float v) {
  return to_float(from_float<T>(v));
}

// A split partial's O value, as stored for the merge (precision-partial-o-bf16: a partial buffer
// in the output's 16-bit type instead of fp32).
MLACHECK_HD inline float stored_partial_o(float v, std::uint32_t bits) {
  return (bits & kPartialOBf16) != 0 ? through<bf16_t>(v) : v;
}

// An element of the online-softmax accumulator O after a KV tile's O * alpha + P V, as kept for
// the next tile (precision-running-o-*: an accumulator in the input's 16-bit type; the MMA itself
// still sums the tile in fp32).
MLACHECK_HD inline float stored_running_o(float v, std::uint32_t bits) {
  if ((bits & kRunningOBf16) != 0) return through<bf16_t>(v);
  if ((bits & kRunningOF16) != 0) return through<f16_t>(v);
  return v;
}

// The running row sum l = l * alpha + (this tile's sum), as kept for the next tile and the
// normalisation (precision-row-sum-bf16).
MLACHECK_HD inline float stored_row_sum(float v, std::uint32_t bits) {
  return (bits & kRowSumBf16) != 0 ? through<bf16_t>(v) : v;
}

// The running row max (log2 units), as kept for the next tile's alpha and the LSE
// (precision-row-max-bf16). The tile that found it still takes its exponents against the fp32
// value in its registers, so the stored and the used max disagree.
MLACHECK_HD inline float stored_row_max(float v, std::uint32_t bits) {
  return (bits & kRowMaxBf16) != 0 ? through<bf16_t>(v) : v;
}

// A row group's LSE (natural log) as written, for the merge or as the final LSE
// (precision-lse-bf16: m + log l evaluated into a bf16).
MLACHECK_HD inline float computed_lse(float v, std::uint32_t bits) {
  return (bits & kLseBf16) != 0 ? through<bf16_t>(v) : v;
}

// The softmax scale (times the cache's kv_scale, which a score against the cache codes carries)
// as the kernel takes it (precision-softmax-scale-bf16: the scale passed in the q dtype).
MLACHECK_HD inline float taken_softmax_scale(float v, std::uint32_t bits) {
  return (bits & kSoftmaxScaleBf16) != 0 ? through<bf16_t>(v) : v;
}

// Whether key `key` (its position in the KV range one attend() call walks: a split's share, a
// work item's piece, or the whole row) enters the row sum. precision-row-sum-drops-key leaves
// key 0 out, the off-by-one of a sum that starts after the first element; its P still enters P V.
MLACHECK_HD inline bool key_in_row_sum(std::int64_t key, std::uint32_t bits) {
  return (bits & kRowSumDropsKey) == 0 || key != 0;
}

}  // namespace mlacheck::kernels
