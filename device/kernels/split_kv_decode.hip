// The split-KV launcher: checks the shape, chooses the row groups, turns the runtime dtypes and the
// row tiles into template arguments, and enqueues stage 1 and stage 2.
#include "device/kernels/split_kv_decode.hpp"

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

#include "device/kernels/kernel_dispatch.hpp"
#include "device/kernels/split_kv_merge_kernel.hpp"
#include "device/kernels/split_kv_partial_kernel.hpp"
#include "device/kernels/wgmma_choice.hpp"
#include "device/platform/gpu_check.hpp"
#if defined(MLACHECK_GPU_CUDA)
#include <array>
#include <atomic>

#include "device/kernels/split_kv_wgmma_kernel.hpp"
#endif

namespace mlacheck::kernels {

namespace {

void require_pointer(const void* ptr, const char* name) {
  if (ptr == nullptr) throw std::invalid_argument(std::string("split-KV MLA decode: ") + name + " is null");
}

}  // namespace

#if defined(MLACHECK_GPU_CUDA)
namespace {
// 1 in the code built for sm_90a, 0 in every other target's: the device's copy says which code the
// runtime loaded for it.
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
__device__ int wgmma_code_loaded = 1;
#else
__device__ int wgmma_code_loaded = 0;
#endif
}  // namespace

bool wgmma_built_for_device() {
  static std::array<std::atomic<int>, 64> known{};  // per device: 0 not yet read, 1 no, 2 yes
  int device = 0;
  GPU_CHECK(hipGetDevice(&device));
  if (device < 0 || device >= static_cast<int>(known.size())) return false;
  int answer = known[static_cast<std::size_t>(device)].load();
  if (answer == 0) {
    int loaded = 0;
    GPU_CHECK(cudaMemcpyFromSymbol(&loaded, wgmma_code_loaded, sizeof(loaded)));
    answer = loaded == 1 ? 2 : 1;
    known[static_cast<std::size_t>(device)].store(answer);
  }
  return answer == 2;
}
#else
bool wgmma_built_for_device() { return false; }
#endif

namespace {

// Stage 1's attention parameters and row groups, as launch and split_kv_takes_wgmma see them.
struct Stage1Choice {
  AttentionParams attention;
  RowGroups groups;
  bool wgmma = false;
};

Stage1Choice stage1_choice(const SplitKvArgs& a) {
  const SplitKvShape& s = a.shape;
  Stage1Choice c;
  const LatentTiles tiles = latent_tiles(s.lv, s.rope, a.faults.has(Fault::tile_width_from_lk));
  c.attention = attention_params(a.q, s.q_dtype, a.kv_cache, s.kv_dtype, s.lv, s.rope, {s.scale, s.kv_scale, s.q_scale},
                                 tiles, a.faults);
  c.attention.precision = precision_fault_bits(a.faults);
  c.attention.cache_offset_32bit = a.faults.has(Fault::cache_offset_32bit);
  c.groups = row_groups(s.padded_heads, s.max_q_len, row_tile_policy(s.q_dtype, s.kv_dtype));
  c.wgmma = !a.portable_kernels &&
            wgmma_kernel_fits(wgmma_candidate(s.q_dtype, s.kv_dtype, c.attention, c.groups.row_tiles)) &&
            wgmma_built_for_device();
  return c;
}

// Stage 1 on the Hopper kernel of the launch's q and cache types and Lv (with_wgmma_instance).
void launch_wgmma_stage1(const SplitKvArgs& a, const PartialParams& partial, dim3 grid, hipStream_t stream) {
#if defined(MLACHECK_GPU_CUDA)
  with_wgmma_instance(a.shape.q_dtype, a.shape.kv_dtype, a.shape.lv, [&](auto q_tag, auto kv_tag, auto lv) {
    using Q = typename decltype(q_tag)::type;
    using KV = typename decltype(kv_tag)::type;
    constexpr int kLv = decltype(lv)::value;
    const auto kernel = split_kv_wgmma_kernel<Q, KV, kLv>;
    const std::size_t shared_bytes = WgmmaShared<kLv, sizeof(KV) == 1>::kLaunchBytes;
    allow_shared_bytes(reinterpret_cast<const void*>(kernel), shared_bytes);
    kernel<<<grid, WgmmaGeometry<kLv>::kThreads, shared_bytes, stream>>>(partial);
  });
#else
  (void)a;
  (void)partial;
  (void)grid;
  (void)stream;
  throw std::logic_error("split-KV MLA decode: the Hopper kernel exists in CUDA builds only");
#endif
}

}  // namespace

bool split_kv_takes_wgmma(const SplitKvArgs& args) { return stage1_choice(args).wgmma; }

RowTilePolicy split_kv_row_tile_policy(DType q_dtype, DType kv_dtype) { return row_tile_policy(q_dtype, kv_dtype); }

void launch_mla_decode_split_kv(const SplitKvArgs& a, StreamHandle stream_handle) {
  const SplitKvShape& s = a.shape;
  if (auto why = split_kv_unsupported(s)) throw std::invalid_argument("split-KV MLA decode: " + *why);
  require_pointer(a.q, "q");
  require_pointer(a.kv_cache, "kv_cache");
  require_pointer(a.kv_indices, "kv_indices");
  require_pointer(a.kv_indptr, "kv_indptr");
  require_pointer(a.qo_indptr, "qo_indptr");
  require_pointer(a.partial_o, "partial_o");
  require_pointer(a.partial_lse, "partial_lse");
  require_pointer(a.o, "o");
  require_pointer(a.lse, "lse");
  const auto stream = static_cast<hipStream_t>(stream_handle);

  const Stage1Choice choice = stage1_choice(a);
  PartialParams partial{};
  partial.attention = choice.attention;
  partial.groups = choice.groups;
  partial.q = a.q;
  partial.kv_indices = a.kv_indices;
  partial.kv_indptr = a.kv_indptr;
  partial.qo_indptr = a.qo_indptr;
  partial.partial_o = a.partial_o;
  partial.partial_lse = a.partial_lse;
  partial.padded_heads = s.padded_heads;
  partial.num_splits = s.num_splits;
  partial.token_groups = (s.max_q_len + partial.groups.tokens - 1) / partial.groups.tokens;
  partial.collapse_non_pow2_rows = a.faults.has(Fault::non_pow2_qlen_rows_collapse);
  partial.skip_empty_rows = a.faults.has(Fault::empty_split_unwritten);
  partial.kv_range_by_query_row = a.faults.has(Fault::lengths_indexed_by_query_row);
  partial.kv_of_first_request = a.kv_of_first_request;

  const std::int64_t blocks = row_group_blocks(s, partial.groups);
  if (blocks > std::numeric_limits<std::int32_t>::max()) {
    throw std::invalid_argument("split-KV MLA decode: " + std::to_string(blocks) +
                                " row groups exceed one grid dimension");
  }
  const dim3 partial_grid(static_cast<unsigned>(blocks), static_cast<unsigned>(s.num_splits));
  if (choice.wgmma) {
    launch_wgmma_stage1(a, partial, partial_grid, stream);
  } else {
    with_attention_kernel(s.q_dtype, s.kv_dtype, partial.groups.row_tiles,
                          [&](auto q_tag, auto kv_tag, auto row_tiles) {
                            using Q = typename decltype(q_tag)::type;
                            using KV = typename decltype(kv_tag)::type;
                            constexpr int kRowTiles = decltype(row_tiles)::value;
                            const auto kernel = split_kv_partial_kernel<Q, KV, kRowTiles>;
                            const std::size_t shared_bytes = attention_shared_bytes<Q, KV, kRowTiles>();
                            allow_shared_bytes(reinterpret_cast<const void*>(kernel), shared_bytes);
                            kernel<<<partial_grid, kAttentionThreads, shared_bytes, stream>>>(partial);
                          });
  }
  GPU_CHECK_LAUNCH("split_kv_partial_kernel", stream);

  MergeParams merge{};
  merge.partial_o = a.partial_o;
  merge.partial_lse = a.partial_lse;
  merge.o = a.o;
  merge.lse = a.lse;
  merge.lv = s.lv;
  merge.num_splits = s.num_splits;
  merge.empty_rows_o_unwritten = a.faults.has(Fault::empty_rows_unwritten);
  merge.lse_unwritten = a.faults.has(Fault::split_kv_lse_unwritten);
  const auto rows = static_cast<unsigned>(s.total_q_tokens * s.padded_heads);
  // Whole 16-byte granules: ptxas merges the merge loop's guarded tail reads of the weights into
  // one wider load from the granule's start, up to 3 floats past num_splits (memcheck saw it).
  const std::size_t weights_bytes = (std::size_t(s.num_splits) + 3) / 4 * 4 * sizeof(float);
  with_16bit_type("o_dtype", s.o_dtype, [&](auto o_tag) {
    using O = typename decltype(o_tag)::type;
    split_kv_merge_kernel<O><<<rows, kMergeThreads, weights_bytes, stream>>>(merge);
  });
  GPU_CHECK_LAUNCH("split_kv_merge_kernel", stream);
}

}  // namespace mlacheck::kernels
