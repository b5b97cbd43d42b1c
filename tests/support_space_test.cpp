// core/support_space: the canonical text round trip, validation errors naming the field, what a
// space contains and what it excludes of the property sweep's problem space.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "core/support_space.hpp"

namespace mlacheck {
namespace {

constexpr const char* kFlashInferLike =
    "space:lv_rope=512/64,512/0;dtypes=bf16/bf16/bf16,f16/f16/f16,bf16/fp8_e4m3fn/bf16;heads=16..128;bs=1,16,64;"
    "max_q=8;q_over_kv=1;max_pool=*;sequences=1;graph=1";

std::string error_of(const std::string& text) {
  try {
    parse_space(text);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(SupportSpace, CanonicalTextRoundTrips) {
  const SupportSpace s = parse_space(kFlashInferLike);
  EXPECT_EQ(to_text(s), kFlashInferLike);
  EXPECT_EQ(parse_space(to_text(s)), s);
  ASSERT_EQ(s.lv_rope.size(), 2u);
  EXPECT_EQ(s.lv_rope[1], (std::pair{512, 0}));
  EXPECT_EQ(s.dtypes[2], (DtypeCombo{DType::bf16, DType::fp8_e4m3fn, DType::bf16}));
  EXPECT_EQ(s.heads_min, 16);
  EXPECT_EQ(s.heads_max, 128);
  const SupportSpace listed = parse_space("heads=16,64;max_pool=4096;q_over_kv=0;sequences=0;graph=0");
  EXPECT_EQ(listed.head_list, (std::vector<int>{16, 64}));
  EXPECT_EQ(parse_space(to_text(listed)), listed);
  // Everything allowed: the empty text, and its canonical form of stars.
  EXPECT_EQ(parse_space(""), SupportSpace{});
  EXPECT_EQ(parse_space(to_text(SupportSpace{})), SupportSpace{});
}

TEST(SupportSpace, ErrorsNameTheField) {
  EXPECT_NE(error_of("lv_rope=512").find("'lv_rope'"), std::string::npos);
  EXPECT_NE(error_of("dtypes=bf16/fp9/bf16").find("'dtypes'"), std::string::npos);
  EXPECT_NE(error_of("dtypes=bf16/bf16/fp8_e4m3fn").find("O cannot be fp8"), std::string::npos);
  EXPECT_NE(error_of("dtypes=fp8_e4m3fn/bf16/bf16").find("'dtypes'"), std::string::npos);
  EXPECT_NE(error_of("heads=64..16").find("'heads'"), std::string::npos);
  EXPECT_NE(error_of("heads=0,16").find("'heads'"), std::string::npos);
  EXPECT_NE(error_of("bs=16,x").find("'bs'"), std::string::npos);
  EXPECT_NE(error_of("max_q=-1").find("'max_q'"), std::string::npos);
  EXPECT_NE(error_of("graph=2").find("'graph'"), std::string::npos);
  EXPECT_NE(error_of("bs=1;bs=2").find("given twice"), std::string::npos);
  EXPECT_NE(error_of("colour=red").find("unknown key 'colour'"), std::string::npos);
  EXPECT_NE(error_of("lv_rope=512/64,512/64").find("appears twice"), std::string::npos);
}

TEST(SupportSpace, ContainsNamesTheFirstFieldOutside) {
  const SupportSpace s = parse_space(kFlashInferLike);
  MlaDecodeProblem p = with_defaults(MlaDecodeProblem{});
  std::string why;
  EXPECT_TRUE(contains(s, p, &why));
  p.kv_lora_rank = 256;
  EXPECT_FALSE(contains(s, p, &why));
  EXPECT_EQ(why, "lv_rope 256/64");
  p.kv_lora_rank = 512;
  p.kv_dtype = DType::fp8_e4m3fnuz;
  EXPECT_FALSE(contains(s, p, &why));
  EXPECT_EQ(why, "dtypes bf16/fp8_e4m3fnuz/bf16");
  p.kv_dtype = DType::bf16;
  p.total_heads = 8;
  EXPECT_FALSE(contains(s, p, &why));
  EXPECT_EQ(why, "heads 8");
  p.total_heads = 16;
  p.q_lens = {1};
  p.kv_lens = {0};
  EXPECT_TRUE(contains(s, p));
  EXPECT_FALSE(contains(parse_space("q_over_kv=0"), p, &why));
  EXPECT_EQ(why, "q_over_kv: request 0");
}

TEST(SupportSpace, ExcludesListsWhatTheSweepCouldDrawButTheSpaceCannot) {
  const std::string text = space_excludes_text(parse_space(kFlashInferLike));
  for (const char* part : {"Lv 128, 256", "rope 16, 32, 48", "fp8 queries", "fp8_e4m3fnuz", "heads < 16"}) {
    EXPECT_NE(text.find(part), std::string::npos) << part << " missing from: " << text;
  }
  EXPECT_EQ(text.find("fp8_e4m3fn;"), std::string::npos) << text;  // e4m3fn caches are in the space
  EXPECT_EQ(text.find("heads >"), std::string::npos) << text;
  EXPECT_TRUE(space_excludes(SupportSpace{}).empty());
}

}  // namespace
}  // namespace mlacheck
