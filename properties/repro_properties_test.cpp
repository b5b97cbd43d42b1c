// Repro strings replay a case exactly: parsing the canonical form gives the descriptor back, and
// printing that gives the same string.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "core/mla_sequence.hpp"
#include "generators/gather_problem_gen.hpp"
#include "generators/mla_problem_gen.hpp"

namespace mlacheck {
namespace {

RC_GTEST_PROP(Repro, MlaDecodeRoundTrips, (const MlaDecodeProblem& p)) {
  const std::string repro = to_repro(p);
  const MlaDecodeProblem parsed = parse_mla_decode(repro);
  RC_ASSERT(parsed == p);
  RC_ASSERT(to_repro(parsed) == repro);
}

// Decode sequences (issue 13 item 3: steps, join and leave keys), drawn every time, and each of
// their steps as the one-step problem a backend runs.
RC_GTEST_PROP(Repro, MlaDecodeSequencesRoundTrip, ()) {
  const MlaDecodeProblem p = *gen_mla_decode_problem(MlaGenLimits{.sequence_percent = 100});
  RC_ASSERT(is_sequence(p));
  const std::string repro = to_repro(p);
  const MlaDecodeProblem parsed = parse_mla_decode(repro);
  RC_ASSERT(parsed == p);
  RC_ASSERT(to_repro(parsed) == repro);
  for (int s = 0; s < p.steps; ++s) {
    const MlaDecodeProblem step = sequence_step(p, s);
    RC_ASSERT(parse_mla_decode(to_repro(step)) == step);
  }
}

RC_GTEST_PROP(Repro, KvGatherRoundTrips, (const KvGatherProblem& p)) {
  const std::string repro = to_repro(p);
  const KvGatherProblem parsed = parse_kv_gather(repro);
  RC_ASSERT(parsed == p);
  RC_ASSERT(to_repro(parsed) == repro);
}

}  // namespace
}  // namespace mlacheck
