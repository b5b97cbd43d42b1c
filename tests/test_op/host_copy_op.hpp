#pragma once
// A test op, host_copy: copies `n` seeded floats on the host and checks the copy bitwise against
// the input. It lives in this folder alone and joins an op list only in host_copy_op_test.cpp's
// `TestOps`, to prove that an op is added by its folder and one registration line
// (docs/design.md, "The operation registry"). `flip=i` makes the "kernel" negate element i, a
// planted bug the comparison must catch.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "device/backend.hpp"
#include "harness/case_facets.hpp"
#include "harness/case_result.hpp"

namespace mlacheck::test_op {

struct HostCopyProblem {
  std::string name;
  int n = 0;
  std::uint64_t seed = 0;
  std::optional<int> flip;  // the element the kernel negates; none for a correct copy
};

// "host_copy:name=a;n=16;seed=3[;flip=2]"; throws std::invalid_argument naming the bad field.
HostCopyProblem parse_host_copy(std::string_view repro);
std::string to_repro(const HostCopyProblem& p);

struct PreparedHostCopy {
  HostCopyProblem problem;
  CaseResult row;
  std::vector<float> input;
  std::vector<double> expected;
  bool ready_for_device = false;
};

struct HostCopyOp {
  using Problem = HostCopyProblem;
  using Prepared = PreparedHostCopy;
  static constexpr std::string_view name = "host_copy";
  static Problem parse(std::string_view repro) { return parse_host_copy(repro); }
  static Prepared prepare(const Problem& p, const Backend* backend, std::string_view unavailable_reason,
                          const FaultSet& faults, int oracle_threads);
  static CaseResult finish(const Prepared& prepared, Backend* backend, const FaultSet& faults);
  static double work(const Problem& p) { return static_cast<double>(p.n); }
  static CaseFacets facets(const Problem& p);
  static const std::vector<std::string>& coverage_buckets();
  static constexpr bool has_queries = false;
  static constexpr std::array<std::string_view, 1> report_groups = {"C"};
};

}  // namespace mlacheck::test_op
