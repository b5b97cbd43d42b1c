#pragma once
// rapidcheck generation of valid mla_decode problems, sized so that small cases come first.
#include <ostream>

#include <rapidcheck.h>

#include "core/mla_problem.hpp"

namespace mlacheck {

// Upper bounds reached at rapidcheck's largest size. The defaults keep a case cheap enough for the
// plain-loop oracle on a CPU.
struct MlaGenLimits {
  int max_batch = 4;
  int max_kv_len = 600;
};

// Heads and TP from real models (DeepSeek-V3 128, Kimi-K2 64, DeepSeek-V2-Lite 16,
// Mistral-Small-4 32, a 96-head model) and random splits; q_len 1..8 leaning on the non-powers of
// two 3, 5, 6, 7; cache lengths from the kernels' geometry; block sizes 1, 16, 64 and random;
// (Lv, rope) of real models and random multiples of 16; every dtype combination validate()
// accepts. The result has with_defaults() applied and passes validate().
rc::Gen<MlaDecodeProblem> gen_mla_decode_problem(MlaGenLimits limits = {});

// Counterexamples print as their repro string, ready for `mlacheck run --case`.
void showValue(const MlaDecodeProblem& p, std::ostream& os);

}  // namespace mlacheck

namespace rc {
template <>
struct Arbitrary<mlacheck::MlaDecodeProblem> {
  static Gen<mlacheck::MlaDecodeProblem> arbitrary() { return mlacheck::gen_mla_decode_problem(); }
};
}  // namespace rc
