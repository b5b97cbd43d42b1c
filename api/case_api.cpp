// Cases: the problem, the inputs as codes in backend_abi.h's layouts, and the oracle's outputs.
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

#include "api/api_call.hpp"
#include "api/api_objects.hpp"
#include "api/case_inputs.hpp"
#include "api/case_kind.hpp"
#include "core/gather_problem.hpp"
#include "core/mla_inputs.hpp"
#include "core/mla_sequence.hpp"
#include "harness/op_registry.hpp"

using mlacheck::api::api_call;
using mlacheck::api::ApiError;
using mlacheck::api::contiguous;
using mlacheck::api::encode_inputs;
using mlacheck::api::fill_tensors_but_cache;
using mlacheck::api::require;
using mlacheck::api::require_mla;
using mlacheck::api::require_tensors_size;

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
    c->known_bugs = plan->known_bugs;
    c->kind = mlacheck::api::case_kind(c->run_case);
    // The canonical form, whatever form the plan was given (a user's --case string may omit keys).
    if (c->kind == MLACHECK_CASE_KV_GATHER) {
      c->unsupported_reason = mlacheck::api::kKvGatherUnsupported;
      c->run_case.repro = mlacheck::to_repro(mlacheck::parse_case(c->run_case.repro));
    } else {
      mlacheck::PreparedMlaCase& prepared = c->prepared;
      prepared.problem = mlacheck::parse_mla_decode(c->run_case.repro);
      prepared.row = mlacheck::new_mla_row(prepared.problem);
      prepared.row.id = c->run_case.id;
      c->abi = std::make_unique<const mlacheck::AbiMlaProblem>(prepared.problem);
      c->run_case.repro = c->abi->get().repro;
      c->fill = std::string(mlacheck::to_string(prepared.problem.fill));
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

mlacheck_status mlacheck_case_op(const mlacheck_case* c, const char** op) {
  return api_call("mlacheck_case_op", [&] {
    require(op, "op");
    // The registry's names are string literals, so the view's data ends in a NUL.
    const std::string_view name = mlacheck::op_of_repro(require(c, "case")->run_case.repro);
    if (name.empty()) throw std::invalid_argument("the case's repro names no registered op");
    *op = name.data();
  });
}

mlacheck_status mlacheck_op_names(const char** names) {
  return api_call("mlacheck_op_names", [&] {
    static const std::string all = mlacheck::op_names();
    *require(names, "names") = all.c_str();
  });
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
    require_tensors_size(tensors);
    const mlacheck::MlaDecodeProblem& p = c->prepared.problem;
    if (p.first_block != 0) {
      // The host holds only the blocks from first_block on; a whole-pool tensor would be
      // gigabytes of host memory nobody reads.
      throw ApiError(MLACHECK_ERROR_INVALID_ARGUMENT,
                     "case " + p.name + " places its blocks at first_block=" + std::to_string(p.first_block) +
                         " of a " + std::to_string(mlacheck::cache_pool_bytes(p) >> 20) +
                         " MiB pool, which is not handed out whole; mlacheck_case_inputs_by_block hands out its "
                         "inputs with the pool's shape and the blocks its requests read");
    }
    encode_inputs(c);
    fill_tensors_but_cache(c, tensors);
    const mlacheck_mla_problem& r = c->abi->get();
    tensors->kv_cache = contiguous(c->cache_codes.data(), r.kv_dtype, {r.num_blocks, r.block_size, r.lk});
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
    if (mlacheck::is_sequence(c->prepared.problem)) {
      throw ApiError(MLACHECK_ERROR_INVALID_ARGUMENT, "case " + c->prepared.problem.name +
                                                          " is a decode sequence: each step has its own oracle "
                                                          "(mlacheck_sequence_step_open)");
    }
    if (!mlacheck::api::ensure_oracle(c)) throw ApiError(MLACHECK_ERROR_INTERNAL, c->prepared.row.reason);
    *o = c->prepared.expected.o.data();
    *count_o = c->prepared.expected.o.size();
    *lse = c->prepared.expected.lse.data();
    *count_lse = c->prepared.expected.lse.size();
  });
}

}  // extern "C"
