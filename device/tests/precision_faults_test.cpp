// The precision faults on the host: their names parse (and stay out of the kill matrix's list),
// each maps onto exactly one field of the intermediate-precision setting, and each kernel point
// of precision_fault_points.hpp hands back the same bits unless its own fault is on -- so the
// correct kernels compute what they computed before the points were put in -- and rounds once
// to its type when it is.
#include "device/precision_faults.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "device/faults.hpp"
#include "device/kernels/precision_fault_points.hpp"

namespace mlacheck {
namespace {

using namespace kernels;

TEST(PrecisionFaultNames, EveryNameRoundTripsAndIsDistinct) {
  std::set<std::string> names;
  for (Fault f : kAllFaults) names.insert(std::string(to_string(f)));
  for (Fault f : kPrecisionFaults) {
    const std::string name(to_string(f));
    EXPECT_EQ(name.rfind("precision-", 0), 0u) << name;
    EXPECT_TRUE(names.insert(name).second) << name << " is named twice";
    EXPECT_EQ(parse_fault(name), f) << name;
  }
  EXPECT_EQ(parse_fault("precision-running-o-fp16"), Fault::precision_running_o_fp16);
  EXPECT_EQ(parse_fault("precision-running-o"), std::nullopt);
  EXPECT_EQ(parse_fault("PRECISION-LSE-BF16"), std::nullopt);
}

TEST(PrecisionFaultNames, StayOutOfTheKillMatrixList) {
  for (Fault f : kPrecisionFaults) {
    EXPECT_EQ(std::count(std::begin(kAllFaults), std::end(kAllFaults), f), 0) << to_string(f);
  }
}

int changed_fields(const IntermediatePrecision& s) {
  const IntermediatePrecision clean;
  return (s.partial_o != clean.partial_o) + (s.running_o != clean.running_o) + (s.row_sum != clean.row_sum) +
         (s.row_max != clean.row_max) + (s.lse != clean.lse) + (s.softmax_scale != clean.softmax_scale) +
         (s.drop_one_key_from_normaliser != clean.drop_one_key_from_normaliser);
}

TEST(IntermediatePrecision, EachFaultChangesExactlyOneFieldAndNoTwoAgree) {
  std::vector<IntermediatePrecision> seen;
  for (Fault f : kPrecisionFaults) {
    const auto s = precision_fault_setting(f);
    ASSERT_TRUE(s.has_value()) << to_string(f);
    EXPECT_EQ(changed_fields(*s), 1) << to_string(f);
    EXPECT_EQ(std::count(seen.begin(), seen.end(), *s), 0) << to_string(f) << " repeats another fault's setting";
    seen.push_back(*s);
  }
  for (Fault f : kAllFaults) EXPECT_EQ(precision_fault_setting(f), std::nullopt) << to_string(f);
  EXPECT_EQ(precision_fault_setting(Fault::precision_running_o_fp16)->running_o, DType::f16);
  EXPECT_EQ(precision_fault_setting(Fault::precision_lse_bf16)->lse, DType::bf16);
  EXPECT_TRUE(precision_fault_setting(Fault::precision_row_sum_drops_key)->drop_one_key_from_normaliser);
}

TEST(PrecisionFaultBits, OneDistinctBitPerPrecisionFaultNoneForTheOthers) {
  std::uint32_t all = 0;
  for (Fault f : kPrecisionFaults) {
    const std::uint32_t bit = precision_fault_bit(f);
    EXPECT_EQ(std::popcount(bit), 1) << to_string(f);
    EXPECT_EQ(all & bit, 0u) << to_string(f) << " shares a bit";
    all |= bit;
    EXPECT_EQ(precision_fault_bits(FaultSet{f}), bit) << to_string(f);
  }
  for (Fault f : kAllFaults) EXPECT_EQ(precision_fault_bits(FaultSet{f}), 0u) << to_string(f);
  EXPECT_EQ(precision_fault_bits(FaultSet{}), 0u);
  EXPECT_EQ(precision_fault_bits(FaultSet{Fault::precision_lse_bf16, Fault::tile_width_from_lk}), kLseBf16);
}

// Values a kernel meets at the points: signed, tiny, huge, subnormal, the specials, and values
// no 16-bit type holds exactly.
std::vector<float> probe_values() {
  std::vector<float> v = {0.0f,
                          -0.0f,
                          1.0f,
                          -1.0f,
                          0.1f,
                          1.0f / 3.0f,
                          7.4281f,
                          -123.456f,
                          65519.0f,
                          70000.0f,
                          3.0e38f,
                          1.0e-30f,
                          std::numeric_limits<float>::denorm_min(),
                          std::numeric_limits<float>::infinity(),
                          -std::numeric_limits<float>::infinity(),
                          std::numeric_limits<float>::quiet_NaN()};
  std::uint32_t x = 0x12345678u;
  for (int i = 0; i < 2000; ++i) {
    x = x * 1664525u + 1013904223u;  // every bit pattern class, deterministic
    v.push_back(std::bit_cast<float>(x));
  }
  return v;
}

// Each point, with the bit that switches it on and the type it rounds through.
struct Point {
  const char* name;
  float (*apply)(float, std::uint32_t);
  std::uint32_t bit;
  bool f16;  // rounds through fp16, else bf16
};

const Point kPoints[] = {
    {"stored_partial_o", stored_partial_o, kPartialOBf16, false},
    {"stored_running_o bf16", stored_running_o, kRunningOBf16, false},
    {"stored_running_o fp16", stored_running_o, kRunningOF16, true},
    {"stored_row_sum", stored_row_sum, kRowSumBf16, false},
    {"stored_row_max", stored_row_max, kRowMaxBf16, false},
    {"computed_lse", computed_lse, kLseBf16, false},
    {"taken_softmax_scale", taken_softmax_scale, kSoftmaxScaleBf16, false},
};

std::uint32_t bits_of(float f) { return std::bit_cast<std::uint32_t>(f); }

TEST(PrecisionFaultPoints, EveryPointIsTheIdentityUnlessItsOwnFaultIsOn) {
  for (const Point& p : kPoints) {
    // Off, and on for every other precision fault: the same bits, NaN payloads included.
    std::vector<std::uint32_t> others = {0u};
    for (Fault f : kPrecisionFaults) {
      const std::uint32_t bit = precision_fault_bit(f);
      const bool shares_point = p.apply == stored_running_o ? (bit & kRunningOAny) != 0 : bit == p.bit;
      if (!shares_point) others.push_back(bit);
    }
    for (std::uint32_t bits : others) {
      for (float v : probe_values()) {
        ASSERT_EQ(bits_of(p.apply(v, bits)), bits_of(v)) << p.name << " changed " << v << " with bits " << bits;
      }
    }
  }
}

TEST(PrecisionFaultPoints, ASwitchedOnPointRoundsOnceToItsType) {
  for (const Point& p : kPoints) {
    int changed = 0;
    for (float v : probe_values()) {
      const float expected = p.f16 ? to_float(from_float<f16_t>(v)) : to_float(from_float<bf16_t>(v));
      const float got = p.apply(v, p.bit);
      if (std::isnan(expected)) {
        EXPECT_TRUE(std::isnan(got)) << p.name;
      } else {
        ASSERT_EQ(bits_of(got), bits_of(expected)) << p.name << " at " << v;
      }
      changed += bits_of(got) != bits_of(v);
    }
    EXPECT_GT(changed, 1000) << p.name << " rounds almost nothing";
  }
  // Exactly the precision of the type: bf16 keeps 8 significant bits, fp16 11.
  EXPECT_EQ(stored_running_o(1.0f + 1.0f / 256.0f, kRunningOBf16), 1.0f);
  EXPECT_EQ(stored_running_o(1.0f + 1.0f / 128.0f, kRunningOBf16), 1.0f + 1.0f / 128.0f);
  EXPECT_EQ(stored_running_o(1.0f + 1.0f / 256.0f, kRunningOF16), 1.0f + 1.0f / 256.0f);
  EXPECT_EQ(stored_running_o(1.0f + 1.0f / 4096.0f, kRunningOF16), 1.0f);
}

TEST(PrecisionFaultPoints, OnlyTheFirstKeyOfARangeLeavesTheRowSum) {
  for (std::int64_t key : {0, 1, 63, 64, 4096}) {
    EXPECT_TRUE(key_in_row_sum(key, 0u)) << key;
    EXPECT_TRUE(key_in_row_sum(key, ~kRowSumDropsKey)) << key;
    EXPECT_EQ(key_in_row_sum(key, kRowSumDropsKey), key != 0) << key;
  }
}

}  // namespace
}  // namespace mlacheck
