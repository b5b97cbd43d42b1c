#pragma once
// The historic upstream mistakes (../shared/UPSTREAM.md S1-S7) as switches in the production path.
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
};

inline constexpr Fault kAllFaults[] = {
    Fault::persistent_buffers_partial,     Fault::metadata_unpadded_heads, Fault::block_table_unexpanded,
    Fault::qo_indptr_assumes_single_token, Fault::non_pow2_qlen_rows_collapse, Fault::tile_width_from_lk,
    Fault::gather_ignores_strides,         Fault::shuffle_gather_ignores_strides,
};

// Names as in UPSTREAM.md: "persistent-buffers-partial", "metadata-unpadded-heads", ...
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
  static std::uint32_t bit(Fault f) { return 1u << static_cast<unsigned>(f); }
  std::uint32_t bits_ = 0;
};

}  // namespace mlacheck
