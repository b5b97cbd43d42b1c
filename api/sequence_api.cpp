// Decode sequences through the C API: the sequence's shape, its steps opened one at a time as
// one-step cases over a host model of the engine's cache (core/mla_sequence_inputs.hpp), the rows
// each step wrote, and the sequence's row from its steps' verdicts (harness/sequence_row.hpp, the
// rule `mlacheck run` uses for its own sessions).
#include <algorithm>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "api/api_call.hpp"
#include "api/api_objects.hpp"
#include "api/case_inputs.hpp"
#include "core/mla_sequence.hpp"
#include "device/staging/tensor_codec.hpp"
#include "harness/sequence_row.hpp"
#include "reports/csv_writer.hpp"

using mlacheck::api::api_call;
using mlacheck::api::ApiError;
using mlacheck::api::require;

namespace {

// The case's problem when it is an mla_decode case (oracle self-checks run no backend).
const mlacheck::MlaDecodeProblem& decode_problem(const mlacheck_case* c, const char* what) {
  mlacheck::api::require_mla(c, what);
  if (c->kind != MLACHECK_CASE_MLA_DECODE) {
    throw ApiError(MLACHECK_ERROR_WRONG_CASE,
                   "case '" + c->run_case.id + "' is an oracle self-check, which has no " + what);
  }
  return c->prepared.problem;
}

const mlacheck::MlaDecodeProblem& sequence_problem(const mlacheck_case* c, const char* what) {
  const mlacheck::MlaDecodeProblem& p = decode_problem(c, what);
  if (!mlacheck::is_sequence(p)) {
    throw ApiError(MLACHECK_ERROR_INVALID_ARGUMENT, "case '" + c->run_case.id + "' is a one-step case, not a decode "
                                                        "sequence: it has no " + what);
  }
  return p;
}

// The codes of the cache rows at `slots` of the host model's pool, one row of lk after another.
std::vector<std::byte> row_codes(const mlacheck::MlaDecodeProblem& p, const std::vector<float>& cache,
                                 const std::vector<std::int64_t>& slots) {
  const std::size_t width = static_cast<std::size_t>(mlacheck::lk(p));
  std::vector<float> values(slots.size() * width);
  for (std::size_t i = 0; i < slots.size(); ++i) {
    const std::size_t first = mlacheck::host_cache_index(p, slots[i]);
    std::copy_n(cache.begin() + static_cast<std::ptrdiff_t>(first), width,
                values.begin() + static_cast<std::ptrdiff_t>(i * width));
  }
  return mlacheck::encode_tensor(p.kv_dtype, values);
}

}  // namespace

extern "C" {

mlacheck_status mlacheck_case_sequence(mlacheck_case* c, mlacheck_sequence_info* info) {
  return api_call("mlacheck_case_sequence", [&] {
    require(info, "info");
    const mlacheck::MlaDecodeProblem& p = decode_problem(require(c, "case"), "sequence");
    if (info->struct_size < sizeof(mlacheck_sequence_info)) {
      throw ApiError(MLACHECK_ERROR_INVALID_ARGUMENT, "info->struct_size is " + std::to_string(info->struct_size) +
                                                          ", this library fills " +
                                                          std::to_string(sizeof(mlacheck_sequence_info)) +
                                                          " bytes (set it to sizeof(mlacheck_sequence_info))");
    }
    const int batch = mlacheck::batch(p);
    if (c->joins.empty()) {
      for (int r = 0; r < batch; ++r) {
        c->joins.push_back(mlacheck::join_step(p, r));
        c->leaves.push_back(mlacheck::leave_step(p, r));
      }
    }
    int max_kv_len = 0;
    for (int r = 0; r < batch; ++r) max_kv_len = std::max(max_kv_len, mlacheck::final_kv_len(p, r));
    const uint32_t caller_size = info->struct_size;
    *info = mlacheck_sequence_info{};
    info->struct_size = caller_size;
    info->steps = std::max(1, p.steps);
    info->batch = batch;
    info->joins = c->joins.data();
    info->leaves = c->leaves.data();
    info->max_blocks_per_request = mlacheck::sequence_max_blocks_per_request(p);
    info->max_kv_len = max_kv_len;
  });
}

mlacheck_status mlacheck_sequence_step_open(mlacheck_case* seq, mlacheck_case** out) {
  return api_call("mlacheck_sequence_step_open", [&] {
    require(out, "out");
    *out = nullptr;
    const mlacheck::MlaDecodeProblem& p = sequence_problem(require(seq, "case"), "steps to open");
    if (!seq->sequence_host) seq->sequence_host = std::make_unique<mlacheck::MlaSequenceInputs>(p);
    mlacheck::MlaSequenceInputs& host = *seq->sequence_host;
    if (host.step() + 1 >= host.steps()) {
      throw ApiError(MLACHECK_ERROR_INVALID_ARGUMENT,
                     "sequence '" + seq->run_case.id + "' has " + std::to_string(host.steps()) +
                         " steps and every one was opened; a fresh mlacheck_case_open runs it again");
    }
    host.advance();
    auto step = std::make_unique<mlacheck_case>();
    step->run_case = seq->run_case;
    step->kind = MLACHECK_CASE_MLA_DECODE;
    step->fill = seq->fill;
    step->prepared.problem = host.problem();
    step->prepared.row = seq->prepared.row;  // the sequence's id and repro: a step has no repro of its own
    step->prepared.inputs = host.inputs();
    step->abi = std::make_unique<const mlacheck::AbiMlaProblem>(host.problem());
    step->step = host.step();
    step->written_slots = host.written_slots();
    step->written_codes = row_codes(p, host.inputs().kv_cache, step->written_slots);
    *out = step.release();
  });
}

mlacheck_status mlacheck_case_written_rows(mlacheck_case* step, const int64_t** slots, mlacheck_tensor* rows) {
  return api_call("mlacheck_case_written_rows", [&] {
    require(slots, "slots");
    require(rows, "rows");
    const mlacheck::MlaDecodeProblem& p = decode_problem(require(step, "case"), "written rows");
    if (step->step < 0) {
      throw ApiError(MLACHECK_ERROR_WRONG_CASE, "case '" + step->run_case.id +
                                                    "' is no step of a sequence (mlacheck_sequence_step_open opens "
                                                    "steps): it wrote no rows");
    }
    *slots = step->written_slots.data();
    *rows = mlacheck::api::contiguous(step->written_codes.data(), step->abi->get().kv_dtype,
                                      {static_cast<int64_t>(step->written_slots.size()), mlacheck::lk(p)});
  });
}

mlacheck_status mlacheck_sequence_judge(mlacheck_case* seq, const mlacheck_verdict* const* steps, int64_t count,
                                        mlacheck_verdict** out) {
  return api_call("mlacheck_sequence_judge", [&] {
    require(out, "out");
    *out = nullptr;
    const mlacheck::MlaDecodeProblem& p = sequence_problem(require(seq, "case"), "steps to judge");
    require(steps, "steps");
    if (count < 1 || count > p.steps) {
      throw ApiError(MLACHECK_ERROR_INVALID_ARGUMENT, "count " + std::to_string(count) + " is outside [1, " +
                                                          std::to_string(p.steps) + "], the steps of sequence '" +
                                                          seq->run_case.id + "'");
    }
    mlacheck::CaseResult before = seq->prepared.row;
    for (int64_t k = 0; k < count; ++k) {
      const mlacheck_verdict* v = steps[k];
      if (v == nullptr) throw ApiError(MLACHECK_ERROR_INVALID_ARGUMENT, "steps[" + std::to_string(k) + "] is NULL");
      if (v->row.id != seq->run_case.id) {
        throw ApiError(MLACHECK_ERROR_INVALID_ARGUMENT, "steps[" + std::to_string(k) + "] is a verdict of case '" +
                                                            v->row.id + "', not of sequence '" + seq->run_case.id +
                                                            "'");
      }
      before.reference_ms += v->row.reference_ms;
      before.wall_ms += v->row.wall_ms;
    }
    mlacheck::SequenceRow row(before, p.steps);
    for (int64_t k = 0; k < count; ++k) {
      if (!row.add(static_cast<int>(k), steps[k]->row) && k + 1 < count) {
        throw ApiError(MLACHECK_ERROR_INVALID_ARGUMENT,
                       "steps[" + std::to_string(k) + "] is " + std::string(mlacheck::to_string(steps[k]->row.state)) +
                           ", which ends the sequence, yet " + std::to_string(count - k - 1) + " more verdicts follow");
      }
    }
    auto v = std::make_unique<mlacheck_verdict>();
    try {
      v->row = row.finish();
    } catch (const std::logic_error& e) {
      throw ApiError(MLACHECK_ERROR_INVALID_ARGUMENT,
                     std::string(e.what()) + " (give a verdict for every step, or stop at an ERRORED or SKIPPED one)");
    }
    v->state = std::string(mlacheck::to_string(v->row.state));
    v->header = mlacheck::csv_header();
    v->record = mlacheck::csv_record(v->row);
    *out = v.release();
  });
}

}  // extern "C"
