#pragma once
// The kv_gather kernels (kv_gather.hpp). Both walk requests on grid y and one request's units on
// grid x, with consecutive threads on consecutive output runs so that writes are contiguous.
// Every cache address comes from CacheGeometry::offset().
#include <cstdint>

#include "core/dtype_convert.hpp"
#include "device/layout/cache_geometry.hpp"
#include "device/layout/launch_shape.hpp"
#include "device/layout/vector_io.hpp"
#include "device/platform/gpu_runtime.hpp"

namespace mlacheck::layout {

struct GatherArgs {
  CacheGeometry geometry;
  const std::int32_t* block_table;
  int block_table_stride;
  const std::int32_t* cu_seq_lens;
  int batch;
  int total_tokens;  // rows of the outputs: writes never go past them, whatever cu_seq_lens says
};

// A bitwise copy: the storage bits of the cache are the output.
struct CopyBits {
  template <class T>
  __device__ T operator()(T v) const {
    return v;
  }
};

// An fp8 code's value times the scale in float, rounded once to Out by core's from_float: the
// host twin does exactly this, so a dequantising gather is bitwise checkable too.
template <class Out>
struct Dequantise {
  float scale;
  template <class In>
  __device__ Out operator()(In v) const {
    return from_float<Out>(to_float(v) * scale);
  }
};

__device__ inline int gather_block(const GatherArgs& a, int request, int pos) {
  const CacheGeometry& g = a.geometry;
  return table_block(a.block_table + static_cast<std::int64_t>(request) * a.block_table_stride, a.block_table_stride,
                     g.block_size, g.num_blocks, pos);
}

__device__ inline std::int64_t output_offset(const CacheGeometry& g, int row, int head, int c) {
  return (static_cast<std::int64_t>(row) * g.kv_heads + head) * g.head_size + c;
}

// One thread per (token, head, run of N channels): N channels contiguous in the cache (NHD, or
// inside one SHUFFLE K x-group) and in the output.
template <class In, class Out, int N, class Convert>
__global__ void __launch_bounds__(kLayoutThreads)
    gather_runs_kernel(GatherArgs a, bool is_v, const In* cache, Out* out, Convert convert) {
  const CacheGeometry& g = a.geometry;
  const int runs_per_head = g.head_size / N;
  const std::int64_t units_per_token = static_cast<std::int64_t>(g.kv_heads) * runs_per_head;
  for (int b = static_cast<int>(blockIdx.y); b < a.batch; b += static_cast<int>(gridDim.y)) {
    const int first = a.cu_seq_lens[b];
    const std::int64_t units = (a.cu_seq_lens[b + 1] - first) * units_per_token;
    for (std::int64_t u = first_unit(); u < units; u += unit_stride()) {
      const int pos = static_cast<int>(u / units_per_token);
      const int run = static_cast<int>(u % units_per_token);
      const int head = run / runs_per_head;
      const int c = run % runs_per_head * N;
      const int row = first + pos;
      const int block = gather_block(a, b, pos);
      if (row < 0 || row >= a.total_tokens || block < 0) continue;
      In in[N];
      load_run(cache + g.offset(is_v, block, head, pos % g.block_size, c), in);
      Out values[N];
#pragma unroll
      for (int k = 0; k < N; ++k) values[k] = convert(in[k]);
      store_run(out + output_offset(g, row, head, c), values);
    }
  }
}

// SHUFFLE V keeps x consecutive tokens of one channel in 16 bytes. One thread per (group of x
// tokens, head, group of x channels): x vector loads give an x-by-x tile, which it writes as x
// output rows of x channels; tokens past the request's end are loaded (they lie inside its last
// block, since block_size is a multiple of x) but not written.
template <class In, class Out, class Convert>
__global__ void __launch_bounds__(kLayoutThreads)
    gather_shuffle_v_tiles_kernel(GatherArgs a, const In* cache, Out* out, Convert convert) {
  constexpr int kX = 16 / static_cast<int>(sizeof(In));
  const CacheGeometry& g = a.geometry;
  const int tiles_per_head = g.head_size / kX;
  const std::int64_t tiles_per_group = static_cast<std::int64_t>(g.kv_heads) * tiles_per_head;
  for (int b = static_cast<int>(blockIdx.y); b < a.batch; b += static_cast<int>(gridDim.y)) {
    const int first = a.cu_seq_lens[b];
    const int kv_len = a.cu_seq_lens[b + 1] - first;
    const std::int64_t units = (kv_len + kX - 1) / kX * tiles_per_group;
    for (std::int64_t u = first_unit(); u < units; u += unit_stride()) {
      const int pos0 = static_cast<int>(u / tiles_per_group) * kX;
      const int tile = static_cast<int>(u % tiles_per_group);
      const int head = tile / tiles_per_head;
      const int c = tile % tiles_per_head * kX;
      const int block = gather_block(a, b, pos0);
      if (block < 0) continue;
      In values[kX][kX];  // [channel c + k][token pos0 + t]
#pragma unroll
      for (int k = 0; k < kX; ++k) load_run(cache + g.offset(true, block, head, pos0 % g.block_size, c + k), values[k]);
#pragma unroll
      for (int t = 0; t < kX; ++t) {
        const int row = first + pos0 + t;
        if (pos0 + t >= kv_len || row < 0 || row >= a.total_tokens) continue;
        Out out_row[kX];
#pragma unroll
        for (int k = 0; k < kX; ++k) out_row[k] = convert(values[k][t]);
        store_run(out + output_offset(g, row, head, c), out_row);
      }
    }
  }
}

}  // namespace mlacheck::layout
