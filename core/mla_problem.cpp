#include "core/mla_problem.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "core/error.hpp"
#include "core/mla_sequence.hpp"
#include "core/repro_format.hpp"
#include "core/validate_util.hpp"

namespace mlacheck {

namespace {

constexpr std::string_view kOp = "mla_decode";
constexpr int kMinKernelHeads = 16;  // the kernels' smallest head tile (upstream's minimum too)

[[noreturn]] void fail(std::string_view field, const std::string& value, std::string reason) {
  fail_field(kOp, field, value, std::move(reason));
}

void require(bool ok, std::string_view field, std::int64_t value, std::string reason) {
  require_field(ok, kOp, field, value, std::move(reason));
}

}  // namespace

std::string_view to_string(DecodePath p) {
  switch (p) {
    case DecodePath::automatic: return "auto";
    case DecodePath::persistent: return "persistent";
    case DecodePath::split_kv: return "split_kv";
  }
  return "?";
}

std::string_view to_string(FillMode f) { return f == FillMode::exact ? "exact" : "random"; }

std::string_view to_string(FillProfile f) {
  switch (f) {
    case FillProfile::uniform:
      return "uniform";
    case FillProfile::sink:
      return "sink";
    case FillProfile::extreme:
      return "extreme";
  }
  return "?";
}

std::string_view to_string(HeadPadMode m) {
  switch (m) {
    case HeadPadMode::none: return "none";
    case HeadPadMode::repeat_interleave: return "repeat_interleave";
    case HeadPadMode::tile: return "tile";
  }
  return "?";
}

int heads(const MlaDecodeProblem& p) { return p.total_heads / p.tp; }

HeadPadMode head_pad_mode(const MlaDecodeProblem& p) {
  const int h = heads(p);
  if (h % kMinKernelHeads == 0) return HeadPadMode::none;
  if (h < kMinKernelHeads && kMinKernelHeads % h == 0) return HeadPadMode::repeat_interleave;
  return HeadPadMode::tile;
}

int padded_heads(const MlaDecodeProblem& p) {
  const int h = heads(p);
  return (h + kMinKernelHeads - 1) / kMinKernelHeads * kMinKernelHeads;
}

int padded_head_source(const MlaDecodeProblem& p, int padded_head) {
  switch (head_pad_mode(p)) {
    case HeadPadMode::none: return padded_head;
    case HeadPadMode::repeat_interleave: return padded_head / (kMinKernelHeads / heads(p));
    case HeadPadMode::tile: return padded_head % heads(p);
  }
  return padded_head;
}

int unpadded_head_location(const MlaDecodeProblem& p, int head) {
  return head_pad_mode(p) == HeadPadMode::repeat_interleave ? head * (kMinKernelHeads / heads(p)) : head;
}

int lk(const MlaDecodeProblem& p) { return p.kv_lora_rank + p.rope_dim; }
int batch(const MlaDecodeProblem& p) { return static_cast<int>(p.kv_lens.size()); }
int total_q_tokens(const MlaDecodeProblem& p) { return std::accumulate(p.q_lens.begin(), p.q_lens.end(), 0); }
int max_q_len(const MlaDecodeProblem& p) { return *std::max_element(p.q_lens.begin(), p.q_lens.end()); }
int max_kv_len(const MlaDecodeProblem& p) { return *std::max_element(p.kv_lens.begin(), p.kv_lens.end()); }
int blocks_for(const MlaDecodeProblem& p, int request) { return blocks_of_request(p, request); }
int visible_kv(const MlaDecodeProblem& p, int request, int row) {
  return std::max(0,
                  p.kv_lens[static_cast<std::size_t>(request)] - p.q_lens[static_cast<std::size_t>(request)] + row + 1);
}
int blocks_needed(const MlaDecodeProblem& p) { return is_sequence(p) ? sequence_peak_blocks(p) : total_blocks(p); }
int max_blocks_per_request(const MlaDecodeProblem& p) {
  return is_sequence(p) ? sequence_max_blocks_per_request(p) : largest_blocks(p);
}

std::int64_t cache_row_bytes(const MlaDecodeProblem& p) {
  return std::int64_t{lk(p)} * static_cast<std::int64_t>(storage_bytes(p.kv_dtype));
}
std::int64_t cache_pool_bytes(const MlaDecodeProblem& p) {
  return std::int64_t{p.num_blocks} * p.block_size * cache_row_bytes(p);
}
int host_cache_blocks(const MlaDecodeProblem& p) { return p.num_blocks - p.first_block; }

namespace {
constexpr std::int64_t k4GiB = std::int64_t{1} << 32;
}  // namespace

bool cache_rows_past_4gib(const MlaDecodeProblem& p) {
  return std::int64_t{p.first_block} * p.block_size * cache_row_bytes(p) >= k4GiB;
}

int first_block_past_4gib(const MlaDecodeProblem& p) {
  const std::int64_t block_bytes = std::int64_t{p.block_size} * cache_row_bytes(p);
  return static_cast<int>((k4GiB + block_bytes - 1) / block_bytes);
}

std::vector<int> qo_indptr(const MlaDecodeProblem& p) { return prefix_sums(p.q_lens); }
std::vector<int> kv_indptr(const MlaDecodeProblem& p) { return prefix_sums(p.kv_lens); }

MlaDecodeProblem with_defaults(MlaDecodeProblem p) {
  if (p.scale == 0.0 && lk(p) > 0) p.scale = 1.0 / std::sqrt(static_cast<double>(lk(p)));
  // A sequence's lists in their canonical form: empty when every entry is its default.
  if (is_sequence(p) && std::all_of(p.joins.begin(), p.joins.end(), [](int j) { return j == 0; })) p.joins.clear();
  if (is_sequence(p) && std::all_of(p.leaves.begin(), p.leaves.end(), [&](int l) { return l == p.steps; })) {
    p.leaves.clear();
  }
  if (p.num_blocks == 0 && p.block_size > 0 && !p.kv_lens.empty()) {
    // In 64 bits: a first_block near INT_MAX (a repro string's) must reach validate(), which names
    // it, rather than wrap; the saturated count is refused there as too few blocks.
    const std::int64_t blocks = std::int64_t{p.first_block} + blocks_needed(p);
    p.num_blocks = static_cast<int>(std::min<std::int64_t>(blocks, std::numeric_limits<int>::max()));
  }
  return p;
}

void validate(const MlaDecodeProblem& p) {
  if (!valid_name(p.name)) fail("name", "'" + p.name + "'", "must be 1-128 characters of [A-Za-z0-9_.-]");
  require(p.total_heads >= 1 && p.total_heads <= 4096, "heads", p.total_heads, "must be in [1, 4096]");
  require(p.tp >= 1, "tp", p.tp, "must be >= 1");
  require(p.total_heads % p.tp == 0, "tp", p.tp,
          "must divide heads=" + std::to_string(p.total_heads) + " (each rank owns heads/tp heads)");
  require(p.tp_rank >= 0 && p.tp_rank < p.tp, "rank", p.tp_rank, "must be in [0, tp=" + std::to_string(p.tp) + ")");
  require(p.kv_lora_rank >= 16 && p.kv_lora_rank <= 4096, "lv", p.kv_lora_rank, "must be in [16, 4096]");
  require(p.kv_lora_rank % 16 == 0, "lv", p.kv_lora_rank, "must be a multiple of 16");
  require(p.rope_dim >= 0 && p.rope_dim <= 1024, "rope", p.rope_dim, "must be in [0, 1024]");
  if (!(std::isfinite(p.scale) && p.scale > 0.0)) fail("scale", repro::format_double(p.scale), "must be finite and > 0");

  if (p.kv_lens.empty()) fail("kv", "''", "needs at least one request");
  if (p.q_lens.size() != p.kv_lens.size()) {
    fail("q", repro::format_int_list(p.q_lens),
         "has " + std::to_string(p.q_lens.size()) + " requests but kv has " + std::to_string(p.kv_lens.size()));
  }
  require(batch(p) <= 65536, "kv", batch(p), "more than 65536 requests");
  for (int r = 0; r < batch(p); ++r) {
    const std::string at = " (request " + std::to_string(r) + ")";
    require(p.kv_lens[r] >= 0 && p.kv_lens[r] <= (1 << 24), "kv", p.kv_lens[r], "must be in [0, 2^24]" + at);
    require(p.q_lens[r] >= 1 && p.q_lens[r] <= 1024, "q", p.q_lens[r], "must be in [1, 1024]" + at);
    // A padded request (kv_len 0) may carry any q_len: every row of it is empty.
    require(p.kv_lens[r] == 0 || p.q_lens[r] <= p.kv_lens[r], "q", p.q_lens[r],
            "exceeds kv_len=" + std::to_string(p.kv_lens[r]) + at +
                ": the query tokens are part of the cache (only a padded request, kv_len 0, has none)");
  }
  validate_sequence(p);  // before anything sized from the steps
  std::int64_t total_kv = 0;
  for (int kv : p.kv_lens) total_kv += kv;
  // An all-padding batch has only identity rows (O 0): nothing a comparison could tell apart.
  require(total_kv >= 1, "kv", total_kv, "at least one request must hold a cached token");
  require(total_kv <= std::numeric_limits<std::int32_t>::max(), "kv", total_kv,
          "total kv tokens over all requests must fit a 32-bit index");
  require(p.block_size >= 1 && p.block_size <= 4096, "bs", p.block_size, "must be in [1, 4096]");
  require(p.first_block >= 0, "first_block", p.first_block, "must be >= 0");
  require(std::int64_t{p.num_blocks} >= std::int64_t{p.first_block} + blocks_needed(p), "blocks", p.num_blocks,
          "must be >= first_block=" + std::to_string(p.first_block) + " + the " + std::to_string(blocks_needed(p)) +
              " blocks the requests need");
  require(static_cast<std::int64_t>(p.num_blocks) * p.block_size <= std::numeric_limits<std::int32_t>::max(),
          "blocks", p.num_blocks, "num_blocks*block_size must fit a 32-bit slot index");
  // The host holds blocks [first_block, num_blocks) as floats; the device the whole pool.
  const std::int64_t host_elements = static_cast<std::int64_t>(host_cache_blocks(p)) * p.block_size * lk(p);
  require(host_elements <= (std::int64_t{1} << 34), "blocks", p.num_blocks,
          "cache from first_block on larger than 2^34 elements");
  const std::int64_t pool_elements = static_cast<std::int64_t>(p.num_blocks) * p.block_size * lk(p);
  require(pool_elements <= (std::int64_t{1} << 36), "blocks", p.num_blocks, "cache pool larger than 2^36 elements");

  if (is_fp8(p.o_dtype)) fail("o_dtype", std::string(to_string(p.o_dtype)), "must be f32, bf16 or f16");
  // fp8 queries run against a cache of the same fp8 type (aiter's fp8 decode): no engine pairs
  // them with a 16-bit cache, and fn with fnuz belong to different GPUs.
  if (is_fp8(p.q_dtype) && p.kv_dtype != p.q_dtype) {
    fail("q_dtype", std::string(to_string(p.q_dtype)),
         "fp8 queries need a cache of the same type, got kv_dtype=" + std::string(to_string(p.kv_dtype)));
  }
  if (!(std::isfinite(p.q_scale) && p.q_scale > 0.0f)) {
    fail("q_scale", repro::format_float(p.q_scale), "must be finite and > 0");
  }
  if (!is_fp8(p.q_dtype) && p.q_scale != 1.0f) {
    fail("q_scale", repro::format_float(p.q_scale),
         "a query dequantisation scale needs an fp8 q_dtype, got " + std::string(to_string(p.q_dtype)));
  }
  if (!(std::isfinite(p.kv_scale) && p.kv_scale > 0.0f)) {
    fail("kv_scale", repro::format_float(p.kv_scale), "must be finite and > 0");
  }
  if (!is_fp8(p.kv_dtype) && p.kv_scale != 1.0f) {
    fail("kv_scale", repro::format_float(p.kv_scale),
         "a dequantisation scale needs an fp8 kv_dtype, got " + std::string(to_string(p.kv_dtype)));
  }
  require(p.num_splits >= 0 && p.num_splits <= 4096, "splits", p.num_splits, "must be in [0, 4096] (0: automatic)");
  if (p.profile != FillProfile::uniform && p.fill != FillMode::random) {
    fail("profile", std::string(to_string(p.profile)), "shapes random fills and needs fill=random");
  }
}

std::string to_repro(const MlaDecodeProblem& p) {
  repro::Writer w(kOp);
  w.field("name", p.name)
      .field("heads", std::int64_t{p.total_heads})
      .field("tp", std::int64_t{p.tp})
      .field("rank", std::int64_t{p.tp_rank})
      .field("lv", std::int64_t{p.kv_lora_rank})
      .field("rope", std::int64_t{p.rope_dim})
      .field("scale", p.scale)
      .field("kv", p.kv_lens)
      .field("q", p.q_lens)
      .field("bs", std::int64_t{p.block_size})
      .field("blocks", std::int64_t{p.num_blocks})
      .field("q_dtype", to_string(p.q_dtype))
      .field("kv_dtype", to_string(p.kv_dtype))
      .field("o_dtype", to_string(p.o_dtype))
      .field("kv_scale", p.kv_scale);
  if (is_fp8(p.q_dtype)) w.field("q_scale", p.q_scale);  // only for fp8 queries: older strings stay canonical
  w.field("path", to_string(p.path))
      .field("splits", std::int64_t{p.num_splits})
      .field("fill", to_string(p.fill))
      .field("seed", std::to_string(p.seed))
      .field("profile", to_string(p.profile));
  if (p.first_block != 0) w.field("first_block", std::int64_t{p.first_block});
  if (is_sequence(p)) {
    w.field("steps", std::int64_t{p.steps});
    if (!p.joins.empty()) w.field("join", p.joins);
    if (!p.leaves.empty()) w.field("leave", p.leaves);
  }
  return w.str();
}

MlaDecodeProblem parse_mla_decode(std::string_view text) {
  repro::Reader r(text, kOp);
  MlaDecodeProblem p;
  constexpr std::int64_t kIntMax = std::numeric_limits<int>::max();
  if (auto v = r.take("name")) p.name = *v;
  if (auto v = r.take_int("heads", 1, kIntMax)) p.total_heads = static_cast<int>(*v);
  if (auto v = r.take_int("tp", 1, kIntMax)) p.tp = static_cast<int>(*v);
  if (auto v = r.take_int("rank", 0, kIntMax)) p.tp_rank = static_cast<int>(*v);
  if (auto v = r.take_int("lv", 1, kIntMax)) p.kv_lora_rank = static_cast<int>(*v);
  if (auto v = r.take_int("rope", 0, kIntMax)) p.rope_dim = static_cast<int>(*v);
  if (auto v = r.take_double("scale")) p.scale = *v;
  if (auto v = r.take_int_list("kv", 0, std::numeric_limits<int>::max())) p.kv_lens = *v;
  if (auto v = r.take_int_list("q", 0, std::numeric_limits<int>::max())) {
    p.q_lens = *v;
  } else {
    p.q_lens.assign(p.kv_lens.size(), 1);  // plain decode unless told otherwise
  }
  if (auto v = r.take_int("bs", 1, kIntMax)) p.block_size = static_cast<int>(*v);
  if (auto v = r.take_int("blocks", 0, kIntMax)) p.num_blocks = static_cast<int>(*v);
  p.q_dtype = take_dtype(r, "q_dtype", p.q_dtype);
  p.kv_dtype = take_dtype(r, "kv_dtype", p.kv_dtype);
  p.o_dtype = take_dtype(r, "o_dtype", p.o_dtype);
  if (auto v = r.take_float("kv_scale")) p.kv_scale = *v;
  if (auto v = r.take_float("q_scale")) p.q_scale = *v;
  if (auto v = r.take("path")) {
    if (*v == "auto") p.path = DecodePath::automatic;
    else if (*v == "persistent") p.path = DecodePath::persistent;
    else if (*v == "split_kv") p.path = DecodePath::split_kv;
    else throw ReproParseError("key 'path': '" + *v + "' is not one of auto, persistent, split_kv");
  }
  if (auto v = r.take_int("splits", 0, kIntMax)) p.num_splits = static_cast<int>(*v);
  p.fill = take_fill_mode(r, p.fill);
  if (auto v = r.take_u64("seed")) p.seed = *v;
  if (auto v = r.take("profile")) {  // absent in repro strings written before fill profiles: uniform
    if (*v == "uniform")
      p.profile = FillProfile::uniform;
    else if (*v == "sink")
      p.profile = FillProfile::sink;
    else if (*v == "extreme")
      p.profile = FillProfile::extreme;
    else
      throw ReproParseError("key 'profile': '" + *v + "' is not one of uniform, sink, extreme");
  }
  if (auto v = r.take_int("first_block", 0, kIntMax)) p.first_block = static_cast<int>(*v);
  if (auto v = r.take_int("steps", 1, kIntMax)) p.steps = static_cast<int>(*v);
  if (auto v = r.take_int_list("join", 0, kIntMax)) p.joins = *v;
  if (auto v = r.take_int_list("leave", 0, kIntMax)) p.leaves = *v;
  r.finish();
  p = with_defaults(p);
  validate(p);
  return p;
}

}  // namespace mlacheck
