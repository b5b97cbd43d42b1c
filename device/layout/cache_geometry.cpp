#include "device/layout/cache_geometry.hpp"

namespace mlacheck::layout {

namespace {

bool ignores_strides(const KvGatherProblem& p, const FaultSet& faults) {
  return p.layout == CacheLayout::nhd ? faults.has(Fault::gather_ignores_strides)
                                      : faults.has(Fault::shuffle_gather_ignores_strides);
}

}  // namespace

CacheGeometry cache_geometry(const KvGatherProblem& problem, const FaultSet& faults) {
  const KvGatherProblem p = with_defaults(problem);
  CacheGeometry g;
  g.layout = p.layout;
  g.kv_heads = p.num_kv_heads;
  g.head_size = p.head_size;
  g.block_size = p.block_size;
  g.num_blocks = p.num_blocks;
  g.shuffle_x = shuffle_x(p);
  g.block_stride = p.block_stride;
  g.head_stride = p.head_stride;
  g.token_stride = p.token_stride;
  g.kv_stride = p.kv_stride;
  if (ignores_strides(p, faults)) {
    const std::int64_t dense_head = static_cast<std::int64_t>(p.block_size) * p.head_size;
    g.block_stride = dense_head * p.num_kv_heads;
    g.head_stride = p.layout == CacheLayout::nhd ? p.head_size : dense_head;
    g.token_stride = p.layout == CacheLayout::nhd ? static_cast<std::int64_t>(p.num_kv_heads) * p.head_size : 0;
  }
  return g;
}

}  // namespace mlacheck::layout
