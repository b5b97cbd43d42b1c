// Descriptor validation, derived values and repro strings of mla_decode.
#include "core/mla_problem.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "core/error.hpp"
#include "properties/support/mla_test_problems.hpp"
#include "tests/rejected_field.hpp"

namespace mlacheck {
namespace {

MlaDecodeProblem deepseek_v3_tp8() {
  return with_defaults(on_tp_rank(test_problem("dsv3-tp8", 128, {{4096, 4096, 17, 1}, {1, 4, 6, 1}, 64}), 8, 3));
}

TEST(MlaProblem, DerivedValues) {
  const auto p = deepseek_v3_tp8();
  EXPECT_EQ(heads(p), 16);
  EXPECT_EQ(padded_heads(p), 16);
  EXPECT_EQ(lk(p), 576);
  EXPECT_DOUBLE_EQ(p.scale, 1.0 / std::sqrt(576.0));
  EXPECT_EQ(total_q_tokens(p), 12);
  EXPECT_EQ(blocks_needed(p), 64 + 64 + 1 + 1);
  EXPECT_EQ(p.num_blocks, blocks_needed(p));
  EXPECT_EQ(qo_indptr(p), (std::vector<int>{0, 1, 5, 11, 12}));
  EXPECT_EQ(kv_indptr(p), (std::vector<int>{0, 4096, 8192, 8209, 8210}));
}

TEST(MlaProblem, HeadPaddingFollowsUpstream) {
  MlaDecodeProblem p;
  p.total_heads = 64;
  p.tp = 8;  // Kimi-K2.5 at TP8: 8 heads, repeat-interleaved to 16
  EXPECT_EQ(head_pad_mode(p), HeadPadMode::repeat_interleave);
  EXPECT_EQ(padded_heads(p), 16);
  EXPECT_EQ(padded_head_source(p, 0), 0);
  EXPECT_EQ(padded_head_source(p, 1), 0);
  EXPECT_EQ(padded_head_source(p, 15), 7);
  EXPECT_EQ(unpadded_head_location(p, 7), 14);
  p.total_heads = 96;  // 12 per rank: tiled to 16, sliced [:12]
  EXPECT_EQ(head_pad_mode(p), HeadPadMode::tile);
  EXPECT_EQ(padded_heads(p), 16);
  EXPECT_EQ(padded_head_source(p, 13), 1);
  EXPECT_EQ(unpadded_head_location(p, 11), 11);
  p.total_heads = 40;
  p.tp = 1;  // 40 heads: next multiple of 16
  EXPECT_EQ(padded_heads(p), 48);
  EXPECT_EQ(head_pad_mode(p), HeadPadMode::tile);
  p.total_heads = 128;
  EXPECT_EQ(head_pad_mode(p), HeadPadMode::none);
  EXPECT_EQ(padded_heads(p), 128);
}

TEST(MlaProblem, ValidationNamesTheField) {
  auto base = deepseek_v3_tp8();
  EXPECT_EQ(rejected_field(base), "");
  auto p = base;
  p.q_lens[2] = 18;  // q_len > kv_len
  EXPECT_EQ(rejected_field(p), "q");
  p = base;
  p.block_size = 0;
  EXPECT_EQ(rejected_field(p), "bs");
  p = base;
  p.tp = 3;  // does not divide 128
  EXPECT_EQ(rejected_field(p), "tp");
  p = base;
  p.tp_rank = 8;
  EXPECT_EQ(rejected_field(p), "rank");
  p = base;
  p.kv_lora_rank = 500;  // not a multiple of 16
  EXPECT_EQ(rejected_field(p), "lv");
  p = base;
  p.num_blocks = blocks_needed(p) - 1;
  EXPECT_EQ(rejected_field(p), "blocks");
  p = base;
  p.q_lens.pop_back();
  EXPECT_EQ(rejected_field(p), "q");
  p = base;
  p.kv_lens[0] = -1;
  EXPECT_EQ(rejected_field(p), "kv");
  p = base;
  p.kv_scale = 0.5f;  // a scale on a bf16 cache
  EXPECT_EQ(rejected_field(p), "kv_scale");
  p.kv_dtype = DType::fp8_e4m3fnuz;
  EXPECT_EQ(rejected_field(p), "");
  p.kv_scale = -1.0f;
  EXPECT_EQ(rejected_field(p), "kv_scale");
  p = base;
  p.o_dtype = DType::fp8_e4m3fn;
  EXPECT_EQ(rejected_field(p), "o_dtype");
  // fp8 queries (issue 16): against a cache of the same fp8 type, with a scale of their own.
  p = base;
  p.q_dtype = DType::fp8_e4m3fn;
  EXPECT_EQ(rejected_field(p), "q_dtype");  // a bf16 cache
  p.kv_dtype = DType::fp8_e4m3fnuz;
  EXPECT_EQ(rejected_field(p), "q_dtype");  // fn queries, fnuz cache
  p.kv_dtype = DType::fp8_e4m3fn;
  p.q_scale = 0.0625f;
  EXPECT_EQ(rejected_field(p), "");
  p.q_scale = std::numeric_limits<float>::infinity();
  EXPECT_EQ(rejected_field(p), "q_scale");
  p = base;
  p.q_scale = 2.0f;  // a scale on bf16 queries
  EXPECT_EQ(rejected_field(p), "q_scale");
  p = base;
  p.scale = std::nan("");
  EXPECT_EQ(rejected_field(p), "scale");
  p = base;
  p.name = "has space";
  EXPECT_EQ(rejected_field(p), "name");
  p = base;
  p.num_splits = -1;
  EXPECT_EQ(rejected_field(p), "splits");
}

TEST(MlaProblem, PaddedRequestsHaveNoKvAndAnyQLen) {
  auto p = deepseek_v3_tp8();
  p.kv_lens = {0, 4096, 0, 17};
  p.q_lens = {1, 4, 6, 1};  // a padded MTP request keeps its 6 query rows
  p.num_blocks = 0;
  p = with_defaults(p);
  EXPECT_EQ(rejected_field(p), "");
  EXPECT_EQ(blocks_for(p, 0), 0);
  EXPECT_EQ(blocks_needed(p), 64 + 1);
  EXPECT_EQ(kv_indptr(p), (std::vector<int>{0, 0, 4096, 4096, 4113}));
  for (int t = 0; t < 6; ++t) EXPECT_EQ(visible_kv(p, 2, t), 0) << "row " << t;
  EXPECT_EQ(visible_kv(p, 1, 0), 4093);
  EXPECT_EQ(visible_kv(p, 1, 3), 4096);
  // Only a padded request may hold more query rows than cached tokens.
  p.kv_lens[3] = 1;
  p.q_lens[3] = 2;
  EXPECT_EQ(rejected_field(p), "q");
  // A batch of padding alone has nothing a comparison could check.
  p.kv_lens = {0, 0, 0, 0};
  p.num_blocks = 1;
  EXPECT_EQ(rejected_field(p), "kv");
}

TEST(MlaProblem, PaddedRequestsAndOversizedSplitsRoundTrip) {
  auto p = deepseek_v3_tp8();
  p.kv_lens = {0, 9, 0, 0, 3000};
  p.q_lens = {4, 1, 1, 1, 2};
  p.num_splits = 4096;  // far more splits than the short requests have tokens
  p.num_blocks = 0;
  p = with_defaults(p);
  const std::string line = to_repro(p);
  EXPECT_NE(line.find("kv=0,9,0*2,3000"), std::string::npos) << line;
  EXPECT_EQ(parse_mla_decode(line), p) << line;
  EXPECT_EQ(to_repro(parse_mla_decode(line)), line);
}

TEST(MlaProblem, MessageNamesFieldAndValue) {
  auto p = deepseek_v3_tp8();
  p.block_size = 0;
  try {
    validate(p);
    FAIL() << "block_size 0 was accepted";
  } catch (const InvalidProblem& e) {
    EXPECT_NE(std::string(e.what()).find("bs=0"), std::string::npos) << e.what();
  }
}

TEST(MlaProblem, ReproRoundTrips) {
  auto p = deepseek_v3_tp8();
  p.kv_dtype = DType::fp8_e4m3fn;
  p.kv_scale = 0.1f;
  p.path = DecodePath::persistent;
  p.num_splits = 3;
  p.fill = FillMode::exact;
  p.seed = 0xFFFFFFFFFFFFFFFFull;
  const std::string line = to_repro(p);
  EXPECT_EQ(parse_mla_decode(line), p) << line;
  EXPECT_EQ(to_repro(parse_mla_decode(line)), line);
  EXPECT_NE(line.find("kv=4096*2,17,1"), std::string::npos) << line;
}

// q_scale is written for fp8 queries only, so every repro string of a 16-bit query stays as it was.
TEST(MlaProblem, Fp8QueriesRoundTripWithTheirScale) {
  auto p = deepseek_v3_tp8();
  EXPECT_EQ(to_repro(p).find("q_scale"), std::string::npos);
  for (DType t : {DType::fp8_e4m3fn, DType::fp8_e4m3fnuz}) {
    p.q_dtype = t;
    p.kv_dtype = t;
    p.q_scale = 0.013671875f;
    p.kv_scale = 3.5f;
    const std::string line = to_repro(p);
    EXPECT_NE(line.find(";kv_scale=3.5;q_scale=0.013671875;"), std::string::npos) << line;
    EXPECT_EQ(parse_mla_decode(line), p) << line;
    EXPECT_EQ(to_repro(parse_mla_decode(line)), line);
  }
  try {
    parse_mla_decode("mla_decode:kv=4;q_dtype=bf16;q_scale=2");
    FAIL() << "a q_scale on bf16 queries was accepted";
  } catch (const InvalidProblem& e) {
    EXPECT_NE(std::string(e.what()).find("q_scale=2"), std::string::npos) << e.what();
  }
}

TEST(MlaProblem, FillProfileRoundTripsAndOldReprosReadAsUniform) {
  auto p = deepseek_v3_tp8();
  for (FillProfile profile : {FillProfile::uniform, FillProfile::sink, FillProfile::extreme}) {
    p.profile = profile;
    const std::string line = to_repro(p);
    EXPECT_EQ(parse_mla_decode(line), p) << line;
    EXPECT_NE(line.find(";profile=" + std::string(to_string(profile))), std::string::npos) << line;
  }
  // A repro string written before fill profiles existed has no profile key: the same problem as
  // before, uniform, whose canonical form now ends in profile=uniform.
  const std::string old =
      "mla_decode:name=case;heads=16;tp=1;rank=0;lv=512;rope=64;scale=0.041666666666666664;kv=17;q=1;bs=16;blocks=2;"
      "q_dtype=bf16;kv_dtype=bf16;o_dtype=bf16;kv_scale=1;path=auto;splits=0;fill=random;seed=7";
  const MlaDecodeProblem parsed = parse_mla_decode(old);
  EXPECT_EQ(parsed.profile, FillProfile::uniform);
  EXPECT_EQ(to_repro(parsed), old + ";profile=uniform");
  EXPECT_THROW(parse_mla_decode("mla_decode:kv=4;profile=spiky"), ReproParseError);
  try {
    parse_mla_decode("mla_decode:kv=4;fill=exact;profile=sink");
    FAIL() << "a shaped profile with exact fill was accepted";
  } catch (const InvalidProblem& e) {
    EXPECT_NE(std::string(e.what()).find("profile=sink"), std::string::npos) << e.what();
  }
}

TEST(MlaProblem, ParseFillsDefaults) {
  const auto p = parse_mla_decode("mla_decode:heads=16;kv=100*3");
  EXPECT_EQ(p.q_lens, (std::vector<int>{1, 1, 1}));
  EXPECT_EQ(p.num_blocks, 3 * 7);
  EXPECT_DOUBLE_EQ(p.scale, 1.0 / 24.0);
}

TEST(MlaProblem, ParseRejectsMalformedInput) {
  const char* bad[] = {
      "kv_gather:heads=16",                 // wrong operation
      "mla_decode:heads=16;heads=32",       // repeated key
      "mla_decode:heads=16;colour=blue",    // unknown key
      "mla_decode:heads=sixteen",           // not a number
      "mla_decode:heads",                   // no value
      "mla_decode:kv=5*0",                  // empty run
      "mla_decode:path=fast",               // unknown enum
      "mla_decode:q_dtype=bf17",            // unknown dtype
      "mla_decode:scale=inf",               // not finite
  };
  for (const char* line : bad) {
    EXPECT_THROW(parse_mla_decode(line), ReproParseError) << line;
  }
  EXPECT_THROW(parse_mla_decode("mla_decode:kv=4;q=5"), InvalidProblem);
  EXPECT_THROW(parse_mla_decode("mla_decode:kv=0*3"), InvalidProblem);  // padding alone
  EXPECT_EQ(parse_mla_decode("mla_decode:kv=0,5;q=3,1").kv_lens, (std::vector<int>{0, 5}));
}

}  // namespace
}  // namespace mlacheck
