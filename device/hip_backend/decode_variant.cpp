#include "device/hip_backend/decode_variant.hpp"

#include <algorithm>

namespace mlacheck {

bool kernel_reads_pages_as_tokens(const MlaDecodeProblem& p, const FaultSet& faults) {
  const int page = p.block_size;
  const bool believed_paged =
      p.q_dtype == DType::bf16 && p.kv_dtype == DType::bf16 && (page == 16 || page == 32 || page == 64 || page == 128);
  return faults.has(Fault::kernel_ignores_page_size) && believed_paged;
}

std::vector<std::int32_t> paged_kv_indptr(const MlaDecodeProblem& p) {
  std::vector<std::int32_t> out(static_cast<std::size_t>(batch(p)) + 1, 0);
  for (int b = 0; b < batch(p); ++b) {
    out[static_cast<std::size_t>(b) + 1] = out[static_cast<std::size_t>(b)] + blocks_for(p, b);
  }
  return out;
}

std::optional<MlaDecodeProblem> folded_decode_problem(const MlaDecodeProblem& p, const FaultSet& faults) {
  if (!faults.has(Fault::tokens_folded_into_heads)) return std::nullopt;
  const int q_len = max_q_len(p);
  const bool uniform = std::all_of(p.q_lens.begin(), p.q_lens.end(), [&](int q) { return q == q_len; });
  if (!uniform || q_len < 2 || padded_heads(p) * q_len != kFoldedVariantHeads) return std::nullopt;
  MlaDecodeProblem folded = p;
  folded.total_heads = kFoldedVariantHeads * p.tp;  // per rank: the variant's heads, no padding
  folded.q_lens.assign(p.q_lens.size(), 1);
  return folded;
}

}  // namespace mlacheck
