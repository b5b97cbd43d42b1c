#include "device/layout/cache_geometry.hpp"

namespace mlacheck::layout {

CacheGeometry cache_geometry(const KvGatherProblem& problem) {
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
  return g;
}

}  // namespace mlacheck::layout
