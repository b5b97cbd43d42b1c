#include "core/gather_problem.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "core/error.hpp"
#include "core/repro_format.hpp"
#include "core/validate_util.hpp"

namespace mlacheck {

namespace {

constexpr std::string_view kOp = "kv_gather";

[[noreturn]] void fail(std::string_view field, const std::string& value, std::string reason) {
  fail_field(kOp, field, value, std::move(reason));
}

void require(bool ok, std::string_view field, std::int64_t value, std::string reason) {
  require_field(ok, kOp, field, value, std::move(reason));
}

// Elements of one block of K (or of V): the "hidden" of the hybrid-interleave layout.
std::int64_t block_elements(const KvGatherProblem& p) {
  return static_cast<std::int64_t>(p.block_size) * p.num_kv_heads * p.head_size;
}

struct Dim {
  std::int64_t stride;
  std::int64_t extent;
  std::string_view field;
};

// The dimensions one address is made of, innermost first as the layout defines them.
std::vector<Dim> address_dims(const KvGatherProblem& p) {
  std::vector<Dim> dims;
  if (p.layout == CacheLayout::nhd) {
    dims.push_back({1, p.head_size, "head_size"});
    dims.push_back({p.token_stride, p.block_size, "token_stride"});
  } else {
    dims.push_back({1, static_cast<std::int64_t>(p.block_size) * p.head_size, "head_size"});
  }
  dims.push_back({p.head_stride, p.num_kv_heads, "head_stride"});
  dims.push_back({p.block_stride, p.num_blocks, "block_stride"});
  dims.push_back({p.kv_stride, 2, "kv_stride"});
  return dims;
}

}  // namespace

std::string_view to_string(CacheLayout l) { return l == CacheLayout::shuffle ? "shuffle" : "nhd"; }

int batch(const KvGatherProblem& p) { return static_cast<int>(p.kv_lens.size()); }
int total_tokens(const KvGatherProblem& p) {
  int n = 0;
  for (int kv : p.kv_lens) n += kv;
  return n;
}
int blocks_for(const KvGatherProblem& p, int request) { return blocks_of_request(p, request); }
int blocks_needed(const KvGatherProblem& p) { return total_blocks(p); }
int max_blocks_per_request(const KvGatherProblem& p) { return largest_blocks(p); }
std::vector<int> cu_seq_lens(const KvGatherProblem& p) { return prefix_sums(p.kv_lens); }
int shuffle_x(const KvGatherProblem& p) { return static_cast<int>(16 / storage_bytes(p.cache_dtype)); }
bool dequantises(const KvGatherProblem& p) { return is_fp8(p.cache_dtype) && p.out_dtype != p.cache_dtype; }

std::int64_t cache_offset(const KvGatherProblem& p, bool is_v, int block, int head, int token, int c) {
  std::int64_t off = (is_v ? p.kv_stride : 0) + block * p.block_stride + head * p.head_stride;
  if (p.layout == CacheLayout::nhd) return off + token * p.token_stride + c;
  const std::int64_t x = shuffle_x(p);
  if (!is_v) return off + token * x + (c / x) * p.block_size * x + c % x;
  return off + (token / x) * p.head_size * x + token % x + c * x;
}

std::int64_t cache_elements(const KvGatherProblem& p) {
  std::int64_t last = 0;
  for (const Dim& d : address_dims(p)) last += (d.extent - 1) * d.stride;
  return last + 1;
}

KvGatherProblem with_defaults(KvGatherProblem p) {
  if (p.num_blocks == 0 && p.block_size > 0 && !p.kv_lens.empty()) p.num_blocks = blocks_needed(p);
  const std::int64_t hidden = block_elements(p);
  if (p.layout == CacheLayout::nhd) {
    if (p.head_stride == 0) p.head_stride = p.head_size;
    if (p.token_stride == 0) p.token_stride = static_cast<std::int64_t>(p.num_kv_heads) * p.head_size;
  } else if (p.head_stride == 0) {
    p.head_stride = static_cast<std::int64_t>(p.block_size) * p.head_size;
  }
  if (p.block_stride == 0) p.block_stride = p.interleaved ? 2 * hidden : hidden;
  if (p.kv_stride == 0) p.kv_stride = p.interleaved ? hidden : hidden * p.num_blocks;
  return p;
}

void validate(const KvGatherProblem& p) {
  if (!valid_name(p.name)) fail("name", "'" + p.name + "'", "must be 1-128 characters of [A-Za-z0-9_.-]");
  require(p.num_kv_heads >= 1 && p.num_kv_heads <= 1024, "kv_heads", p.num_kv_heads, "must be in [1, 1024]");
  require(p.head_size >= 1 && p.head_size <= 4096, "head_size", p.head_size, "must be in [1, 4096]");
  require(p.block_size >= 1 && p.block_size <= 4096, "bs", p.block_size, "must be in [1, 4096]");
  if (p.kv_lens.empty()) fail("kv", "''", "needs at least one request");
  require(batch(p) <= 65536, "kv", batch(p), "more than 65536 requests");
  std::int64_t total = 0;
  for (int r = 0; r < batch(p); ++r) {
    require(p.kv_lens[r] >= 1 && p.kv_lens[r] <= (1 << 24), "kv", p.kv_lens[r],
            "must be in [1, 2^24] (request " + std::to_string(r) + ")");
    total += p.kv_lens[r];
  }
  require(total <= std::numeric_limits<std::int32_t>::max(), "kv", total, "total tokens must fit a 32-bit index");
  require(p.num_blocks >= blocks_needed(p), "blocks", p.num_blocks,
          "must be >= the " + std::to_string(blocks_needed(p)) + " blocks the requests need");

  if (p.cache_dtype == DType::f32) fail("cache_dtype", "f32", "must be bf16, f16, fp8_e4m3fn or fp8_e4m3fnuz");
  if (is_fp8(p.cache_dtype)) {
    const bool ok = p.out_dtype == p.cache_dtype || p.out_dtype == DType::bf16 || p.out_dtype == DType::f16;
    if (!ok) fail("out_dtype", std::string(to_string(p.out_dtype)), "an fp8 cache gathers to itself, bf16 or f16");
  } else if (p.out_dtype != p.cache_dtype) {
    fail("out_dtype", std::string(to_string(p.out_dtype)),
         "must equal cache_dtype=" + std::string(to_string(p.cache_dtype)) + " (only fp8 caches dequantise)");
  }
  for (auto [field, s] : {std::pair{"k_scale", p.k_scale}, std::pair{"v_scale", p.v_scale}}) {
    if (!(std::isfinite(s) && s > 0.0f)) fail(field, repro::format_float(s), "must be finite and > 0");
    if (!dequantises(p) && s != 1.0f) fail(field, repro::format_float(s), "a scale needs a dequantising fp8 gather");
  }
  if (p.layout == CacheLayout::shuffle) {
    const int x = shuffle_x(p);
    require(p.head_size % x == 0, "head_size", p.head_size,
            "SHUFFLE needs a multiple of x=" + std::to_string(x) + " (16 bytes of elements)");
    require(p.block_size % x == 0, "bs", p.block_size,
            "SHUFFLE needs a multiple of x=" + std::to_string(x) + " (16 bytes of elements)");
    require(p.token_stride == 0, "token_stride", p.token_stride, "must be 0 for SHUFFLE (tokens live inside a head tile)");
  }

  auto dims = address_dims(p);
  for (const Dim& d : dims) {
    require(d.stride > 0, d.field, d.stride, "strides must be positive");
  }
  // No two elements may share an address: sorted by stride, each stride must clear the span of
  // every smaller dimension (a sufficient condition that covers padded and interleaved layouts).
  // A dimension of extent 1 adds no addresses, so its stride cannot collide (one kv head's
  // head_stride may equal token_stride).
  std::erase_if(dims, [](const Dim& d) { return d.extent == 1; });
  std::sort(dims.begin(), dims.end(), [](const Dim& a, const Dim& b) { return a.stride < b.stride; });
  std::int64_t span = 0;
  for (const Dim& d : dims) {
    if (d.stride <= span) {
      fail(d.field, std::to_string(d.stride),
           "overlaps the " + std::to_string(span) + " elements spanned by the smaller strides");
    }
    span += (d.extent - 1) * d.stride;
    require(span < (std::int64_t{1} << 40), d.field, d.stride, "cache larger than 2^40 elements");
  }
  const bool interleave_strides = p.kv_stride < p.block_stride;
  if (p.interleaved != interleave_strides) {
    fail("interleaved", p.interleaved ? "1" : "0",
         "disagrees with the strides (kv_stride=" + std::to_string(p.kv_stride) +
             (interleave_strides ? " < " : " >= ") + "block_stride=" + std::to_string(p.block_stride) + ")");
  }
}

std::string to_repro(const KvGatherProblem& p) {
  repro::Writer w(kOp);
  w.field("name", p.name)
      .field("layout", to_string(p.layout))
      .field("interleaved", std::int64_t{p.interleaved ? 1 : 0})
      .field("kv_heads", std::int64_t{p.num_kv_heads})
      .field("head_size", std::int64_t{p.head_size})
      .field("bs", std::int64_t{p.block_size})
      .field("blocks", std::int64_t{p.num_blocks})
      .field("kv", p.kv_lens)
      .field("cache_dtype", to_string(p.cache_dtype))
      .field("out_dtype", to_string(p.out_dtype))
      .field("k_scale", p.k_scale)
      .field("v_scale", p.v_scale)
      .field("block_stride", p.block_stride)
      .field("head_stride", p.head_stride)
      .field("token_stride", p.token_stride)
      .field("kv_stride", p.kv_stride)
      .field("fill", to_string(p.fill))
      .field("seed", std::to_string(p.seed));
  return w.str();
}

KvGatherProblem parse_kv_gather(std::string_view text) {
  repro::Reader r(text, kOp);
  KvGatherProblem p;
  constexpr std::int64_t kIntMax = std::numeric_limits<int>::max();
  constexpr std::int64_t kStrideMax = std::int64_t{1} << 40;
  if (auto v = r.take("name")) p.name = *v;
  if (auto v = r.take("layout")) {
    if (*v == "nhd") p.layout = CacheLayout::nhd;
    else if (*v == "shuffle") p.layout = CacheLayout::shuffle;
    else throw ReproParseError("key 'layout': '" + *v + "' is not one of nhd, shuffle");
  }
  p.interleaved = take_bool(r, "interleaved", p.interleaved);
  if (auto v = r.take_int("kv_heads", 1, kIntMax)) p.num_kv_heads = static_cast<int>(*v);
  if (auto v = r.take_int("head_size", 1, kIntMax)) p.head_size = static_cast<int>(*v);
  if (auto v = r.take_int("bs", 1, kIntMax)) p.block_size = static_cast<int>(*v);
  if (auto v = r.take_int("blocks", 0, kIntMax)) p.num_blocks = static_cast<int>(*v);
  if (auto v = r.take_int_list("kv", 0, std::numeric_limits<int>::max())) p.kv_lens = *v;
  p.cache_dtype = take_dtype(r, "cache_dtype", p.cache_dtype);
  p.out_dtype = take_dtype(r, "out_dtype", p.cache_dtype);
  if (auto v = r.take_float("k_scale")) p.k_scale = *v;
  if (auto v = r.take_float("v_scale")) p.v_scale = *v;
  // Negative strides parse so that validate() can name them.
  if (auto v = r.take_int("block_stride", -kStrideMax, kStrideMax)) p.block_stride = *v;
  if (auto v = r.take_int("head_stride", -kStrideMax, kStrideMax)) p.head_stride = *v;
  if (auto v = r.take_int("token_stride", -kStrideMax, kStrideMax)) p.token_stride = *v;
  if (auto v = r.take_int("kv_stride", -kStrideMax, kStrideMax)) p.kv_stride = *v;
  p.fill = take_fill_mode(r, p.fill);
  if (auto v = r.take_u64("seed")) p.seed = *v;
  r.finish();
  p = with_defaults(p);
  validate(p);
  return p;
}

}  // namespace mlacheck
