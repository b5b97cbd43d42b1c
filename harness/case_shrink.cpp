#include "harness/case_shrink.hpp"

#include <cctype>
#include <chrono>

#include "core/compare.hpp"
#include "core/mla_shrink_candidates.hpp"
#include "harness/op_registry.hpp"

namespace mlacheck {

namespace {

std::string digits_masked(const std::string& text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (std::isdigit(static_cast<unsigned char>(text[i])) == 0) {
      out += text[i];
    } else if (i == 0 || std::isdigit(static_cast<unsigned char>(text[i - 1])) == 0) {
      out += '#';
    }
  }
  return out;
}

std::string_view error_kind(const CompareStats& s) {
  if (s.unwritten > 0) return "never written";
  if (s.nan_written > 0) return "NaN written";
  if (s.nonfinite > s.nan_written) return "Inf";
  return "values";
}

using Clock = std::chrono::steady_clock;

}  // namespace

std::string failure_class(const CaseResult& row) {
  if (!is_failure(row.state)) return "";
  if (row.state == ResultState::errored) {
    return "ERRORED " + std::string(to_string(row.error_kind)) + ": " + digits_masked(row.reason);
  }
  for (const ComparedTensor& t : row.tensors) {
    if (within(t.stats, t.tol)) continue;
    return "FAILED " + t.name.substr(0, t.name.find(' ')) + " " + std::string(error_kind(t.stats));
  }
  if (row.canaries.starts_with("broken")) return "FAILED canaries";
  return "FAILED " + std::string(to_string(row.fail_kind)) + ": " + digits_masked(row.reason);
}

std::string_view to_string(ShrinkStop s) {
  switch (s) {
    case ShrinkStop::not_failing:
      return "not failing";
    case ShrinkStop::minimal:
      return "minimal";
    case ShrinkStop::max_steps:
      return "max steps";
    case ShrinkStop::max_seconds:
      return "max seconds";
  }
  return "?";
}

ShrinkResult shrink_mla_case(const MlaDecodeProblem& original, const ShrinkJudge& judge, const ShrinkOptions& options) {
  const Clock::time_point start = Clock::now();
  const auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };
  ShrinkResult out;
  out.original_repro = to_repro(original);
  out.original_row = judge(original);
  out.failure = failure_class(out.original_row);
  out.shrunk_repro = out.original_repro;
  out.shrunk_row = out.original_row;
  if (out.failure.empty()) {
    out.stop = ShrinkStop::not_failing;
    out.seconds = elapsed();
    return out;
  }

  // The problems moved to, the original first; each later one a candidate of the one before.
  std::vector<MlaDecodeProblem> path{original};
  bool moved = true;
  while (moved) {
    moved = false;
    for (ShrinkCandidate& c : mla_shrink_candidates(path.back())) {
      if (out.candidates_run >= options.max_steps) {
        out.stop = ShrinkStop::max_steps;
        break;
      }
      if (elapsed() >= options.max_seconds) {
        out.stop = ShrinkStop::max_seconds;
        break;
      }
      ++out.candidates_run;
      if (failure_class(judge(c.problem)) != out.failure) continue;
      out.steps.push_back({std::move(c.change), to_repro(c.problem)});
      path.push_back(std::move(c.problem));
      moved = true;
      break;
    }
  }

  // The result is re-run: it must still fail the same way. Where it does not, step back.
  while (path.size() > 1) {
    CaseResult row = judge(path.back());
    if (failure_class(row) == out.failure) {
      out.shrunk_row = std::move(row);
      break;
    }
    ++out.reruns_not_failing;
    path.pop_back();
    out.steps.pop_back();
  }
  out.shrunk_repro = to_repro(path.back());
  out.seconds = elapsed();
  return out;
}

MlaDecodeProblem shrinkable_case(std::string_view repro) {
  const CaseProblem c = parse_case(repro);
  if (const auto* p = std::get_if<MlaDecodeProblem>(&c)) return *p;
  throw std::invalid_argument("shrinking takes " + std::string(MlaDecodeOp::name) + " cases; a " +
                              std::string(op_name(c)) + " case tests mlacheck's own kernels, not a backend");
}

}  // namespace mlacheck
