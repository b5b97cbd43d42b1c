#include "harness/oracle_self_check.hpp"

#include <algorithm>
#include <cmath>

#include "core/element_names.hpp"
#include "core/mla_inputs.hpp"
#include "harness/case_timing.hpp"
#include "reference/mla_decode_plain.hpp"
#include "reference/mla_decode_reference.hpp"

namespace mlacheck {

namespace {

struct Shape {
  const char* name;
  int total_heads, tp, lv, rope, block_size;
  std::vector<int> kv_lens, q_lens;
  DType kv_dtype;
  FillProfile profile = FillProfile::uniform;
  float kv_scale = 0.0625f;  // fp8 caches
};

// Two oracles that round at the same points agree to a few ulps of double; 1e-12 relative
// leaves room for the different summation orders without hiding a real disagreement.
Tolerance self_check_tolerance(const std::vector<double>& expected) {
  double scale = 0.0;
  for (double e : expected) scale = std::max(scale, std::abs(e));
  Tolerance t;
  t.rel = 1e-12;
  t.abs = 1e-12 * scale;
  t.rms = 1e-12;
  t.rule = "oracle self-check: |d| <= 1e-12*max|e| + 1e-12*|e|, rms <= 1e-12";
  return t;
}

}  // namespace

std::vector<MlaDecodeProblem> oracle_self_check_problems(std::uint64_t seed) {
  const std::vector<Shape> shapes = {
      {"deepseek-v3-tp8", 128, 8, 512, 64, 64, {300, 17, 1}, {1, 4, 1}, DType::bf16},
      {"kimi-k2.5-tp8", 64, 8, 512, 64, 16, {129, 64, 6}, {6, 3, 6}, DType::bf16},
      {"deepseek-v2-lite-tp2", 16, 2, 512, 64, 7, {50, 8}, {5, 7}, DType::fp8_e4m3fn},
      {"mistral-small-4", 32, 1, 256, 64, 1, {33, 2}, {2, 2}, DType::f16},
      {"twelve-head-rank", 96, 8, 128, 64, 16, {97}, {3}, DType::fp8_e4m3fnuz},
      // The fills that stress precision: scores and LSE in the hundreds with a dominant first key,
      // and fp8 codes from subnormal to near the largest finite at the largest per-tensor scale.
      {"deepseek-v3-tp8-sink", 128, 8, 512, 64, 16, {300, 17}, {2, 1}, DType::bf16, FillProfile::sink},
      {"kimi-k2.5-tp8-extreme", 64, 8, 512, 64, 16, {129, 6}, {3, 6}, DType::fp8_e4m3fn, FillProfile::extreme, 256.0f},
  };
  std::vector<MlaDecodeProblem> out;
  for (const Shape& s : shapes) {
    MlaDecodeProblem p;
    p.name = std::string("oracle-") + s.name;
    p.total_heads = s.total_heads;
    p.tp = s.tp;
    p.tp_rank = s.tp - 1;
    p.kv_lora_rank = s.lv;
    p.rope_dim = s.rope;
    p.block_size = s.block_size;
    p.kv_lens = s.kv_lens;
    p.q_lens = s.q_lens;
    p.kv_dtype = s.kv_dtype;
    if (is_fp8(s.kv_dtype)) p.kv_scale = s.kv_scale;
    p.profile = s.profile;
    p.seed = seed;
    out.push_back(with_defaults(p));
  }
  return out;
}

CaseResult run_oracle_self_check(const MlaDecodeProblem& p) {
  const Stopwatch wall;
  CaseResult row;
  row.id = p.name;
  row.op = "mla_decode";
  row.repro = to_repro(p);
  row.backend = "oracle-plain";
  row.device = "cpu";
  row.path = "oracle";
  try {
    const MlaDecodeInputs in = make_inputs(p);
    for (PRounding mode : {PRounding::none, PRounding::to_q_dtype}) {
      const Stopwatch ref_clock;
      const auto eigen = mla_decode_reference(p, in, mode);
      row.reference_ms += ref_clock.ms();
      const auto plain = mla_decode_plain(p, in, mode);
      const std::string suffix = mode == PRounding::none ? "" : " (P rounded)";
      const Tolerance to = self_check_tolerance(plain.o);
      const Tolerance tl = self_check_tolerance(plain.lse);
      row.tensors.push_back({"O" + suffix, compare(plain.o, eigen.o, to), to});
      name_elements(row.tensors.back(), mla_o_element_names(p));
      row.tensors.push_back({"LSE" + suffix, compare(plain.lse, eigen.lse, tl), tl});
      name_elements(row.tensors.back(), mla_lse_element_names(p));
    }
    const Verdict v = judge(row.tensors);
    row.state = v.state;
    row.reason = v.reason;
  } catch (const std::exception& e) {
    row.state = ResultState::errored;
    row.reason = e.what();
  }
  row.wall_ms = wall.ms();
  return row;
}

}  // namespace mlacheck
