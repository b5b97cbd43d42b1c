// The persistent launcher: checks the buffer set (S1), the shape and the plan, chooses the row
// groups, turns the runtime dtypes and the row tiles into template arguments, and enqueues the
// persistent kernel and the reduce.
#include "device/persistent/persistent_decode.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

#include "device/kernels/kernel_dispatch.hpp"
#include "device/kernels/wgmma_choice.hpp"
#include "device/persistent/persistent_decode_kernel.hpp"
#include "device/persistent/persistent_reduce_kernel.hpp"
#if defined(MLACHECK_GPU_CUDA)
#include "device/persistent/persistent_wgmma_kernel.hpp"
#endif
#include "device/platform/gpu_check.hpp"

namespace mlacheck::kernels {

namespace {

[[noreturn]] void refuse(const std::string& why) { throw std::invalid_argument("persistent MLA decode: " + why); }

void require_pointer(const void* ptr, const char* name) {
  if (ptr == nullptr) refuse(std::string(name) + " is null");
}

// The row groups of an item of at most min(tile_tokens, max_q_len) tokens.
RowGroups persistent_row_groups(const PersistentShape& s, int tile_tokens, int max_q_len) {
  return row_groups(s.padded_heads, std::min(tile_tokens, max_q_len), row_tile_policy(s.q_dtype, s.kv_dtype));
}

// The plan must be one metadata_info made: the grid sizes come from it.
void check_plan(const MetadataInfo& plan) {
  if (plan.num_cus < 1 || plan.max_q_len < 1 || plan.padded_heads < 1 ||
      plan.q_tile_tokens != q_tile_tokens(plan.padded_heads) || plan.max_reduce_tiles < 0 || plan.max_partials < 0) {
    refuse("the plan is not a result of metadata_info (num_cus=" + std::to_string(plan.num_cus) +
           ", padded_heads=" + std::to_string(plan.padded_heads) + ")");
  }
}

void launch_reduce(const PersistentArgs& a, hipStream_t stream) {
  const PersistentShape& s = a.shape;
  const MetadataInfo& plan = a.plan;
  const std::int64_t tile_rows = std::int64_t{std::min(plan.q_tile_tokens, plan.max_q_len)} * s.padded_heads;
  const std::int64_t blocks = plan.max_reduce_tiles * tile_rows;
  if (blocks == 0) return;  // one work list never splits a tile
  if (blocks > std::numeric_limits<std::int32_t>::max()) {
    refuse("reduce grid of " + std::to_string(blocks) + " blocks exceeds one grid dimension");
  }
  ReduceParams r{};
  r.header = reinterpret_cast<const MetadataHeader*>(a.metadata.work_meta_data);
  r.reduce_indptr = a.metadata.reduce_indptr;
  r.reduce_final_map = reinterpret_cast<const FinalTile*>(a.metadata.reduce_final_map);
  r.reduce_partial_map = a.metadata.reduce_partial_map;
  r.partial_o = a.partial_o;
  r.partial_lse = a.partial_lse;
  r.o = a.o;
  r.lse = a.lse;
  r.padded_heads = s.padded_heads;
  r.lv = s.lv;
  r.tile_rows = static_cast<int>(tile_rows);
  // A tile has at most max_partials pieces. Whole 16-byte granules for the weights, as the merge needs.
  r.weight_floats = static_cast<int>((plan.max_partials + 3) / 4 * 4);
  const std::size_t shared_bytes = 2 * std::size_t(r.weight_floats) * sizeof(float);
  with_16bit_type("o_dtype", s.o_dtype, [&](auto o_tag) {
    using O = typename decltype(o_tag)::type;
    persistent_reduce_kernel<O><<<static_cast<unsigned>(blocks), kMergeThreads, shared_bytes, stream>>>(r);
  });
  GPU_CHECK_LAUNCH("persistent_reduce_kernel", stream);
}

AttentionParams persistent_attention_params(const PersistentArgs& a) {
  const PersistentShape& s = a.shape;
  AttentionParams t = attention_params(a.q, s.q_dtype, a.kv_cache, s.kv_dtype, s.lv, s.rope,
                                       {s.scale, s.kv_scale, s.q_scale}, latent_tiles(s.lv, s.rope, false), a.faults);
  t.precision = precision_fault_bits(a.faults);
  t.cache_offset_32bit = a.faults.has(Fault::cache_offset_32bit);
  t.fp8_scores = t.fp8_scores && kPersistentFp8Products;  // what the kernel will do
  return t;
}

bool takes_wgmma(const PersistentArgs& a, const AttentionParams& t, const RowGroups& groups) {
  return !a.portable_kernels &&
         persistent_wgmma_fits(wgmma_candidate(a.shape.q_dtype, a.shape.kv_dtype, t, groups.row_tiles)) &&
         wgmma_built_for_device();
}

// The persistent kernel on the Hopper instance of the shape (CUDA builds only), one block per
// work list as the portable instance it replaces (both hold one block per SM).
void launch_wgmma(const PersistentShape& s, const PersistentParams& p, int blocks, hipStream_t stream) {
#if defined(MLACHECK_GPU_CUDA)
  // persistent_block_slots plans with the portable instance's occupancy.
  static_assert(blocks_per_cu(2, false) == 1 && blocks_per_cu(4, false) == 1 &&
                    2 * (WgmmaShared<kPersistentWgmmaMaxLv>::kLaunchBytes + kReservedSharedPerBlock) >
                        std::size_t{kPlatformSharedPerCu},
                "the Hopper and the portable instances of two and four row tiles hold one block per SM alike");
  // Lv 256 only (persistent_wgmma_fits), so no Lv 512 instance is built.
  if (s.lv != kPersistentWgmmaMaxLv) throw std::logic_error("persistent MLA decode: no Hopper kernel for this Lv");
  with_16bit_type("q_dtype", s.q_dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    constexpr int kLv = kPersistentWgmmaMaxLv;
    const auto kernel = persistent_wgmma_kernel<T, kLv>;
    const std::size_t shared_bytes = WgmmaShared<kLv>::kLaunchBytes;
    allow_shared_bytes(reinterpret_cast<const void*>(kernel), shared_bytes);
    kernel<<<static_cast<unsigned>(blocks), WgmmaGeometry<kLv>::kThreads, shared_bytes, stream>>>(p);
  });
#else
  (void)s;
  (void)p;
  (void)blocks;
  (void)stream;
  throw std::logic_error("persistent MLA decode: the Hopper kernel exists in CUDA builds only");
#endif
}

}  // namespace

bool persistent_takes_wgmma(const PersistentArgs& a) {
  return takes_wgmma(a, persistent_attention_params(a),
                     persistent_row_groups(a.shape, a.plan.q_tile_tokens, a.plan.max_q_len));
}

int persistent_block_slots(const PersistentShape& s, int max_q_len, int compute_units) {
  if (auto why = persistent_unsupported(s)) refuse(*why);
  int per_cu = 0;
  // The portable instance this shape's launches take. Where a launch takes the Hopper instance
  // instead (persistent_takes_wgmma, which needs the launch's pointers), its occupancy is the same:
  // both hold one block per SM (asserted below), so the plan holds either way.
  const RowGroups g = persistent_row_groups(s, q_tile_tokens(s.padded_heads), std::max(max_q_len, 1));
  with_attention_kernel(s.q_dtype, s.kv_dtype, g.row_tiles, [&](auto q_tag, auto kv_tag, auto tiles) {
    using Q = typename decltype(q_tag)::type;
    using KV = typename decltype(kv_tag)::type;
    constexpr int kRowTiles = decltype(tiles)::value;
    const auto kernel = reinterpret_cast<const void*>(&persistent_decode_kernel<Q, KV, kRowTiles>);
    const std::size_t shared_bytes = attention_shared_bytes<Q, KV, kRowTiles>();
    allow_shared_bytes(kernel, shared_bytes);
    GPU_CHECK(hipOccupancyMaxActiveBlocksPerMultiprocessor(&per_cu, kernel, kAttentionThreads, shared_bytes));
  });
  if (per_cu < 1) {
    throw std::runtime_error("persistent MLA decode: the runtime reports an occupancy of 0 blocks per CU");
  }
  return per_cu * compute_units;
}

void launch_mla_decode_persistent(const PersistentArgs& a, StreamHandle stream_handle) {
  if (!metadata_supplied(a.metadata)) {
    refuse("none of the six scheduling buffers was given; plan the batch (build_metadata) and pass all six");
  }
  const PersistentShape& s = a.shape;
  if (auto why = persistent_unsupported(s)) refuse(*why);
  check_plan(a.plan);
  require_pointer(a.q, "q");
  require_pointer(a.kv_cache, "kv_cache");
  require_pointer(a.kv_indices, "kv_indices");
  require_pointer(a.qo_indptr, "qo_indptr");
  require_pointer(a.partial_o, "partial_o");
  require_pointer(a.partial_lse, "partial_lse");
  require_pointer(a.o, "o");
  require_pointer(a.lse, "lse");
  const auto stream = static_cast<hipStream_t>(stream_handle);

  PersistentParams p{};
  p.attention = persistent_attention_params(a);
  p.groups = persistent_row_groups(s, a.plan.q_tile_tokens, a.plan.max_q_len);
  p.q = a.q;
  p.kv_indices = a.kv_indices;
  p.qo_indptr = a.qo_indptr;
  p.work_indptr = a.metadata.work_indptr;
  p.work_items = reinterpret_cast<const WorkItem*>(a.metadata.work_info_set);
  p.o = a.o;
  p.lse = a.lse;
  p.partial_o = a.partial_o;
  p.partial_lse = a.partial_lse;
  p.padded_heads = s.padded_heads;
  p.o_f16 = s.o_dtype == DType::f16;

  const auto launch = [&](auto q_tag, auto kv_tag, auto tiles) {
    using Q = typename decltype(q_tag)::type;
    using KV = typename decltype(kv_tag)::type;
    constexpr int kRowTiles = decltype(tiles)::value;
    const auto kernel = persistent_decode_kernel<Q, KV, kRowTiles>;
    const std::size_t shared_bytes = attention_shared_bytes<Q, KV, kRowTiles>();
    allow_shared_bytes(reinterpret_cast<const void*>(kernel), shared_bytes);
    kernel<<<static_cast<unsigned>(a.plan.num_cus), kAttentionThreads, shared_bytes, stream>>>(p);
  };
  if (takes_wgmma(a, p.attention, p.groups)) {
    launch_wgmma(s, p, a.plan.num_cus, stream);
  } else {
    with_attention_kernel(s.q_dtype, s.kv_dtype, p.groups.row_tiles, launch,
                          a.faults.has(Fault::supports_accepts_mixed_dtypes));
  }
  GPU_CHECK_LAUNCH("persistent_decode_kernel", stream);
  launch_reduce(a, stream);
}

}  // namespace mlacheck::kernels
