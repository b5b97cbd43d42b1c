#pragma once
// The historic upstream mistakes (../shared/UPSTREAM.md S1-S7 and R1-R12) as switches in the production path.
// Each switch, when on, puts one mistake back at the place in our pipeline where upstream made
// it; all are off by default. Scenarios name the fault they reproduce; the kill matrix runs every
// scenario with every fault to prove the harness catches each one.
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace mlacheck {

enum class Fault : std::uint8_t {
  persistent_buffers_partial,      // S1: a persistent launch with one scheduling buffer missing
  metadata_unpadded_heads,         // S2: metadata planned for the per-rank head count, q padded to 16
  block_table_unexpanded,          // S3: the kernel (page size 1) reads the block table unexpanded
  qo_indptr_assumes_single_token,  // S3: qo_indptr built as arange(batch + 1)
  non_pow2_qlen_rows_collapse,     // S4: every query row of a non-power-of-two q_len gets one row's output
  tile_width_from_lk,              // S5: the value tile width taken from next_pow2(Lk) instead of Lv
  gather_ignores_strides,          // S6: NHD gather addresses computed as if the cache were contiguous
  shuffle_gather_ignores_strides,  // S7: the same mistake in the SHUFFLE layout path

  // Issue 12 item 3, precision faults: one fp32 intermediate of the decode kernels kept in a
  // narrower type, or one key left out of the softmax normaliser, at the place in the kernels
  // where that mistake would be made (device/kernels/precision_fault_points.hpp). They are no
  // upstream bug and have no scenario: `mlacheck scenarios --sensitivity` measures them.
  precision_partial_o_bf16,      // split partial O stored in bf16 before the merge
  precision_running_o_bf16,      // the online-softmax O accumulator kept in bf16 between KV tiles
  precision_running_o_fp16,      // ... in fp16
  precision_row_sum_bf16,        // the running row sum (softmax normaliser) kept in bf16
  precision_row_max_bf16,        // the running row max kept in bf16 between KV tiles
  precision_lse_bf16,            // each row group's LSE (partial or final) computed into bf16
  precision_softmax_scale_bf16,  // the softmax scale taken in bf16
  precision_row_sum_drops_key,   // the first key of each attended KV range left out of the row sum
  // R1, R2, R7, R12: padded batch rows and splits beyond the tokens (issue 13)
  empty_rows_unwritten,          // R1: a row that saw no kv token gets LSE -inf, its O is never written
  empty_split_unwritten,         // R2: stage 1 skips a (row, split) that sees no token; stage 2 merges it anyway
  split_kv_lse_unwritten,        // R7: split-KV stage 2 never writes the LSE it was asked for
  lengths_indexed_by_query_row,  // R12: stage 1 reads a request's kv range at its query row's index
  // R6, R8-R11 (issue 13): kernel variants, capability checks and scales.
  padded_fp8_single_request,      // R6: the padded-head fp8 regime reads every request's KV from request 0's start
  kernel_ignores_page_size,       // R8: the bf16 kernel takes the paged table and reads page ids as token slots
  tokens_folded_into_heads,       // R9: q_len x 16-head rows dispatched to the one-token variant of that many heads
  supports_accepts_mixed_dtypes,  // R10: the persistent dispatch runs mixed 16-bit q/cache on the single-plane kernel
  value_scale_k_times_v,          // R11: the fp8 latent's values dequantised with k_scale x v_scale
  // R4 (issue 13, caches past 4 GiB): the decode kernels' cache row byte offset formed in 32 bits
  cache_offset_32bit,
  // R3: the persistent plan sized for q_len 1 while MTP verify builds and runs it for num_spec + 1
  metadata_sized_for_single_token,
  // R5: from a decode sequence's second step on, the persistent launch reads the first step's plan
  plan_stale_at_replay,
};

inline constexpr Fault kAllFaults[] = {
    Fault::persistent_buffers_partial,
    Fault::metadata_unpadded_heads,
    Fault::block_table_unexpanded,
    Fault::qo_indptr_assumes_single_token,
    Fault::non_pow2_qlen_rows_collapse,
    Fault::tile_width_from_lk,
    Fault::gather_ignores_strides,
    Fault::shuffle_gather_ignores_strides,
    // R1, R2, R7, R12
    Fault::empty_rows_unwritten,
    Fault::empty_split_unwritten,
    Fault::split_kv_lse_unwritten,
    Fault::lengths_indexed_by_query_row,
    // R6, R8-R11
    Fault::padded_fp8_single_request,
    Fault::kernel_ignores_page_size,
    Fault::tokens_folded_into_heads,
    Fault::supports_accepts_mixed_dtypes,
    Fault::value_scale_k_times_v,
    // R4
    Fault::cache_offset_32bit,
    // R3
    Fault::metadata_sized_for_single_token,
    // R5
    Fault::plan_stale_at_replay,
};

// The precision faults (issue 12 item 3), apart from kAllFaults: the kill matrix needs one scenario
// per fault of kAllFaults, and these have none.
inline constexpr Fault kPrecisionFaults[] = {
    Fault::precision_partial_o_bf16,     Fault::precision_running_o_bf16,    Fault::precision_running_o_fp16,
    Fault::precision_row_sum_bf16,       Fault::precision_row_max_bf16,      Fault::precision_lse_bf16,
    Fault::precision_softmax_scale_bf16, Fault::precision_row_sum_drops_key,
};

// Names as in UPSTREAM.md: "persistent-buffers-partial", "metadata-unpadded-heads", ...
// Precision faults: "precision-partial-o-bf16", ... parse_fault takes the names of both lists.
std::string_view to_string(Fault f);
std::optional<Fault> parse_fault(std::string_view name);

// A set of switched-on faults; empty (the default) is the correct pipeline.
class FaultSet {
 public:
  FaultSet() = default;
  FaultSet(std::initializer_list<Fault> faults) {
    for (Fault f : faults) on(f);
  }
  FaultSet& on(Fault f) {
    bits_ |= bit(f);
    return *this;
  }
  bool has(Fault f) const { return (bits_ & bit(f)) != 0; }
  bool empty() const { return bits_ == 0; }
  bool operator==(const FaultSet&) const = default;

 private:
  static std::uint64_t bit(Fault f) { return std::uint64_t{1} << static_cast<unsigned>(f); }
  std::uint64_t bits_ = 0;  // room for 64 faults
};

}  // namespace mlacheck
