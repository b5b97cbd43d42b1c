// Outcomes: what a caller's backend did with one case, and the verdict the harness draws from it
// through harness/mla_judge.hpp and plan/case_settle.hpp, the steps `mlacheck run` uses for its own
// backend.
#include <memory>
#include <numbers>
#include <span>

#include "api/api_call.hpp"
#include "api/api_objects.hpp"
#include "api/case_kind.hpp"
#include "api/output_tensor.hpp"
#include "core/mla_sequence.hpp"
#include "device/platform/guard_bytes.hpp"
#include "device/staging/abi_problem.hpp"
#include "harness/case_timing.hpp"
#include "harness/mla_judge.hpp"
#include "harness/op_registry.hpp"
#include "harness/oracle_self_check.hpp"
#include "plan/case_settle.hpp"
#include "reports/csv_writer.hpp"

using mlacheck::api::api_call;
using mlacheck::api::ApiError;
using mlacheck::api::require;

namespace {

std::string text(const char* s) { return s == nullptr ? std::string() : std::string(s); }

void require_mla_outputs(const mlacheck_outcome* o, const char* what) {
  if (o->of->kind != MLACHECK_CASE_MLA_DECODE) {
    throw ApiError(MLACHECK_ERROR_WRONG_CASE, "case '" + o->of->run_case.id + "' is not an mla_decode case; it takes no " +
                                                  what);
  }
}

void fill_backend(const mlacheck_outcome& o, mlacheck::CaseResult& row) {
  row.backend = o.backend;
  row.backend_version = o.backend_version;
  row.device = o.device;
}

mlacheck::CaseResult judge_mla(mlacheck_outcome& o) {
  mlacheck_case& c = *o.of;
  mlacheck::CaseResult row = c.prepared.row;
  fill_backend(o, row);
  if (o.skipped) {
    mlacheck::set_skipped(row, o.skip_reason, *o.skipped);
    return row;
  }
  if (o.errored) {
    mlacheck::set_errored(row, o.error_kind, *o.errored);
    return row;
  }
  if (mlacheck::is_sequence(c.prepared.problem)) {
    throw ApiError(MLACHECK_ERROR_INVALID_ARGUMENT, "case '" + c.run_case.id +
                                                        "' is a decode sequence: its steps are judged one by one "
                                                        "(mlacheck_sequence_step_open) and it by mlacheck_sequence_judge");
  }
  if (!o.has_o) {
    throw ApiError(MLACHECK_ERROR_INVALID_ARGUMENT, "case '" + c.run_case.id +
                                                        "': no O was given (mlacheck_outcome_set_o), and the backend "
                                                        "was not marked skipped or errored");
  }
  // The oracle may have run before (mlacheck_case_expected): its time still belongs to the case.
  const double earlier_oracle_ms = c.prepared.ready_for_device ? c.prepared.row.reference_ms : 0.0;
  if (!mlacheck::api::ensure_oracle(&c)) {
    row.state = c.prepared.row.state;
    row.error_kind = c.prepared.row.error_kind;
    row.reason = c.prepared.row.reason;
    return row;
  }
  row.reference_ms = c.prepared.row.reference_ms;
  mlacheck::RunDiagnostics diag;
  diag.path = o.path;
  diag.device_ms = o.device_ms;
  diag.broken_canaries = o.broken_canaries;
  diag.guarded = o.guarded;
  mlacheck::judge_mla_outputs(row, c.prepared.problem, c.prepared.expected, c.prepared.scales, o.p_rounding,
                              {o.o, o.o_unwritten, o.has_lse, o.lse, o.lse_unwritten}, diag);
  row.wall_ms = earlier_oracle_ms;
  return row;
}

mlacheck::CaseResult judge_other(const mlacheck_outcome& o) {
  const mlacheck_case& c = *o.of;
  if (c.kind == MLACHECK_CASE_ORACLE_SELF_CHECK) {
    if (o.has_o || o.has_lse || o.skipped || o.errored || o.guarded) {
      throw ApiError(MLACHECK_ERROR_WRONG_CASE,
                     "case '" + c.run_case.id + "' is an oracle self-check: it runs no backend and takes no outputs");
    }
    mlacheck::CaseResult row = mlacheck::run_oracle_self_check(c.prepared.problem);
    row.id = c.run_case.id;
    return row;
  }
  mlacheck::CaseResult row;
  row.id = c.run_case.id;
  row.op = std::string(mlacheck::op_of_repro(c.run_case.repro));
  row.repro = c.run_case.repro;
  fill_backend(o, row);
  // The caller's own refusal keeps its kind; else this route does not run the case's kind.
  if (o.skipped) {
    mlacheck::set_skipped(row, o.skip_reason, *o.skipped);
  } else {
    mlacheck::set_skipped(row, mlacheck::SkipReason::not_checked_by_policy, c.unsupported_reason);
  }
  return row;
}

}  // namespace

extern "C" {

mlacheck_status mlacheck_outcome_new(mlacheck_case* c, mlacheck_outcome** out) {
  return api_call("mlacheck_outcome_new", [&] {
    require(out, "out");
    *out = nullptr;
    auto o = std::make_unique<mlacheck_outcome>();
    o->of = require(c, "case");
    *out = o.release();
  });
}

void mlacheck_outcome_free(mlacheck_outcome* o) { delete o; }

mlacheck_status mlacheck_outcome_set_backend(mlacheck_outcome* o, const char* name, const char* version,
                                             const char* device, const char* path) {
  return api_call("mlacheck_outcome_set_backend", [&] {
    require(o, "outcome");
    o->backend = text(name);
    o->backend_version = text(version);
    o->device = text(device);
    o->path = text(path);
  });
}

mlacheck_status mlacheck_outcome_set_times(mlacheck_outcome* o, double device_ms, double wall_ms) {
  return api_call("mlacheck_outcome_set_times", [&] {
    require(o, "outcome");
    if (!(device_ms >= 0.0) || !(wall_ms >= 0.0)) {
      throw ApiError(MLACHECK_ERROR_INVALID_ARGUMENT, "times must be >= 0 ms, got device_ms=" +
                                                          std::to_string(device_ms) + " wall_ms=" + std::to_string(wall_ms));
    }
    o->device_ms = device_ms;
    o->wall_ms = wall_ms;
  });
}

mlacheck_status mlacheck_outcome_set_p_rounding(mlacheck_outcome* o, int32_t p_dtype) {
  return api_call("mlacheck_outcome_set_p_rounding", [&] {
    require(o, "outcome");
    const std::optional<mlacheck::PRoundingPoint> point = mlacheck::p_rounding_from_abi(p_dtype);
    if (!point) {
      throw ApiError(MLACHECK_ERROR_INVALID_ARGUMENT,
                     "p_dtype " + std::to_string(p_dtype) +
                         " is not MLACHECK_P_UNDECLARED (-1), MLACHECK_P_Q_DTYPE (-2), MLACHECK_P_MMA_INPUT (-3), "
                         "MLACHECK_DTYPE_F32 (0), MLACHECK_DTYPE_BF16 (1) or MLACHECK_DTYPE_F16 (2)");
    }
    o->p_rounding = *point;
  });
}

mlacheck_status mlacheck_outcome_set_skipped(mlacheck_outcome* o, const char* reason) {
  return api_call("mlacheck_outcome_set_skipped", [&] {
    require(o, "outcome");
    const std::string why = text(reason);
    if (why.empty()) throw ApiError(MLACHECK_ERROR_INVALID_ARGUMENT, "a skipped case needs a reason");
    o->skipped = why;
  });
}

mlacheck_status mlacheck_outcome_set_errored(mlacheck_outcome* o, const char* reason) {
  return api_call("mlacheck_outcome_set_errored", [&] {
    require(o, "outcome");
    const std::string why = text(reason);
    if (why.empty()) throw ApiError(MLACHECK_ERROR_INVALID_ARGUMENT, "an errored case needs a reason");
    o->errored = why;
  });
}

mlacheck_status mlacheck_outcome_set_skip_reason(mlacheck_outcome* o, const char* kind) {
  return api_call("mlacheck_outcome_set_skip_reason", [&] {
    require(o, "outcome");
    const std::string name = text(kind);
    const auto why = mlacheck::parse_skip_reason(name);
    if (!why || *why == mlacheck::SkipReason::none || *why == mlacheck::SkipReason::unknown) {
      throw ApiError(MLACHECK_ERROR_INVALID_ARGUMENT,
                     "skip reason '" + name + "' is not unsupported, not_enough_memory, no_device or not_checked_by_policy");
    }
    o->skip_reason = *why;
  });
}

mlacheck_status mlacheck_outcome_set_error_kind(mlacheck_outcome* o, const char* kind) {
  return api_call("mlacheck_outcome_set_error_kind", [&] {
    require(o, "outcome");
    const std::string name = text(kind);
    const auto what = mlacheck::parse_error_kind(name);
    if (!what || *what == mlacheck::ErrorKind::none || *what == mlacheck::ErrorKind::unknown) {
      throw ApiError(MLACHECK_ERROR_INVALID_ARGUMENT,
                     "error kind '" + name +
                         "' is not crashed, timed_out, device_lost, backend_exception, harness_error or "
                         "backend_not_started");
    }
    o->error_kind = *what;
  });
}

mlacheck_status mlacheck_outcome_set_o(mlacheck_outcome* o, const mlacheck_tensor* tensor, const uint8_t* unwritten) {
  return api_call("mlacheck_outcome_set_o", [&] {
    require(o, "outcome");
    require(tensor, "tensor");
    require_mla_outputs(o, "O");
    const mlacheck_mla_problem& r = o->of->abi->get();
    mlacheck::api::ReadOutput read =
        mlacheck::api::read_output("O", *tensor, o->of->prepared.problem.o_dtype,
                                   {{r.total_q_tokens, r.heads, r.kv_lora_rank}, {"total_q_tokens", "heads", "kv_lora_rank"}},
                                   unwritten);
    o->o = std::move(read.values);
    o->o_unwritten = std::move(read.unwritten);
    o->has_o = true;
  });
}

mlacheck_status mlacheck_outcome_set_lse(mlacheck_outcome* o, const mlacheck_tensor* tensor, int32_t base,
                                         const uint8_t* unwritten) {
  return api_call("mlacheck_outcome_set_lse", [&] {
    require(o, "outcome");
    require(tensor, "tensor");
    require_mla_outputs(o, "LSE");
    if (base != MLACHECK_LSE_NATURAL && base != MLACHECK_LSE_LOG2) {
      throw ApiError(MLACHECK_ERROR_INVALID_ARGUMENT,
                     "LSE base " + std::to_string(base) + " is not 0 (natural) or 1 (log2)");
    }
    const mlacheck_mla_problem& r = o->of->abi->get();
    mlacheck::api::ReadOutput read = mlacheck::api::read_output(
        "LSE", *tensor, mlacheck::DType::f32, {{r.total_q_tokens, r.heads}, {"total_q_tokens", "heads"}}, unwritten);
    // log2(sum exp2(s log2 e)) = ln(sum exp s) / ln 2: scale back in double, no rounding added.
    const double to_natural = base == MLACHECK_LSE_LOG2 ? std::numbers::ln2 : 1.0;
    o->lse.assign(read.values.size(), 0.0);
    for (std::size_t i = 0; i < read.values.size(); ++i) o->lse[i] = static_cast<double>(read.values[i]) * to_natural;
    o->lse_unwritten = std::move(read.unwritten);
    o->has_lse = true;
  });
}

mlacheck_status mlacheck_outcome_check_guards(mlacheck_outcome* o, const char* buffer, const void* allocation,
                                              uint64_t data_bytes) {
  return api_call("mlacheck_outcome_check_guards", [&] {
    require(o, "outcome");
    const std::string name = require(buffer, "buffer");
    const auto* bytes = static_cast<const std::byte*>(require(allocation, "allocation"));
    constexpr std::size_t g = mlacheck::kGuardBytes;
    const std::span<const std::byte, g> front(bytes, g);
    const std::span<const std::byte, g> back(bytes + g + data_bytes, g);
    for (const mlacheck::CanaryBreach& breach : mlacheck::find_guard_breaches(name, front, back)) {
      o->broken_canaries.push_back({breach.buffer, breach.side == mlacheck::GuardSide::front ? "before" : "after"});
    }
    o->guarded = true;
  });
}

mlacheck_status mlacheck_outcome_judge(mlacheck_outcome* o, mlacheck_verdict** out) {
  return api_call("mlacheck_outcome_judge", [&] {
    require(out, "out");
    *out = nullptr;
    require(o, "outcome");
    const mlacheck::Stopwatch clock;
    auto v = std::make_unique<mlacheck_verdict>();
    v->row = o->of->kind == MLACHECK_CASE_MLA_DECODE ? judge_mla(*o) : judge_other(*o);
    // Settled as every route settles a row; the caller's backend is external (plan/case_settle.hpp).
    mlacheck::settle_case(v->row, {o->of->run_case.origin, mlacheck::BackendKind::external, false,
                                   o->of->known_bugs.get()});
    // The caller's time around its backend plus the harness's own (the oracle, the comparison).
    if (o->of->kind != MLACHECK_CASE_ORACLE_SELF_CHECK) v->row.wall_ms += o->wall_ms + clock.ms();
    v->state = std::string(mlacheck::to_string(v->row.state));
    v->header = mlacheck::csv_header();
    v->record = mlacheck::csv_record(v->row);
    *out = v.release();
  });
}

}  // extern "C"
