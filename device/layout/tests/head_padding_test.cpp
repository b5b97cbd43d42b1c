// Head padding and un-padding on the device against the host twins (reference/head_padding.hpp),
// bitwise, for every head-padding mode and every row width the copy vectorises differently.
#include "reference/head_padding.hpp"

#include <gtest/gtest.h>

#include <span>
#include <string>
#include <tuple>
#include <vector>

#include "core/fill.hpp"
#include "core/mla_inputs.hpp"
#include "device/layout/tests/bitwise_equal.hpp"
#include "device/layout/tests/codes.hpp"
#include "device/layout/tests/layout_runs.hpp"
#include "device/layout/tests/on_device.hpp"

namespace mlacheck::layout::test {
namespace {

struct Widths {
  int lv;
  int rope;
};

using HeadCase = std::tuple<int, DType, Widths>;  // heads, q and o dtype (fp8: q and cache), latent widths

MlaDecodeProblem head_problem(const HeadCase& c) {
  MlaDecodeProblem p;
  p.name = "heads";
  p.total_heads = std::get<0>(c);
  p.q_dtype = p.o_dtype = std::get<1>(c);
  if (is_fp8(p.q_dtype)) {  // fp8 queries (issue 16) come with a cache of their type; O stays 16-bit
    p.kv_dtype = p.q_dtype;
    p.o_dtype = DType::bf16;
    p.q_scale = 0.3f;
  }
  p.kv_lora_rank = std::get<2>(c).lv;
  p.rope_dim = std::get<2>(c).rope;
  p.kv_lens = {5, 9, 3};
  p.q_lens = {1, 3, 2};  // 6 query tokens, a multi-token request among them
  return with_defaults(p);
}

// Names element i of a [tokens, heads, inner] array.
auto where_in(int heads, int inner) {
  return [heads, inner](std::size_t i) {
    const auto index = static_cast<int>(i);
    return "token " + std::to_string(index / inner / heads) + " head " + std::to_string(index / inner % heads) +
           " element " + std::to_string(index % inner);
  };
}

// Runs one copy on `values` (of dtype t) and compares it with the host twin's result.
void expect_copy_matches(HeadCopy which, const MlaDecodeProblem& p, DType t, const std::vector<float>& values,
                         const std::vector<float>& expected, int out_heads, int inner) {
  const std::size_t element = storage_bytes(t);
  const HeadCopyRun run = run_head_copy(which, p, encode_bytes(t, values), expected.size() * element);
  const std::vector<std::uint32_t> want = encode_codes(t, expected);
  const std::vector<std::uint32_t> got = codes_of(run.out, element);
  EXPECT_TRUE(bitwise_equal(std::span<const std::uint32_t>(want), std::span<const std::uint32_t>(got),
                            where_in(out_heads, inner)));
  EXPECT_TRUE(run.canaries.intact()) << run.canaries.describe();
}

class HeadPadding : public OnDevice<testing::TestWithParam<HeadCase>> {};

void expect_pad_q_matches(const MlaDecodeProblem& p) {
  const std::vector<float> q = make_inputs(p).q;
  const std::vector<float> expected = pad_heads(p, std::span<const float>(q), lk(p));
  expect_copy_matches(HeadCopy::pad_q, p, p.q_dtype, q, expected, padded_heads(p), lk(p));
}

TEST_P(HeadPadding, PadQMatchesHostTwin) { expect_pad_q_matches(head_problem(GetParam())); }

// fp8 queries pad as rows of bytes: Lk 576 and 320 in 16-byte words, Lk 20 in 4-byte and Lk 17 in
// 1-byte ones (O and LSE are un-padded as for 16-bit queries).
class Fp8QueryHeadPadding : public HeadPadding {};

TEST_P(Fp8QueryHeadPadding, PadQMatchesHostTwin) { expect_pad_q_matches(head_problem(GetParam())); }

TEST_P(HeadPadding, UnpadOMatchesHostTwin) {
  const MlaDecodeProblem p = head_problem(GetParam());
  std::vector<float> o_padded(static_cast<std::size_t>(total_q_tokens(p) * padded_heads(p) * p.kv_lora_rank));
  fill_tensor(o_padded, p.o_dtype, FillMode::random, p.seed, "o_padded");
  const std::vector<float> expected = unpad_heads(p, std::span<const float>(o_padded), p.kv_lora_rank);
  expect_copy_matches(HeadCopy::unpad_o, p, p.o_dtype, o_padded, expected, heads(p), p.kv_lora_rank);
}

TEST_P(HeadPadding, UnpadLseMatchesHostTwin) {
  const MlaDecodeProblem p = head_problem(GetParam());
  std::vector<float> lse_padded(static_cast<std::size_t>(total_q_tokens(p) * padded_heads(p)));
  fill_tensor(lse_padded, DType::f32, FillMode::random, p.seed, "lse_padded", 20.0f);
  const std::vector<float> expected = unpad_heads(p, std::span<const float>(lse_padded), 1);
  expect_copy_matches(HeadCopy::unpad_lse, p, DType::f32, lse_padded, expected, heads(p), 1);
}

std::string head_case_name(const testing::TestParamInfo<HeadCase>& param_info) {
  const auto& [heads, dtype, widths] = param_info.param;
  return "h" + std::to_string(heads) + "_" + std::string(to_string(dtype)) + "_lv" + std::to_string(widths.lv) +
         "_rope" + std::to_string(widths.rope);
}

// Heads: repeat-interleave (1, 2, 4, 8), none (16, 128), tile (12, 24, 40). Widths: DeepSeek
// (576 / 512), Mistral-Small-4 (320 / 256) and narrow rows whose bytes allow only 2-, 4- or 8-byte
// copies (Lk 17 and 20).
INSTANTIATE_TEST_SUITE_P(Grid, HeadPadding,
                         testing::Combine(testing::Values(1, 2, 4, 8, 12, 16, 24, 40, 128),
                                          testing::Values(DType::bf16, DType::f16, DType::f32),
                                          testing::Values(Widths{512, 64}, Widths{256, 64}, Widths{16, 1},
                                                          Widths{16, 4})),
                         head_case_name);
INSTANTIATE_TEST_SUITE_P(Grid, Fp8QueryHeadPadding,
                         testing::Combine(testing::Values(1, 2, 4, 8, 12, 16, 24),
                                          testing::Values(DType::fp8_e4m3fn, DType::fp8_e4m3fnuz),
                                          testing::Values(Widths{512, 64}, Widths{256, 64}, Widths{16, 1},
                                                          Widths{16, 4})),
                         head_case_name);

}  // namespace
}  // namespace mlacheck::layout::test
