#include "tests/test_op/host_copy_op.hpp"

#include <charconv>
#include <stdexcept>

#include "core/compare.hpp"

namespace mlacheck::test_op {

namespace {

long long parse_number(std::string_view key, std::string_view text) {
  long long v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || v < 0) {
    throw std::invalid_argument("host_copy: field '" + std::string(key) + "' is not a count: '" + std::string(text) + "'");
  }
  return v;
}

// A fixed generator, so the repro's seed replays the same input.
float seeded_value(std::uint64_t seed, int i) {
  std::uint64_t x = seed * 6364136223846793005ULL + static_cast<std::uint64_t>(i) * 1442695040888963407ULL + 1;
  x ^= x >> 29;
  return static_cast<float>(static_cast<std::int64_t>(x % 2001) - 1000) / 64.0f;
}

}  // namespace

HostCopyProblem parse_host_copy(std::string_view repro) {
  constexpr std::string_view prefix = "host_copy:";
  if (repro.substr(0, prefix.size()) != prefix) throw std::invalid_argument("host_copy: no 'host_copy:' prefix");
  HostCopyProblem p;
  bool has_n = false;
  std::string_view rest = repro.substr(prefix.size());
  while (!rest.empty()) {
    const std::string_view field = rest.substr(0, rest.find(';'));
    rest = field.size() == rest.size() ? std::string_view() : rest.substr(field.size() + 1);
    const std::size_t eq = field.find('=');
    if (eq == std::string_view::npos) throw std::invalid_argument("host_copy: field '" + std::string(field) + "' has no '='");
    const std::string_view key = field.substr(0, eq), value = field.substr(eq + 1);
    if (key == "name") {
      p.name = std::string(value);
    } else if (key == "n") {
      p.n = static_cast<int>(parse_number(key, value));
      has_n = p.n > 0;
    } else if (key == "seed") {
      p.seed = static_cast<std::uint64_t>(parse_number(key, value));
    } else if (key == "flip") {
      p.flip = static_cast<int>(parse_number(key, value));
    } else {
      throw std::invalid_argument("host_copy: unknown field '" + std::string(key) + "'");
    }
  }
  if (!has_n) throw std::invalid_argument("host_copy: n must be a positive count");
  if (p.flip && *p.flip >= p.n) throw std::invalid_argument("host_copy: flip is past the last element");
  return p;
}

std::string to_repro(const HostCopyProblem& p) {
  std::string out = "host_copy:name=" + p.name + ";n=" + std::to_string(p.n) + ";seed=" + std::to_string(p.seed);
  if (p.flip) out += ";flip=" + std::to_string(*p.flip);
  return out;
}

PreparedHostCopy HostCopyOp::prepare(const Problem& p, const Backend* backend, std::string_view unavailable_reason,
                                     const FaultSet& faults, int /*oracle_threads*/) {
  PreparedHostCopy out;
  out.problem = p;
  out.row.id = p.name;
  out.row.op = std::string(name);
  out.row.repro = to_repro(p);
  out.row.path = "host";
  if (!faults.empty()) out.row.faults = "faulted";
  if (backend == nullptr) {
    set_skipped(out.row, SkipReason::no_device, std::string(unavailable_reason));
    return out;
  }
  out.row.backend = backend->name();
  out.input.resize(static_cast<std::size_t>(p.n));
  out.expected.resize(out.input.size());
  for (int i = 0; i < p.n; ++i) {
    out.input[static_cast<std::size_t>(i)] = seeded_value(p.seed, i);
    out.expected[static_cast<std::size_t>(i)] = out.input[static_cast<std::size_t>(i)];  // the oracle: plain
  }
  out.ready_for_device = true;
  return out;
}

CaseResult HostCopyOp::finish(const Prepared& prepared, Backend* /*backend*/, const FaultSet& /*faults*/) {
  CaseResult row = prepared.row;
  if (!prepared.ready_for_device) return row;
  std::vector<float> copied = prepared.input;  // the "kernel"
  if (prepared.problem.flip) copied[static_cast<std::size_t>(*prepared.problem.flip)] *= -1.0f;
  const Tolerance exact{0.0, 0.0, 0.0, "bitwise"};
  const CompareStats stats = compare(prepared.expected, copied, exact);
  row.tensors.push_back({"C", stats, exact});
  row.canaries = "n/a";
  if (!within(stats, exact)) {
    row.state = ResultState::failed;
    row.fail_kind = FailKind::wrong_output;
    row.reason = "C: " + std::to_string(stats.mismatches) + " elements differ from the input";
  }
  return row;
}

CaseFacets HostCopyOp::facets(const Problem& p) {
  CaseFacets f;
  f.dtype = "fp32";
  f.kv_len = p.n;
  f.buckets = {p.flip ? "planted bug" : "plain copy"};
  return f;
}

const std::vector<std::string>& HostCopyOp::coverage_buckets() {
  static const std::vector<std::string> buckets = {"plain copy", "planted bug"};
  return buckets;
}

}  // namespace mlacheck::test_op
