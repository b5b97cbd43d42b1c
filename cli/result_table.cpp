#include "cli/result_table.hpp"

#include <algorithm>
#include <array>

namespace mlacheck::cli {

void print_row(std::FILE* out, const CaseResult& row, bool verbose) {
  const auto state = to_string(row.state);
  std::fprintf(out, "%-10.*s %-32s %-8s %-10s", static_cast<int>(state.size()), state.data(), row.id.c_str(),
               row.backend.c_str(), row.path.c_str());
  for (const ComparedTensor& t : row.tensors) {
    std::fprintf(out, " %s:max_abs=%.3g,rms_rel=%.3g", t.name.c_str(), t.stats.max_abs_err, t.stats.rms_rel_err);
  }
  if (!row.reason.empty()) std::fprintf(out, "  -- %s", row.reason.c_str());
  std::fprintf(out, "\n");
  if (verbose || is_failure(row.state)) {
    std::fprintf(out, "    repro: %s\n", row.repro.c_str());
    for (const ComparedTensor& t : row.tensors) std::fprintf(out, "    %s tolerance: %s\n", t.name.c_str(), t.tol.rule.c_str());
  }
}

int print_summary(std::FILE* out, std::span<const CaseResult> rows) {
  std::array<int, 6> counts{};
  for (const CaseResult& r : rows) ++counts[static_cast<std::size_t>(r.state)];
  std::fprintf(out, "%d passed, %d failed, %d skipped (not checked), %d errored, %d mistrusted, %d known bugs\n",
               counts[static_cast<std::size_t>(ResultState::passed)], counts[static_cast<std::size_t>(ResultState::failed)],
               counts[static_cast<std::size_t>(ResultState::skipped)],
               counts[static_cast<std::size_t>(ResultState::errored)],
               counts[static_cast<std::size_t>(ResultState::mistrusted)],
               counts[static_cast<std::size_t>(ResultState::known_bug)]);
  const bool any_failure = std::any_of(rows.begin(), rows.end(), [](const CaseResult& r) { return is_failure(r.state); });
  return any_failure ? 1 : 0;
}

void print_nothing_checked(std::FILE* out, std::span<const CaseResult> rows, const std::string& no_gpu_reason) {
  const auto on_cpu = std::count_if(rows.begin(), rows.end(), [](const CaseResult& r) { return r.path == "oracle"; });
  const auto device = static_cast<long>(rows.size()) - static_cast<long>(on_cpu);
  std::fprintf(out, "NOTHING WAS CHECKED ON A DEVICE: no GPU (%s); all %ld device cases are SKIPPED", no_gpu_reason.c_str(),
               device);
  if (on_cpu > 0) std::fprintf(out, "; only the %ld oracle self-checks ran (on the CPU)", static_cast<long>(on_cpu));
  std::fprintf(out, "\n");
}

}  // namespace mlacheck::cli
