// Repro strings replay a case exactly: parsing the canonical form gives the descriptor back, and
// printing that gives the same string.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "properties/support/gather_problem_gen.hpp"
#include "properties/support/mla_problem_gen.hpp"

namespace mlacheck {
namespace {

RC_GTEST_PROP(Repro, MlaDecodeRoundTrips, (const MlaDecodeProblem& p)) {
  const std::string repro = to_repro(p);
  const MlaDecodeProblem parsed = parse_mla_decode(repro);
  RC_ASSERT(parsed == p);
  RC_ASSERT(to_repro(parsed) == repro);
}

RC_GTEST_PROP(Repro, KvGatherRoundTrips, (const KvGatherProblem& p)) {
  const std::string repro = to_repro(p);
  const KvGatherProblem parsed = parse_kv_gather(repro);
  RC_ASSERT(parsed == p);
  RC_ASSERT(to_repro(parsed) == repro);
}

}  // namespace
}  // namespace mlacheck
