#include "device/staging/abi_problem.hpp"

#include <gtest/gtest.h>

#include <string>

#include "core/error.hpp"
#include "properties/support/mla_test_problems.hpp"

namespace mlacheck {
namespace {

MlaDecodeProblem speculative_problem() {
  MlaDecodeProblem p = on_tp_rank(small_latent_problem("abi_case", 32, {{5, 40, 17}, {1, 3, 2}}), 2, 1);
  p = with_dtypes(p, DType::bf16, DType::fp8_e4m3fn, DType::f16, 0.5f);
  p.path = DecodePath::persistent;
  p.seed = 99;
  return with_defaults(p);
}

TEST(AbiMlaProblem, CarriesEveryFieldAndTheDerivedSizes) {
  const MlaDecodeProblem p = speculative_problem();
  const AbiMlaProblem abi(p);
  const mlacheck_mla_problem& a = abi.get();
  EXPECT_EQ(a.struct_size, sizeof(mlacheck_mla_problem));
  EXPECT_EQ(std::string(a.name), "abi_case");
  EXPECT_EQ(parse_mla_decode(a.repro), p);
  EXPECT_EQ(a.total_heads, 32);
  EXPECT_EQ(a.tp, 2);
  EXPECT_EQ(a.tp_rank, 1);
  EXPECT_EQ(a.kv_lora_rank, 64);
  EXPECT_EQ(a.rope_dim, 16);
  EXPECT_EQ(a.scale, p.scale);
  EXPECT_EQ(a.block_size, 16);
  EXPECT_EQ(a.num_blocks, blocks_needed(p));
  EXPECT_EQ(a.q_dtype, MLACHECK_DTYPE_BF16);
  EXPECT_EQ(a.kv_dtype, MLACHECK_DTYPE_FP8_E4M3FN);
  EXPECT_EQ(a.o_dtype, MLACHECK_DTYPE_F16);
  EXPECT_EQ(a.kv_scale, 0.5f);
  EXPECT_EQ(a.path, MLACHECK_PATH_PERSISTENT);
  EXPECT_EQ(a.num_splits, 0);
  EXPECT_EQ(a.seed, 99u);
  EXPECT_EQ(a.heads, 16);
  EXPECT_EQ(a.lk, 80);
  EXPECT_EQ(a.batch, 3);
  EXPECT_EQ(a.total_q_tokens, 6);
  EXPECT_EQ(a.total_kv_tokens, 62);
  EXPECT_EQ(a.max_q_len, 3);
  EXPECT_EQ(a.max_kv_len, 40);
  EXPECT_EQ(a.max_blocks_per_request, 3);
  for (int r = 0; r < 3; ++r) {
    EXPECT_EQ(a.kv_lens[r], p.kv_lens[static_cast<std::size_t>(r)]);
    EXPECT_EQ(a.q_lens[r], p.q_lens[static_cast<std::size_t>(r)]);
  }
}

TEST(AbiMlaProblem, AppliesDefaultsAndRefusesAnInvalidProblem) {
  MlaDecodeProblem p;
  p.kv_lens = {33};
  const AbiMlaProblem abi(p);
  EXPECT_GT(abi->scale, 0.0);
  EXPECT_EQ(abi->num_blocks, 3);
  p.total_heads = 0;
  EXPECT_THROW(AbiMlaProblem{p}, InvalidProblem);
}

TEST(ProblemFromAbi, RecoversTheDescriptor) {
  const MlaDecodeProblem p = speculative_problem();
  const AbiMlaProblem abi(p);
  EXPECT_EQ(problem_from_abi(abi.get()), p);
}

TEST(ProblemFromAbi, NamesAFieldThatDisagreesWithTheRepro) {
  const AbiMlaProblem abi(speculative_problem());
  mlacheck_mla_problem changed = abi.get();
  changed.heads = 8;
  try {
    (void)problem_from_abi(changed);
    FAIL() << "a struct disagreeing with its repro was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("heads"), std::string::npos) << e.what();
  }
  const std::int32_t other_lens[] = {5, 41, 17};
  changed = abi.get();
  changed.kv_lens = other_lens;
  try {
    (void)problem_from_abi(changed);
    FAIL() << "kv_lens disagreeing with the repro were accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("kv_lens[1]"), std::string::npos) << e.what();
  }
}

TEST(ProblemFromAbi, RefusesAMissingReproOrAShortStruct) {
  const AbiMlaProblem abi(speculative_problem());
  mlacheck_mla_problem changed = abi.get();
  changed.repro = nullptr;
  EXPECT_THROW((void)problem_from_abi(changed), std::invalid_argument);
  changed = abi.get();
  changed.struct_size = 8;
  EXPECT_THROW((void)problem_from_abi(changed), std::invalid_argument);
  changed = abi.get();
  changed.repro = "mla_decode:heads=zero";
  EXPECT_THROW((void)problem_from_abi(changed), ReproParseError);
}

TEST(AbiDtype, MapsEveryDtypeBothWays) {
  for (DType t : {DType::f32, DType::bf16, DType::f16, DType::fp8_e4m3fn, DType::fp8_e4m3fnuz}) {
    EXPECT_EQ(dtype_from_abi(abi_dtype(t), "test"), t);
  }
  try {
    (void)dtype_from_abi(MLACHECK_DTYPE_INT32, "o_dtype");
    FAIL() << "int32 was accepted as a floating-point dtype";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("o_dtype"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace mlacheck
