#include "device/staging/mla_decode_staging.hpp"

#include <cmath>
#include <numbers>
#include <stdexcept>
#include <vector>

#include "device/staging/block_table_layout.hpp"
#include "device/staging/tensor_codec.hpp"

namespace mlacheck {

namespace {

// The whole pool of num_blocks blocks, holding the inputs' blocks [first_block, num_blocks) at
// their place. Below first_block nothing is uploaded (the host never held it): the pool is
// poisoned first with kv_dtype's NaN code, so a row read from there -- a wrapped 32-bit offset
// (UPSTREAM R4), a wrong block id -- turns the output NaN instead of passing by luck.
GuardedBuffer& stage_cache_pool(GuardedBufferSet& buffers, const MlaDecodeProblem& p,
                                std::span<const std::byte> codes) {
  if (p.first_block == 0) return buffers.input("kv_cache", codes);
  GuardedBuffer& pool =
      buffers.output("kv_cache", p.kv_dtype, static_cast<std::size_t>(cache_pool_bytes(p)) / storage_bytes(p.kv_dtype));
  pool.upload_at(static_cast<std::size_t>(std::int64_t{p.first_block} * p.block_size * cache_row_bytes(p)), codes);
  return pool;
}

std::vector<std::int32_t> to_int32(const std::vector<int>& v) { return {v.begin(), v.end()}; }

// A dense row-major view: strides from the shape, in elements.
mlacheck_tensor dense(GuardedBuffer& b, std::int32_t dtype, std::initializer_list<std::int64_t> shape) {
  mlacheck_tensor t{};
  t.data = b.data();
  t.dtype = dtype;
  t.ndim = static_cast<std::int32_t>(shape.size());
  int i = 0;
  for (std::int64_t extent : shape) t.shape[i++] = extent;
  std::int64_t stride = 1;
  for (int d = t.ndim - 1; d >= 0; --d) {
    t.strides[d] = stride;
    stride *= t.shape[d];
  }
  return t;
}

}  // namespace

std::uint64_t mla_staging_bytes(const MlaDecodeProblem& p) {
  const auto n = [](std::int64_t v) { return static_cast<std::uint64_t>(v); };
  const std::uint64_t rows = n(total_q_tokens(p)) * n(heads(p));
  const std::uint64_t ints = n(batch(p)) * n(max_blocks_per_request(p)) + 4 * n(batch(p)) + 2;
  const std::uint64_t guards = 10 * 2 * GuardedBuffer::kGuardBytes;
  return rows * n(lk(p)) * storage_bytes(p.q_dtype) + n(cache_pool_bytes(p)) + 4 * ints +
         rows * n(p.kv_lora_rank) * storage_bytes(p.o_dtype) + 4 * rows + guards;
}

LseBase lse_base_from_abi(std::int32_t code) {
  if (code == MLACHECK_LSE_NATURAL) return LseBase::natural;
  if (code == MLACHECK_LSE_LOG2) return LseBase::log2;
  throw std::invalid_argument("lse_base " + std::to_string(code) +
                              " is neither MLACHECK_LSE_NATURAL (0) nor MLACHECK_LSE_LOG2 (1)");
}

MlaDecodeStaging::MlaDecodeStaging(const MlaDecodeProblem& problem, const MlaDecodeInputs& in, StagingMemory memory,
                                   std::uint64_t workspace_bytes)
    : abi_problem_(std::make_unique<AbiMlaProblem>(problem)), buffers_(memory) {
  const MlaDecodeProblem& p = abi_problem_->problem();
  const mlacheck_mla_problem& a = abi_problem_->get();
  const auto n = [](std::int64_t v) { return static_cast<std::size_t>(v); };
  expect_input_elements(p, "q", in.q.size(), n(a.total_q_tokens) * n(a.heads) * n(a.lk));
  expect_input_elements(p, "kv_cache", in.kv_cache.size(), n(host_cache_blocks(p)) * n(p.block_size) * n(a.lk));
  table_stride_ = max_blocks_per_request(p);
  const std::vector<std::int32_t> table = engine_block_table(p, in, table_stride_);

  const std::vector<std::byte> q_codes = encode_tensor(p.q_dtype, in.q);
  const std::vector<std::byte> kv_codes = encode_tensor(p.kv_dtype, in.kv_cache);
  q_ = &buffers_.input("q", std::span<const std::byte>(q_codes));
  kv_cache_ = &stage_cache_pool(buffers_, p, kv_codes);
  block_table_ = &buffers_.input("block_table", std::span<const std::int32_t>(table));
  kv_lens_ = &buffers_.input("kv_lens", std::span<const std::int32_t>(a.kv_lens, n(a.batch)));
  q_lens_ = &buffers_.input("q_lens", std::span<const std::int32_t>(a.q_lens, n(a.batch)));
  const std::vector<std::int32_t> qo = to_int32(mlacheck::qo_indptr(p));
  const std::vector<std::int32_t> kv = to_int32(mlacheck::kv_indptr(p));
  qo_indptr_ = &buffers_.input("qo_indptr", std::span<const std::int32_t>(qo));
  kv_indptr_ = &buffers_.input("kv_indptr", std::span<const std::int32_t>(kv));
  o_ = &buffers_.output("o", p.o_dtype, n(a.total_q_tokens) * n(a.heads) * n(a.kv_lora_rank));
  lse_ = &buffers_.output("lse", DType::f32, n(a.total_q_tokens) * n(a.heads));
  if (workspace_bytes > 0) workspace_ = &buffers_.scratch("workspace", static_cast<std::size_t>(workspace_bytes));
  describe_tensors(workspace_bytes);
}

void MlaDecodeStaging::describe_tensors(std::uint64_t workspace_bytes) {
  const mlacheck_mla_problem& a = abi_problem_->get();
  tensors_ = {};
  tensors_.struct_size = sizeof(mlacheck_mla_tensors);
  tensors_.q = dense(*q_, a.q_dtype, {a.total_q_tokens, a.heads, a.lk});
  tensors_.kv_cache = dense(*kv_cache_, a.kv_dtype, {a.num_blocks, a.block_size, a.lk});
  tensors_.block_table = dense(*block_table_, MLACHECK_DTYPE_INT32, {a.batch, a.max_blocks_per_request});
  tensors_.block_table.strides[0] = table_stride_;  // a sequence's table is as wide as its longest step's
  tensors_.kv_lens = dense(*kv_lens_, MLACHECK_DTYPE_INT32, {a.batch});
  tensors_.q_lens = dense(*q_lens_, MLACHECK_DTYPE_INT32, {a.batch});
  tensors_.qo_indptr = dense(*qo_indptr_, MLACHECK_DTYPE_INT32, {a.batch + 1});
  tensors_.kv_indptr = dense(*kv_indptr_, MLACHECK_DTYPE_INT32, {a.batch + 1});
  tensors_.o = dense(*o_, a.o_dtype, {a.total_q_tokens, a.heads, a.kv_lora_rank});
  tensors_.lse = dense(*lse_, MLACHECK_DTYPE_F32, {a.total_q_tokens, a.heads});
  tensors_.workspace = workspace_ != nullptr ? workspace_->data() : nullptr;
  tensors_.workspace_bytes = workspace_ != nullptr ? workspace_bytes : 0;
}

MlaDecodeRun MlaDecodeStaging::collect(LseBase lse_base) const {
  MlaDecodeRun run;
  run.diag.broken_canaries = buffers_.broken_canaries();
  DecodedTensor o = decode_tensor(problem().o_dtype, o_->download());
  DecodedTensor lse = decode_tensor(DType::f32, lse_->download());
  if (lse_base == LseBase::log2) {
    // log2(sum 2^(s log2 e)) = ln(sum e^s) / ln 2. Unwritten elements keep their poison NaN.
    for (std::size_t i = 0; i < lse.values.size(); ++i) {
      if (lse.unwritten[i] == 0) lse.values[i] = static_cast<float>(lse.values[i] * std::numbers::ln2);
    }
  }
  run.out.o = std::move(o.values);
  run.o_unwritten = std::move(o.unwritten);
  run.out.lse = std::move(lse.values);
  run.lse_unwritten = std::move(lse.unwritten);
  return run;
}

}  // namespace mlacheck
