#include "api/case_inputs.hpp"

#include <string>

#include "api/api_call.hpp"
#include "api/api_objects.hpp"
#include "core/mla_inputs.hpp"
#include "core/mla_sequence.hpp"
#include "device/staging/tensor_codec.hpp"

namespace mlacheck::api {

mlacheck_tensor contiguous(void* data, int32_t dtype, std::initializer_list<int64_t> shape) {
  mlacheck_tensor t{};
  t.data = data;
  t.dtype = dtype;
  t.ndim = static_cast<int32_t>(shape.size());
  int i = 0;
  for (int64_t extent : shape) t.shape[i++] = extent;
  int64_t stride = 1;
  for (int k = t.ndim - 1; k >= 0; --k) {
    t.strides[k] = stride;
    stride *= t.shape[k];
  }
  return t;
}

void require_mla(const mlacheck_case* c, const char* what) {
  if (c->kind == MLACHECK_CASE_KV_GATHER) {
    throw ApiError(MLACHECK_ERROR_WRONG_CASE, "case '" + c->run_case.id + "' is a kv_gather case, which has no " +
                                                  what + " here: " + c->unsupported_reason);
  }
}

void encode_inputs(mlacheck_case* c, int threads) {
  if (c->inputs_encoded) return;
  PreparedMlaCase& prepared = c->prepared;
  const MlaDecodeProblem& p = prepared.problem;
  if (is_sequence(p)) {
    throw ApiError(MLACHECK_ERROR_INVALID_ARGUMENT, "case " + p.name + " is a decode sequence of " +
                                                        std::to_string(p.steps) +
                                                        " steps: its steps are one-step cases (mlacheck_sequence_step_open)");
  }
  if (prepared.inputs.q.empty()) prepared.inputs = make_inputs(p, threads);
  if (prepared.inputs.block_table_stride != max_blocks_per_request(p)) {
    throw ApiError(MLACHECK_ERROR_INTERNAL, "block table stride " + std::to_string(prepared.inputs.block_table_stride) +
                                                " differs from max_blocks_per_request " +
                                                std::to_string(max_blocks_per_request(p)));
  }
  // The host cache holds pool blocks [first_block, num_blocks) only (core/mla_inputs.hpp), so its
  // codes are small even when the pool spans past 4 GiB.
  c->q_codes = encode_tensor(p.q_dtype, prepared.inputs.q);
  c->cache_codes = encode_tensor(p.kv_dtype, prepared.inputs.kv_cache);
  c->qo_indptr = qo_indptr(p);
  c->kv_indptr = kv_indptr(p);
  c->inputs_encoded = true;
}

void require_tensors_size(const mlacheck_mla_tensors* tensors) {
  if (tensors->struct_size < sizeof(mlacheck_mla_tensors)) {
    throw ApiError(MLACHECK_ERROR_INVALID_ARGUMENT, "tensors->struct_size is " + std::to_string(tensors->struct_size) +
                                                        ", this library fills " +
                                                        std::to_string(sizeof(mlacheck_mla_tensors)) +
                                                        " bytes (set it to sizeof(mlacheck_mla_tensors))");
  }
}

void fill_tensors_but_cache(const mlacheck_case* c, mlacheck_mla_tensors* tensors) {
  const mlacheck_mla_problem& r = c->abi->get();
  const MlaDecodeInputs& in = c->prepared.inputs;
  const uint32_t caller_size = tensors->struct_size;
  *tensors = mlacheck_mla_tensors{};
  tensors->struct_size = caller_size;
  // The ABI hands out const inputs through non-const pointers (its struct serves outputs too);
  // these inputs are for reading (harness_api.h says so).
  auto* q_codes = const_cast<std::byte*>(c->q_codes.data());
  tensors->q = contiguous(q_codes, r.q_dtype, {r.total_q_tokens, r.heads, r.lk});
  tensors->block_table = contiguous(const_cast<int32_t*>(in.block_table.data()), MLACHECK_DTYPE_INT32,
                                    {r.batch, r.max_blocks_per_request});
  tensors->kv_lens = contiguous(const_cast<std::int32_t*>(r.kv_lens), MLACHECK_DTYPE_INT32, {r.batch});
  tensors->q_lens = contiguous(const_cast<std::int32_t*>(r.q_lens), MLACHECK_DTYPE_INT32, {r.batch});
  tensors->qo_indptr = contiguous(const_cast<std::int32_t*>(c->qo_indptr.data()), MLACHECK_DTYPE_INT32, {r.batch + 1});
  tensors->kv_indptr = contiguous(const_cast<std::int32_t*>(c->kv_indptr.data()), MLACHECK_DTYPE_INT32, {r.batch + 1});
  tensors->o = contiguous(nullptr, r.o_dtype, {r.total_q_tokens, r.heads, r.kv_lora_rank});
  tensors->lse = contiguous(nullptr, MLACHECK_DTYPE_F32, {r.total_q_tokens, r.heads});
}

}  // namespace mlacheck::api
