#include "cpu_mla_decode.hpp"

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <initializer_list>

#include "element_codes.hpp"

namespace cpu_mla {

namespace {

bool is_output_dtype(std::int32_t t) {
  return t == MLACHECK_DTYPE_F32 || t == MLACHECK_DTYPE_BF16 || t == MLACHECK_DTYPE_F16;
}

bool is_cache_dtype(std::int32_t t) {
  return is_output_dtype(t) || t == MLACHECK_DTYPE_FP8_E4M3FN || t == MLACHECK_DTYPE_FP8_E4M3FNUZ;
}

int fail(char* error, std::size_t error_size, const char* format, ...) {
  va_list args;
  va_start(args, format);
  std::vsnprintf(error, error_size, format, args);
  va_end(args);
  return 1;
}

// The harness promises these shapes (backend_abi.h); checking them turns a harness or ABI
// mismatch into a message instead of a wild read.
int check_tensor(const mlacheck_tensor& t, const char* name, std::int32_t dtype, std::initializer_list<std::int64_t> shape,
                 char* error, std::size_t error_size) {
  if (t.data == nullptr) return fail(error, error_size, "tensor %s has no data", name);
  if (t.dtype != dtype) return fail(error, error_size, "tensor %s has dtype %d, expected %d", name, t.dtype, dtype);
  if (t.ndim != static_cast<std::int32_t>(shape.size())) {
    return fail(error, error_size, "tensor %s has %d dimensions, expected %zu", name, t.ndim, shape.size());
  }
  int d = 0;
  for (std::int64_t extent : shape) {
    if (t.shape[d] != extent) {
      return fail(error, error_size, "tensor %s has extent %lld in dimension %d, expected %lld", name,
                  static_cast<long long>(t.shape[d]), d, static_cast<long long>(extent));
    }
    ++d;
  }
  return 0;
}

std::int32_t int_at(const mlacheck_tensor& t, std::int64_t i) {
  return static_cast<const std::int32_t*>(t.data)[i * t.strides[0]];
}

// Scratch laid out as decode() uses it; sizes from the problem's maxima.
struct Scratch {
  float* keys;    // [max_kv_len, lk]: one request's cache rows, dequantised
  float* scores;  // [max_kv_len]
  float* query;   // [lk]
  float* acc;     // [kv_lora_rank]
};

std::uint64_t scratch_floats(const mlacheck_mla_problem& p) {
  const auto kv = static_cast<std::uint64_t>(p.max_kv_len);
  const auto width = static_cast<std::uint64_t>(p.lk);
  return kv * width + kv + width + static_cast<std::uint64_t>(p.kv_lora_rank);
}

// One query row (token `row`, head `head`) against `visible` cache rows of its request.
void attend_row(const mlacheck_mla_problem& p, const mlacheck_mla_tensors& t, const Scratch& s, int row, int head,
                int visible, int score_channels) {
  const mlacheck_tensor& o = t.o;
  float* lse = static_cast<float*>(t.lse.data) + row * t.lse.strides[0] + head * t.lse.strides[1];
  if (visible == 0) {  // a padded request's row saw nothing: the identity, O 0 and LSE -inf
    for (int c = 0; c < p.kv_lora_rank; ++c) {
      store_element(o.data, o.dtype, row * o.strides[0] + head * o.strides[1] + c * o.strides[2], 0.0f);
    }
    *lse = -INFINITY;
    return;
  }
  const mlacheck_tensor& q = t.q;
  for (int c = 0; c < p.lk; ++c) {
    // fp8 queries are codes: q = q_scale * code (1 for other dtypes).
    s.query[c] = p.q_scale * load_element(q.data, q.dtype, row * q.strides[0] + head * q.strides[1] + c * q.strides[2]);
  }
  const auto scale = static_cast<float>(p.scale);
  float max_score = -INFINITY;
  for (int j = 0; j < visible; ++j) {
    const float* key = s.keys + static_cast<std::int64_t>(j) * p.lk;
    float dot = 0.0f;
    for (int c = 0; c < score_channels; ++c) dot += s.query[c] * key[c];
    s.scores[j] = scale * dot;
    max_score = std::max(max_score, s.scores[j]);
  }
  float sum = 0.0f;
  std::fill(s.acc, s.acc + p.kv_lora_rank, 0.0f);
  for (int j = 0; j < visible; ++j) {
    const float weight = std::exp(s.scores[j] - max_score);
    sum += weight;
    const float* value = s.keys + static_cast<std::int64_t>(j) * p.lk;  // V: the first kv_lora_rank channels
    for (int c = 0; c < p.kv_lora_rank; ++c) s.acc[c] += weight * value[c];
  }
  for (int c = 0; c < p.kv_lora_rank; ++c) {
    store_element(o.data, o.dtype, row * o.strides[0] + head * o.strides[1] + c * o.strides[2], s.acc[c] / sum);
  }
  *lse = max_score + std::log(sum);
}

int check_tensors(const mlacheck_mla_problem& p, const mlacheck_mla_tensors& t, char* error, std::size_t error_size) {
  if (t.struct_size < sizeof(mlacheck_mla_tensors)) {
    return fail(error, error_size, "the tensors struct has %u bytes, this plugin needs %zu", t.struct_size,
                sizeof(mlacheck_mla_tensors));
  }
  const std::int64_t rows = p.total_q_tokens, heads = p.heads, batch = p.batch;
  if (int rc = check_tensor(t.q, "q", p.q_dtype, {rows, heads, p.lk}, error, error_size)) return rc;
  if (int rc = check_tensor(t.kv_cache, "kv_cache", p.kv_dtype, {p.num_blocks, p.block_size, p.lk}, error, error_size)) {
    return rc;
  }
  if (int rc = check_tensor(t.block_table, "block_table", MLACHECK_DTYPE_INT32, {batch, p.max_blocks_per_request}, error,
                            error_size)) {
    return rc;
  }
  if (int rc = check_tensor(t.kv_lens, "kv_lens", MLACHECK_DTYPE_INT32, {batch}, error, error_size)) return rc;
  if (int rc = check_tensor(t.q_lens, "q_lens", MLACHECK_DTYPE_INT32, {batch}, error, error_size)) return rc;
  if (int rc = check_tensor(t.qo_indptr, "qo_indptr", MLACHECK_DTYPE_INT32, {batch + 1}, error, error_size)) return rc;
  if (int rc = check_tensor(t.o, "o", p.o_dtype, {rows, heads, p.kv_lora_rank}, error, error_size)) return rc;
  if (int rc = check_tensor(t.lse, "lse", MLACHECK_DTYPE_F32, {rows, heads}, error, error_size)) return rc;
  if (t.workspace_bytes < workspace_bytes(p) || (workspace_bytes(p) > 0 && t.workspace == nullptr)) {
    return fail(error, error_size, "workspace of %llu bytes, this plugin asked for %llu",
                static_cast<unsigned long long>(t.workspace_bytes), static_cast<unsigned long long>(workspace_bytes(p)));
  }
  if (reinterpret_cast<std::uintptr_t>(t.workspace) % alignof(float) != 0) {
    return fail(error, error_size, "workspace at %p is not aligned for float", t.workspace);
  }
  return 0;
}

}  // namespace

const char* unsupported(const mlacheck_mla_problem& p) {
  if (p.struct_size < sizeof(mlacheck_mla_problem)) return "the problem struct is older than this plugin's ABI header";
  if (!is_cache_dtype(p.q_dtype)) return "q_dtype must be f32, bf16, f16 or fp8 e4m3 (fn or fnuz)";
  if (!is_output_dtype(p.o_dtype)) return "o_dtype must be f32, bf16 or f16";
  if (!is_cache_dtype(p.kv_dtype)) return "kv_dtype must be f32, bf16, f16 or fp8 e4m3 (fn or fnuz)";
  if (p.kv_lora_rank < 1 || p.lk < p.kv_lora_rank) return "kv_lora_rank must be in [1, lk]";
  return nullptr;
}

std::uint64_t workspace_bytes(const mlacheck_mla_problem& p) { return scratch_floats(p) * sizeof(float); }

int decode(const mlacheck_mla_problem& p, const mlacheck_mla_tensors& t, const DecodeOptions& options, char* error,
           std::size_t error_size) {
  if (const char* why = unsupported(p)) return fail(error, error_size, "%s", why);
  if (int rc = check_tensors(p, t, error, error_size)) return rc;

  auto* floats = static_cast<float*>(t.workspace);
  const std::int64_t kv_max = p.max_kv_len;
  const Scratch scratch{floats, floats + kv_max * p.lk, floats + kv_max * p.lk + kv_max,
                        floats + kv_max * p.lk + kv_max + p.lk};
  const int score_channels = options.rope_in_score ? p.lk : p.kv_lora_rank;
  const mlacheck_tensor& cache = t.kv_cache;
  const auto kv_scale = p.kv_scale;

  for (int r = 0; r < p.batch; ++r) {
    const int kv_len = int_at(t.kv_lens, r);
    const int q_len = int_at(t.q_lens, r);
    const int first_row = int_at(t.qo_indptr, r);
    // kv_len 0 is a padded request (its table row all -1, never read), whatever its q_len.
    if (q_len < 1 || kv_len < 0 || (kv_len > 0 && kv_len < q_len) || kv_len > p.max_kv_len) {
      return fail(error, error_size, "request %d: q_len %d and kv_len %d do not fit the problem", r, q_len, kv_len);
    }
    if (first_row < 0 || first_row + q_len > p.total_q_tokens || int_at(t.qo_indptr, r + 1) != first_row + q_len) {
      return fail(error, error_size, "request %d: qo_indptr [%d, %d) does not hold its %d query tokens", r, first_row,
                  int_at(t.qo_indptr, r + 1), q_len);
    }
    // Gather the request's cache rows through the block table, dequantised, in token order.
    for (int j = 0; j < kv_len; ++j) {
      const std::int64_t entry = j / p.block_size;
      const std::int32_t block =
          static_cast<const std::int32_t*>(t.block_table.data)[r * t.block_table.strides[0] + entry * t.block_table.strides[1]];
      if (block < 0 || block >= p.num_blocks) {
        return fail(error, error_size, "block_table[%d][%lld] = %d is outside the pool of %d blocks", r,
                    static_cast<long long>(entry), block, p.num_blocks);
      }
      const std::int64_t base = block * cache.strides[0] + (j % p.block_size) * cache.strides[1];
      float* key = scratch.keys + static_cast<std::int64_t>(j) * p.lk;
      for (int c = 0; c < p.lk; ++c) key[c] = kv_scale * load_element(cache.data, cache.dtype, base + c * cache.strides[2]);
    }
    for (int i = 0; i < q_len; ++i) {
      // Causal: the new tokens are the cache's last q_len; a padded request's rows see none.
      const int visible = std::max(0, kv_len - q_len + i + 1);
      for (int h = 0; h < p.heads; ++h) attend_row(p, t, scratch, first_row + i, h, visible, score_channels);
    }
  }
  return 0;
}

}  // namespace cpu_mla
