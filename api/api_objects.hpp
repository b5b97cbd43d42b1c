#pragma once
// What the opaque handles of harness_api.h hold.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <set>
#include <memory>
#include <string>
#include <vector>

#include "api/abi_types.hpp"
#include "core/mla_sequence_inputs.hpp"
#include "device/staging/abi_problem.hpp"
#include "device/backend.hpp"
#include "harness/case_result.hpp"
#include "harness/mla_case.hpp"
#include "mlacheck/harness_api.h"
#include "plan/run_plan.hpp"
#include "scenarios/known_bugs.hpp"
#include "reports/report_folder.hpp"

// The known-bug table verdicts are settled with (plan/case_settle.hpp), shared by a plan and the
// cases opened from it.
using KnownBugTable = std::shared_ptr<const std::vector<mlacheck::scenarios::KnownBug>>;

struct mlacheck_plan {
  std::vector<mlacheck::RunCase> cases;
  KnownBugTable known_bugs;
  std::string space;           // canonical text of the property sweep's space; "" for none
  std::string space_excludes;  // what it excludes, "; "-joined
};

struct mlacheck_case {
  mlacheck::RunCase run_case;
  KnownBugTable known_bugs;
  mlacheck_case_kind kind = MLACHECK_CASE_MLA_DECODE;
  std::string unsupported_reason;  // kv_gather cases
  // mla_decode and oracle self-check cases: the problem and its row before anything ran; the
  // inputs and the oracle's outputs are filled on first need (the oracle is the costly part).
  mlacheck::PreparedMlaCase prepared;
  std::unique_ptr<const mlacheck::AbiMlaProblem> abi;  // the problem as backend_abi.h hands it out
  std::string fill;
  // The inputs as codes, once asked for.
  bool inputs_encoded = false;
  std::vector<std::byte> q_codes, cache_codes;
  std::vector<std::int32_t> qo_indptr, kv_indptr;
  // The cache by block (mlacheck_case_inputs_by_block), once asked for: the pool blocks the
  // requests read, ascending, and their codes one after another.
  bool blocks_encoded = false;
  std::vector<std::int32_t> block_ids;
  std::vector<std::byte> block_codes;
  // A decode sequence (api/sequence_api.cpp): joins and leaves per request, and the host model of
  // its cache, made by the first mlacheck_sequence_step_open and advanced one step per call.
  std::vector<std::int32_t> joins, leaves;
  std::unique_ptr<mlacheck::MlaSequenceInputs> sequence_host;
  // A step of a sequence: its index (-1 for other cases), the pool slots it wrote and their codes.
  int step = -1;
  std::vector<std::int64_t> written_slots;
  std::vector<std::byte> written_codes;
};

struct mlacheck_outcome {
  mlacheck_case* of = nullptr;
  std::string backend, backend_version, device, path;
  double device_ms = 0.0, wall_ms = 0.0;
  std::optional<std::string> skipped, errored;
  // Their kinds (mlacheck_outcome_set_skip_reason / _set_error_kind); these unless the caller says.
  mlacheck::SkipReason skip_reason = mlacheck::SkipReason::unsupported;
  mlacheck::ErrorKind error_kind = mlacheck::ErrorKind::backend_exception;
  bool has_o = false;
  std::vector<float> o;
  std::vector<std::uint8_t> o_unwritten;
  bool has_lse = false;
  std::vector<double> lse;  // natural log
  std::vector<std::uint8_t> lse_unwritten;
  bool guarded = false;
  std::vector<mlacheck::BrokenCanary> broken_canaries;
  mlacheck::PRoundingPoint p_rounding = mlacheck::PRoundingPoint::undeclared;
};

struct mlacheck_verdict {
  mlacheck::CaseResult row;
  std::string state, header, record;
  mutable std::string caught_by;  // mlacheck_verdict_disposition's text of caught_by(row)
};

struct mlacheck_report {
  // A Report replaces what the folder held, as a fresh report of the caller's choosing.
  explicit mlacheck_report(const std::string& dir) : folder(dir, mlacheck::ReportFolder::Mode::replace) {}
  mlacheck::ReportFolder folder;
  std::set<std::string> ids;
  std::optional<mlacheck::SupportSpace> space;  // report.html's backend-space section
};

namespace mlacheck::api {
// A support space argument of the C API: NULL or "" is none; malformed text is an ApiError
// (MLACHECK_ERROR_INVALID_ARGUMENT) naming the field.
std::optional<SupportSpace> parse_space_argument(const char* space);
}  // namespace mlacheck::api
