// Head padding: un-padding undoes padding, and decoding the padded problem (what a kernel sees)
// then un-padding gives the decode of the problem itself.
#include <numeric>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "core/mla_inputs.hpp"
#include "generators/mla_problem_gen.hpp"
#include "properties/support/closeness.hpp"
#include "properties/support/mla_case_edits.hpp"
#include "reference/head_padding.hpp"
#include "reference/mla_decode_reference.hpp"

namespace mlacheck {
namespace {

RC_GTEST_PROP(HeadPadding, UnpadUndoesPad, (const MlaDecodeProblem& p)) {
  // Distinct values, so any head read from the wrong place shows. Widths of q, O and LSE.
  for (const int inner : {lk(p), p.kv_lora_rank, 1}) {
    std::vector<double> x(static_cast<std::size_t>(total_q_tokens(p)) * static_cast<std::size_t>(heads(p)) *
                          static_cast<std::size_t>(inner));
    std::iota(x.begin(), x.end(), 0.0);
    const std::vector<double> padded = pad_heads<double>(p, x, inner);
    RC_ASSERT(padded.size() == x.size() / static_cast<std::size_t>(heads(p)) * static_cast<std::size_t>(padded_heads(p)));
    RC_ASSERT(unpad_heads<double>(p, padded, inner) == x);
  }
  RC_TAG(std::string(to_string(head_pad_mode(p))));
}

RC_GTEST_PROP(HeadPadding, PaddedDecodeUnpadsToTheDecode, (const MlaDecodeProblem& p)) {
  RC_PRE(head_pad_mode(p) != HeadPadMode::none);
  const MlaDecodeInputs in = make_inputs(p);
  const MlaCase padded = head_padded(p, in);
  const auto out = mla_decode_reference(padded.problem, padded.inputs);
  const auto expected = mla_decode_reference(p, in);
  // Padding changes the GEMM's row count and so Eigen's blocking: equal to rounding, not bits.
  RC_ASSERT(max_norm_relative_error(unpad_heads<double>(p, out.o, p.kv_lora_rank), expected.o) <= 1e-12);
  RC_ASSERT(max_norm_relative_error(unpad_heads<double>(p, out.lse, 1), expected.lse, 1.0) <= 1e-12);
  RC_TAG(std::string(to_string(head_pad_mode(p))));
}

}  // namespace
}  // namespace mlacheck
