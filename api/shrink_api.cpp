// Shrinking through the C API: the loop of harness/case_shrink.hpp over a caller's callback, so a
// Python backend's failing case shrinks the way `mlacheck shrink` shrinks a plugin's.
#include <memory>
#include <string>

#include "api/api_call.hpp"
#include "api/api_objects.hpp"
#include "core/error.hpp"
#include "harness/case_shrink.hpp"
#include "reports/csv_writer.hpp"

using mlacheck::api::api_call;
using mlacheck::api::ApiError;
using mlacheck::api::require;

struct mlacheck_shrink {
  mlacheck::ShrinkResult result;
  std::string stop;
};

namespace {

// The judge callback returned NULL: the caller's own error, which it reports itself.
class JudgeFailed : public ApiError {
 public:
  JudgeFailed() : ApiError(MLACHECK_ERROR_INVALID_ARGUMENT, "the judge callback failed (returned NULL)") {}
};

mlacheck::MlaDecodeProblem case_to_shrink(const char* repro) {
  const std::string text = require(repro, "repro");
  try {
    return mlacheck::shrinkable_case(text);
  } catch (const std::invalid_argument& e) {
    throw ApiError(MLACHECK_ERROR_INVALID_ARGUMENT, e.what());
  }
}

mlacheck_verdict* new_verdict(mlacheck::CaseResult row) {
  auto v = std::make_unique<mlacheck_verdict>();
  v->row = std::move(row);
  v->state = std::string(mlacheck::to_string(v->row.state));
  v->header = mlacheck::csv_header();
  v->record = mlacheck::csv_record(v->row);
  return v.release();
}

}  // namespace

extern "C" {

mlacheck_status mlacheck_shrink_run(const char* repro, int32_t max_steps, double max_seconds,
                                    mlacheck_shrink_judge judge, void* user, mlacheck_shrink** out) {
  return api_call("mlacheck_shrink_run", [&] {
    require(out, "out");
    *out = nullptr;
    require(judge, "judge");
    const mlacheck::MlaDecodeProblem original = case_to_shrink(repro);
    if (max_steps < 1) throw ApiError(MLACHECK_ERROR_INVALID_ARGUMENT, "max_steps must be >= 1");
    if (!(max_seconds > 0.0)) throw ApiError(MLACHECK_ERROR_INVALID_ARGUMENT, "max_seconds must be > 0");
    const mlacheck::ShrinkJudge run = [&](const mlacheck::MlaDecodeProblem& p) {
      const mlacheck_verdict* v = judge(mlacheck::to_repro(p).c_str(), user);
      if (v == nullptr) throw JudgeFailed();
      return v->row;
    };
    auto s = std::make_unique<mlacheck_shrink>();
    s->result = mlacheck::shrink_mla_case(original, run, {.max_steps = max_steps, .max_seconds = max_seconds});
    s->stop = std::string(mlacheck::to_string(s->result.stop));
    *out = s.release();
  });
}

void mlacheck_shrink_free(mlacheck_shrink* s) { delete s; }

mlacheck_status mlacheck_shrink_summary(const mlacheck_shrink* s, const char** original, const char** shrunk,
                                        const char** failure, const char** stop) {
  return api_call("mlacheck_shrink_summary", [&] {
    require(s, "shrink");
    *require(original, "original") = s->result.original_repro.c_str();
    *require(shrunk, "shrunk") = s->result.shrunk_repro.c_str();
    *require(failure, "failure") = s->result.failure.c_str();
    *require(stop, "stop") = s->stop.c_str();
  });
}

mlacheck_status mlacheck_shrink_counts(const mlacheck_shrink* s, int32_t* candidates_run, int32_t* steps,
                                       double* seconds) {
  return api_call("mlacheck_shrink_counts", [&] {
    require(s, "shrink");
    *require(candidates_run, "candidates_run") = s->result.candidates_run;
    *require(steps, "steps") = static_cast<int32_t>(s->result.steps.size());
    *require(seconds, "seconds") = s->result.seconds;
  });
}

mlacheck_status mlacheck_shrink_step(const mlacheck_shrink* s, int32_t index, const char** change, const char** repro) {
  return api_call("mlacheck_shrink_step", [&] {
    require(s, "shrink");
    if (index < 0 || static_cast<std::size_t>(index) >= s->result.steps.size()) {
      throw ApiError(MLACHECK_ERROR_INVALID_ARGUMENT, "step " + std::to_string(index) + " is not in [0, " +
                                                          std::to_string(s->result.steps.size()) + ")");
    }
    const mlacheck::ShrinkStep& step = s->result.steps[static_cast<std::size_t>(index)];
    *require(change, "change") = step.change.c_str();
    *require(repro, "repro") = step.repro.c_str();
  });
}

mlacheck_status mlacheck_shrink_verdict(const mlacheck_shrink* s, int32_t which, mlacheck_verdict** out) {
  return api_call("mlacheck_shrink_verdict", [&] {
    require(out, "out");
    *out = nullptr;
    require(s, "shrink");
    if (which == 0) {
      mlacheck::CaseResult row = s->result.original_row;
      if (!s->result.failure.empty()) row.shrunk_repro = s->result.shrunk_repro;
      *out = new_verdict(std::move(row));
    } else if (which == 1) {
      *out = new_verdict(s->result.shrunk_row);
    } else {
      throw ApiError(MLACHECK_ERROR_INVALID_ARGUMENT, "which must be 0 (the original) or 1 (the result)");
    }
  });
}

}  // extern "C"
