// kv_gather's facets hook (KvGatherOp in harness/gather_case.hpp).
#include <algorithm>

#include "harness/gather_case.hpp"

namespace mlacheck {

const std::vector<std::string>& KvGatherOp::coverage_buckets() {
  static const std::vector<std::string> buckets = {kBlockSizeOneBucket, kOddBlockSizeBucket, "NHD layout",
                                                   "SHUFFLE layout",    "interleaved K/V cache", "fp8 dequantisation"};
  return buckets;
}

CaseFacets KvGatherOp::facets(const Problem& p) {
  CaseFacets f;
  f.dtype = std::string(to_string(p.cache_dtype));
  f.kv_len = *std::max_element(p.kv_lens.begin(), p.kv_lens.end());
  f.heads = p.num_kv_heads;
  f.block_size = p.block_size;
  auto& b = f.buckets;
  add_block_size_buckets(p.block_size, b);
  b.push_back(p.layout == CacheLayout::nhd ? "NHD layout" : "SHUFFLE layout");
  if (p.interleaved) b.push_back("interleaved K/V cache");
  if (dequantises(p)) b.push_back("fp8 dequantisation");
  return f;
}

}  // namespace mlacheck
