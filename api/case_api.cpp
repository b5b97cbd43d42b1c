// Cases: the problem, the inputs as codes in backend_abi.h's layouts, and the oracle's outputs.
#include <memory>

#include "api/api_call.hpp"
#include "api/api_objects.hpp"
#include "api/case_kind.hpp"
#include "core/gather_problem.hpp"
#include "core/mla_inputs.hpp"
#include "core/mla_sequence.hpp"
#include "device/staging/tensor_codec.hpp"

using mlacheck::api::api_call;
using mlacheck::api::ApiError;
using mlacheck::api::require;

namespace {

void require_mla(const mlacheck_case* c, const char* what) {
  if (c->kind == MLACHECK_CASE_KV_GATHER) {
    throw ApiError(MLACHECK_ERROR_WRONG_CASE, "case '" + c->run_case.id + "' is a kv_gather case, which has no " +
                                                  what + " here: " + c->unsupported_reason);
  }
}

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

// Makes the inputs (once) and their codes (once).
void encode_inputs(mlacheck_case* c) {
  if (c->inputs_encoded) return;
  mlacheck::PreparedMlaCase& prepared = c->prepared;
  if (prepared.inputs.q.empty()) prepared.inputs = mlacheck::make_inputs(prepared.problem);
  const mlacheck::MlaDecodeProblem& p = prepared.problem;
  if (prepared.inputs.block_table_stride != mlacheck::max_blocks_per_request(p)) {
    throw ApiError(MLACHECK_ERROR_INTERNAL, "block table stride " + std::to_string(prepared.inputs.block_table_stride) +
                                                " differs from max_blocks_per_request " +
                                                std::to_string(mlacheck::max_blocks_per_request(p)));
  }
  if (mlacheck::is_sequence(p)) {
    throw ApiError(MLACHECK_ERROR_INVALID_ARGUMENT, "case " + p.name + " is a decode sequence of " +
                                                        std::to_string(p.steps) +
                                                        " steps; the C API hands out one-step cases only");
  }
  if (p.first_block != 0) {
    // The host holds only the blocks from first_block on; a caller's tensor would need the whole
    // pool (gigabytes of host memory nobody reads), so such cases stay with the staging layer.
    throw ApiError(MLACHECK_ERROR_INVALID_ARGUMENT,
                   "case " + p.name + " places its blocks at first_block=" + std::to_string(p.first_block) + " of a " +
                       std::to_string(mlacheck::cache_pool_bytes(p) >> 20) +
                       " MiB pool; the C API hands out whole-pool tensors and does not offer such cases");
  }
  c->q_codes = mlacheck::encode_tensor(p.q_dtype, prepared.inputs.q);
  c->cache_codes = mlacheck::encode_tensor(p.kv_dtype, prepared.inputs.kv_cache);
  c->qo_indptr = mlacheck::qo_indptr(p);
  c->kv_indptr = mlacheck::kv_indptr(p);
  c->inputs_encoded = true;
}

}  // namespace

extern "C" {

mlacheck_status mlacheck_case_open(const mlacheck_plan* plan, int64_t index, mlacheck_case** out) {
  return api_call("mlacheck_case_open", [&] {
    require(out, "out");
    *out = nullptr;
    require(plan, "plan");
    const auto size = static_cast<int64_t>(plan->cases.size());
    if (index < 0 || index >= size) {
      throw ApiError(MLACHECK_ERROR_INVALID_ARGUMENT,
                     "index " + std::to_string(index) + " is outside the plan's [0, " + std::to_string(size) + ")");
    }
    auto c = std::make_unique<mlacheck_case>();
    c->run_case = plan->cases[static_cast<std::size_t>(index)];
    c->kind = mlacheck::api::case_kind(c->run_case);
    // The canonical form, whatever form the plan was given (a user's --case string may omit keys).
    if (c->kind == MLACHECK_CASE_KV_GATHER) {
      c->unsupported_reason = mlacheck::api::kKvGatherUnsupported;
      c->run_case.repro = mlacheck::to_repro(mlacheck::parse_kv_gather(c->run_case.repro));
    } else {
      mlacheck::PreparedMlaCase& prepared = c->prepared;
      prepared.problem = mlacheck::parse_mla_decode(c->run_case.repro);
      prepared.row = mlacheck::new_mla_row(prepared.problem);
      prepared.row.id = c->run_case.id;
      c->abi = std::make_unique<const mlacheck::AbiMlaProblem>(prepared.problem);
      c->run_case.repro = c->abi->get().repro;
      c->fill = std::string(mlacheck::to_string(prepared.problem.fill));
      if (mlacheck::is_sequence(prepared.problem)) {
        // A sequence's steps share a cache and a backend session across calls; the C API's case
        // is one call of the caller's kernel, so it offers none (issue 13: the backend ABI runs them).
        c->unsupported_reason = "case is a decode sequence of " + std::to_string(prepared.problem.steps) +
                                " steps; the C API hands out one-step cases and does not offer sequences "
                                "(run them through the backend ABI: mlacheck run --backend)";
      } else if (prepared.problem.first_block != 0) {
        // The host holds only the blocks from first_block on; a caller's tensor would need the
        // whole pool (gigabytes of host memory nobody reads), so the C API offers no inputs for
        // such a case and a caller reports it SKIPPED with this reason.
        c->unsupported_reason =
            "case places its blocks at first_block=" + std::to_string(prepared.problem.first_block) + " of a " +
            std::to_string(mlacheck::cache_pool_bytes(prepared.problem) >> 20) +
            " MiB pool; the C API hands out whole-pool tensors and does not offer such cases "
            "(run them through the backend ABI: mlacheck run --backend)";
      }
    }
    *out = c.release();
  });
}

void mlacheck_case_free(mlacheck_case* c) { delete c; }

mlacheck_status mlacheck_case_id(const mlacheck_case* c, const char** id) {
  return api_call("mlacheck_case_id", [&] { *require(id, "id") = require(c, "case")->run_case.id.c_str(); });
}

mlacheck_status mlacheck_case_repro(const mlacheck_case* c, const char** repro) {
  return api_call("mlacheck_case_repro",
                  [&] { *require(repro, "repro") = require(c, "case")->run_case.repro.c_str(); });
}

mlacheck_status mlacheck_case_kind_of(const mlacheck_case* c, int32_t* kind) {
  return api_call("mlacheck_case_kind_of", [&] { *require(kind, "kind") = require(c, "case")->kind; });
}

mlacheck_status mlacheck_case_unsupported_reason(const mlacheck_case* c, const char** reason) {
  return api_call("mlacheck_case_unsupported_reason", [&] {
    require(reason, "reason");
    require(c, "case");
    *reason = c->unsupported_reason.empty() ? nullptr : c->unsupported_reason.c_str();
  });
}

mlacheck_status mlacheck_case_problem(const mlacheck_case* c, const mlacheck_mla_problem** problem) {
  return api_call("mlacheck_case_problem", [&] {
    require(problem, "problem");
    require_mla(require(c, "case"), "mla_decode problem");
    *problem = &c->abi->get();
  });
}

mlacheck_status mlacheck_case_fill(const mlacheck_case* c, const char** fill) {
  return api_call("mlacheck_case_fill", [&] {
    require(fill, "fill");
    require_mla(require(c, "case"), "fill mode");
    *fill = c->fill.c_str();
  });
}

mlacheck_status mlacheck_case_inputs(mlacheck_case* c, mlacheck_mla_tensors* tensors) {
  return api_call("mlacheck_case_inputs", [&] {
    require(tensors, "tensors");
    require_mla(require(c, "case"), "inputs");
    if (tensors->struct_size < sizeof(mlacheck_mla_tensors)) {
      throw ApiError(MLACHECK_ERROR_INVALID_ARGUMENT,
                     "tensors->struct_size is " + std::to_string(tensors->struct_size) + ", this library fills " +
                         std::to_string(sizeof(mlacheck_mla_tensors)) +
                         " bytes (set it to sizeof(mlacheck_mla_tensors))");
    }
    encode_inputs(c);
    const mlacheck_mla_problem& r = c->abi->get();
    const mlacheck::MlaDecodeInputs& in = c->prepared.inputs;
    const uint32_t caller_size = tensors->struct_size;
    *tensors = mlacheck_mla_tensors{};
    tensors->struct_size = caller_size;
    tensors->q = contiguous(c->q_codes.data(), r.q_dtype, {r.total_q_tokens, r.heads, r.lk});
    tensors->kv_cache = contiguous(c->cache_codes.data(), r.kv_dtype, {r.num_blocks, r.block_size, r.lk});
    // The ABI hands out const inputs through non-const pointers (its struct serves outputs too).
    tensors->block_table = contiguous(const_cast<int32_t*>(in.block_table.data()), MLACHECK_DTYPE_INT32,
                                      {r.batch, r.max_blocks_per_request});
    // The ABI's views are writable pointers; these inputs are for reading (harness_api.h says so).
    tensors->kv_lens = contiguous(const_cast<std::int32_t*>(r.kv_lens), MLACHECK_DTYPE_INT32, {r.batch});
    tensors->q_lens = contiguous(const_cast<std::int32_t*>(r.q_lens), MLACHECK_DTYPE_INT32, {r.batch});
    tensors->qo_indptr = contiguous(c->qo_indptr.data(), MLACHECK_DTYPE_INT32, {r.batch + 1});
    tensors->kv_indptr = contiguous(c->kv_indptr.data(), MLACHECK_DTYPE_INT32, {r.batch + 1});
    tensors->o = contiguous(nullptr, r.o_dtype, {r.total_q_tokens, r.heads, r.kv_lora_rank});
    tensors->lse = contiguous(nullptr, MLACHECK_DTYPE_F32, {r.total_q_tokens, r.heads});
  });
}

mlacheck_status mlacheck_case_expected(mlacheck_case* c, const double** o, uint64_t* count_o, const double** lse,
                                       uint64_t* count_lse) {
  return api_call("mlacheck_case_expected", [&] {
    require(o, "o");
    require(count_o, "count_o");
    require(lse, "lse");
    require(count_lse, "count_lse");
    require_mla(require(c, "case"), "oracle outputs");
    if (!mlacheck::api::ensure_oracle(c)) throw ApiError(MLACHECK_ERROR_INTERNAL, c->prepared.row.reason);
    *o = c->prepared.expected.o.data();
    *count_o = c->prepared.expected.o.size();
    *lse = c->prepared.expected.lse.data();
    *count_lse = c->prepared.expected.lse.size();
  });
}

}  // extern "C"
