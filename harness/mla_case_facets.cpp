// mla_decode's facets hook (MlaDecodeOp in harness/mla_case.hpp).
#include <algorithm>
#include <bit>
#include <functional>

#include "harness/mla_case.hpp"

namespace mlacheck {

const std::vector<std::string>& MlaDecodeOp::coverage_buckets() {
  static const std::vector<std::string> buckets = {
      "heads < 16",          "head padding: repeat-interleave", "head padding: tile", "q_len > 1",
      "q_len not a power of two", "mixed q_len in a batch",     kBlockSizeOneBucket,  kOddBlockSizeBucket,
      "TP > 1",              "fp8 dequantisation"};
  return buckets;
}

CaseFacets MlaDecodeOp::facets(const Problem& p) {
  CaseFacets f;
  f.dtype = std::string(to_string(p.kv_dtype));
  f.kv_len = max_kv_len(p);
  f.heads = heads(p);
  f.q_len = max_q_len(p);
  f.q_lens = p.q_lens;
  f.tp = p.tp;
  f.block_size = p.block_size;
  auto& b = f.buckets;
  if (f.heads < 16) b.push_back("heads < 16");
  if (head_pad_mode(p) == HeadPadMode::repeat_interleave) b.push_back("head padding: repeat-interleave");
  if (head_pad_mode(p) == HeadPadMode::tile) b.push_back("head padding: tile");
  if (f.q_len > 1) b.push_back("q_len > 1");
  if (std::any_of(p.q_lens.begin(), p.q_lens.end(), [](int q) { return !std::has_single_bit(static_cast<unsigned>(q)); })) {
    b.push_back("q_len not a power of two");
  }
  if (std::adjacent_find(p.q_lens.begin(), p.q_lens.end(), std::not_equal_to<>()) != p.q_lens.end()) {
    b.push_back("mixed q_len in a batch");
  }
  add_block_size_buckets(p.block_size, b);
  if (p.tp > 1) b.push_back("TP > 1");
  if (is_fp8(p.kv_dtype)) b.push_back("fp8 dequantisation");
  return f;
}

}  // namespace mlacheck
