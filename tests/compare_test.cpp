// compare(), within() and judge() on hand-computed cases.
#include "core/compare.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace mlacheck {
namespace {

constexpr double kInfD = std::numeric_limits<double>::infinity();
constexpr float kInfF = std::numeric_limits<float>::infinity();
constexpr float kNaNF = std::numeric_limits<float>::quiet_NaN();
constexpr double kNaND = std::numeric_limits<double>::quiet_NaN();

Tolerance tol(double abs, double rel, double rms = 1.0) { return Tolerance{abs, rel, rms, "test"}; }

TEST(Compare, HandComputedMetrics) {
  const std::vector<double> e = {1, 2, -3, 4};
  const std::vector<float> a = {1, 2.5f, -3, 3};
  const CompareStats s = compare(e, a, tol(0.1, 0.1));
  EXPECT_EQ(s.total, 4u);
  EXPECT_EQ(s.mismatches, 2u);  // bounds 0.2, 0.3, 0.4, 0.5 against errors 0, 0.5, 0, 1
  EXPECT_EQ(s.nonfinite, 0u);
  EXPECT_EQ(s.unwritten, 0u);
  EXPECT_DOUBLE_EQ(s.max_abs_err, 1.0);
  EXPECT_DOUBLE_EQ(s.max_rel_err, 0.25);
  EXPECT_DOUBLE_EQ(s.rms_rel_err, std::sqrt(1.25 / 30.0));
  EXPECT_DOUBLE_EQ(s.cosine, 27.0 / (std::sqrt(25.25) * std::sqrt(30.0)));
  EXPECT_DOUBLE_EQ(s.expected_norm, std::sqrt(30.0));
  EXPECT_DOUBLE_EQ(s.actual_norm, std::sqrt(25.25));
  EXPECT_EQ(s.worst_index, 3u);  // 1/0.5 beats 0.5/0.3
  EXPECT_FALSE(s.expected_constant);
  EXPECT_FALSE(within(s, tol(0.1, 0.1)));
}

// Outputs near a double's limit overflow both norms: the rms error is unbounded, never NaN (which
// every threshold would let pass, and a report refuses).
TEST(Compare, OverflowingNormsGiveAnUnboundedRmsErrorNotNaN) {
  const std::vector<double> expected = {1e200, -1e200};
  const std::vector<double> actual = {-1e200, 1e200};
  const CompareStats s = compare(expected, actual, tol(0.0, 0.0));
  EXPECT_TRUE(std::isinf(s.rms_rel_err)) << s.rms_rel_err;
}

TEST(Compare, BoundIsInclusiveAndRelativeToTheReference) {
  const std::vector<double> e = {2.0, -4.0};
  const std::vector<float> a = {2.5f, -4.75f};  // errors 0.5 and 0.75: exactly abs + rel*|e|
  const CompareStats s = compare(e, a, tol(0.25, 0.125));
  EXPECT_EQ(s.mismatches, 0u);
  EXPECT_TRUE(within(s, tol(0.25, 0.125)));
  EXPECT_DOUBLE_EQ(s.max_rel_err, 0.25);
}

TEST(Compare, RmsBoundCatchesWhatElementsAllow) {
  const std::vector<double> e = {1, 1, 1, 1};
  const std::vector<float> a = {1.01f, 1.01f, 1.01f, 1.01f};  // a systematic 1%
  const CompareStats s = compare(e, a, tol(0.05, 0.0, 0.001));
  EXPECT_EQ(s.mismatches, 0u);
  EXPECT_NEAR(s.rms_rel_err, 0.01, 1e-6);
  EXPECT_FALSE(within(s, tol(0.05, 0.0, 0.001)));
  EXPECT_TRUE(within(s, tol(0.05, 0.0, 0.02)));
}

TEST(Compare, ZeroToleranceDemandsEquality) {
  const std::vector<double> e = {0.5, 0.25, 0.125};
  const std::vector<float> same = {0.5f, 0.25f, 0.125f};
  const std::vector<float> off = {0.5f, std::nextafter(0.25f, 1.0f), 0.125f};
  EXPECT_TRUE(within(compare(e, same, tol(0, 0, 0)), tol(0, 0, 0)));
  const CompareStats s = compare(e, off, tol(0, 0, 0));
  EXPECT_EQ(s.mismatches, 1u);
  EXPECT_EQ(s.worst_index, 1u);
}

TEST(Compare, NonFiniteWhereTheReferenceIsFiniteIsCountedAndLeftOutOfNorms) {
  const std::vector<double> e = {3, 4, 1, 1};
  const std::vector<float> a = {3, 4, kNaNF, -kInfF};
  const CompareStats s = compare(e, a, tol(0, 0));
  EXPECT_EQ(s.nonfinite, 2u);
  EXPECT_EQ(s.nan_written, 1u);
  EXPECT_EQ(s.mismatches, 0u);
  EXPECT_DOUBLE_EQ(s.expected_norm, 5.0);
  EXPECT_DOUBLE_EQ(s.rms_rel_err, 0.0);
  EXPECT_EQ(s.worst_index, 2u);
  EXPECT_FALSE(within(s, tol(0, 0)));
}

TEST(Compare, NonFiniteReferenceMatchesOnlyItsOwnClass) {
  const std::vector<double> e = {kNaND, kInfD, -kInfD, kNaND, kInfD, -kInfD, 2.0};
  const std::vector<float> a = {kNaNF, kInfF, -kInfF, 1.0f, -kInfF, kNaNF, 2.0f};
  const CompareStats s = compare(e, a, tol(0, 0));
  EXPECT_EQ(s.mismatches, 2u);  // NaN vs 1, +Inf vs -Inf
  EXPECT_EQ(s.nonfinite, 1u);   // a NaN written where the reference is -Inf is a NaN, not a mismatch
  EXPECT_EQ(s.nan_written, 1u);
  EXPECT_DOUBLE_EQ(s.expected_norm, 2.0);
  EXPECT_EQ(s.worst_index, 3u);
}

TEST(Compare, UnwrittenElementsAreCountedAndLeftOutOfNorms) {
  const std::vector<double> e = {1, 2, 2};
  const std::vector<float> a = {1, kNaNF, 1e30f};  // the poison may look like anything
  const std::vector<std::uint8_t> unwritten = {0, 1, 1};
  const CompareStats s = compare(e, a, tol(0, 0), unwritten);
  EXPECT_EQ(s.unwritten, 2u);
  EXPECT_EQ(s.first_unwritten_index, 1u);
  EXPECT_EQ(s.nonfinite, 0u);
  EXPECT_EQ(s.nan_written, 0u);
  EXPECT_EQ(s.mismatches, 0u);
  EXPECT_DOUBLE_EQ(s.expected_norm, 1.0);
  EXPECT_DOUBLE_EQ(s.max_abs_err, 0.0);
  EXPECT_FALSE(within(s, tol(0, 0)));
}

TEST(Compare, ZeroReferences) {
  const std::vector<double> zero = {0, 0};
  const CompareStats both = compare(zero, std::vector<float>{0, 0}, tol(0, 0));
  EXPECT_DOUBLE_EQ(both.rms_rel_err, 0.0);
  EXPECT_DOUBLE_EQ(both.cosine, 1.0);
  EXPECT_DOUBLE_EQ(both.max_rel_err, 0.0);  // e == 0 elements have no relative error
  const CompareStats one = compare(zero, std::vector<float>{0, 1e-3f}, tol(1, 0));
  EXPECT_EQ(one.rms_rel_err, kInfD);
  EXPECT_DOUBLE_EQ(one.cosine, 0.0);
  EXPECT_DOUBLE_EQ(one.max_rel_err, 0.0);
}

TEST(Compare, CosineIsClampedAndSigned) {
  const std::vector<double> e = {0.1, 0.2, 0.3};
  const CompareStats same = compare(e, std::vector<float>{0.1f, 0.2f, 0.3f}, tol(1, 0));
  EXPECT_LE(same.cosine, 1.0);
  EXPECT_NEAR(same.cosine, 1.0, 1e-12);
  const CompareStats flipped = compare(e, std::vector<float>{-0.1f, -0.2f, -0.3f}, tol(1, 0));
  EXPECT_GE(flipped.cosine, -1.0);
  EXPECT_NEAR(flipped.cosine, -1.0, 1e-12);
}

TEST(Compare, ConstantReference) {
  EXPECT_TRUE(compare(std::vector<double>{3, 3, 3}, std::vector<float>{3, 3, 3}, tol(0, 0)).expected_constant);
  EXPECT_FALSE(compare(std::vector<double>{3}, std::vector<float>{3}, tol(0, 0)).expected_constant);
  EXPECT_FALSE(compare(std::vector<double>{3, 4}, std::vector<float>{3, 4}, tol(0, 0)).expected_constant);
}

TEST(Compare, SizeMismatchThrows) {
  EXPECT_THROW(compare(std::vector<double>{1, 2}, std::vector<float>{1}, tol(0, 0)), std::invalid_argument);
  EXPECT_THROW(compare(std::vector<double>{1}, std::vector<float>{1}, tol(0, 0), std::vector<std::uint8_t>{0, 0}),
               std::invalid_argument);
}

ComparedTensor tensor(const char* name, std::vector<double> e, std::vector<float> a, Tolerance t,
                      std::vector<std::uint8_t> unwritten = {}) {
  return ComparedTensor{name, compare(e, a, t, unwritten), t};
}

TEST(Judge, PassesWhenEveryTensorIsWithin) {
  const std::vector<ComparedTensor> ts = {tensor("O", {1, 2}, {1, 2}, tol(0, 0)),
                                          tensor("LSE", {0.5, 3}, {0.5f, 3.001f}, tol(0.01, 0))};
  const Verdict v = judge(ts);
  EXPECT_EQ(v.state, ResultState::passed);
  EXPECT_EQ(v.reason, "");
}

TEST(Judge, FailsNamingTheFirstFailingTensorAndWhatBroke) {
  const std::vector<ComparedTensor> ts = {tensor("O", {1, 2}, {1, 2}, tol(0, 0)),
                                          tensor("LSE", {1, 2, 3}, {1, kNaNF, 9}, tol(0.1, 0), {1, 0, 0}),
                                          tensor("K", {1, 2}, {5, 5}, tol(0, 0))};
  const Verdict v = judge(ts);
  EXPECT_EQ(v.state, ResultState::failed);
  EXPECT_EQ(v.reason.rfind("LSE: ", 0), 0u) << v.reason;
  EXPECT_NE(v.reason.find("1 of 3 elements never written"), std::string::npos) << v.reason;
  EXPECT_NE(v.reason.find("1 of 3 elements are NaN written by the kernel"), std::string::npos) << v.reason;
  EXPECT_NE(v.reason.find("1 of 3 elements outside"), std::string::npos) << v.reason;
  EXPECT_NE(v.reason.find("worst element 1"), std::string::npos) << v.reason;  // the NaN
}

TEST(Compare, APoisonedElementIsUnwrittenAndAComputedNanIsWritten) {
  // Both hold NaN; only the flag (the element still held the poison code) tells them apart.
  const std::vector<double> e = {1, 2, 3, 4, 5};
  const std::vector<float> a = {1, kNaNF, kNaNF, kNaNF, kInfF};
  const std::vector<std::uint8_t> poisoned = {0, 0, 1, 1, 0};
  const CompareStats s = compare(e, a, tol(0, 0), poisoned);
  EXPECT_EQ(s.unwritten, 2u);
  EXPECT_EQ(s.first_unwritten_index, 2u);
  EXPECT_EQ(s.nan_written, 1u);
  EXPECT_EQ(s.nonfinite, 2u);  // the NaN and the Inf the kernel wrote
  EXPECT_EQ(s.worst_index, 1u);
}

TEST(Judge, SaysNeverWrittenAndNanWrittenApart) {
  const Verdict nan = judge(std::vector<ComparedTensor>{tensor("O", {1, 2, 3, 4}, {kNaNF, kNaNF, 3, 4}, tol(0, 0))});
  EXPECT_EQ(nan.reason, "O: 2 of 4 elements are NaN written by the kernel (worst element 0)");
  const Verdict unwritten =
      judge(std::vector<ComparedTensor>{tensor("O", {1, 2, 3, 4}, {kNaNF, kNaNF, 3, 4}, tol(0, 0), {0, 1, 1, 0})});
  EXPECT_EQ(unwritten.reason, "O: 2 of 4 elements never written, 1 of 4 elements are NaN written by the kernel (worst element 0)");
  const Verdict inf = judge(std::vector<ComparedTensor>{tensor("O", {1, 2}, {kInfF, 2}, tol(0, 0))});
  EXPECT_EQ(inf.reason, "O: 1 of 2 elements Inf where the reference is finite (worst element 0)");
}

TEST(Judge, NamesTheWorstAndFirstUnwrittenElementsByTheTensorsNames) {
  ComparedTensor t = tensor("O", {1, 2, 3, 4, 5, 6}, {1, 2, 3, 9, 5, 0}, tol(0.5, 0), {0, 0, 0, 0, 0, 1});
  name_elements(t, [](std::size_t i) { return "row " + std::to_string(i / 3) + ", column " + std::to_string(i % 3); });
  EXPECT_EQ(t.worst_element, "row 1, column 0");
  EXPECT_EQ(t.first_unwritten_element, "row 1, column 2");
  const Verdict v = judge(std::vector<ComparedTensor>{t});
  EXPECT_EQ(v.reason,
            "O: 1 of 6 elements never written (first at row 1, column 2), 1 of 6 elements outside abs 0.5 + rel "
            "0*|e| (max abs err 5) (worst at row 1, column 0)");
}

TEST(Judge, NamesNoElementWhereNothingWasWritten) {
  ComparedTensor t = tensor("LSE", {1, 2}, {0, 0}, tol(0, 0), {1, 1});
  name_elements(t, [](std::size_t i) { return "head " + std::to_string(i); });
  EXPECT_EQ(t.worst_element, "");
  EXPECT_EQ(t.first_unwritten_element, "head 0");
}

TEST(Judge, FailsOnTheRmsBoundAlone) {
  const std::vector<ComparedTensor> ts = {tensor("O", {1, 1}, {1.01f, 1.01f}, tol(0.05, 0, 0.001))};
  const Verdict v = judge(ts);
  EXPECT_EQ(v.state, ResultState::failed);
  EXPECT_NE(v.reason.find("rms rel err"), std::string::npos) << v.reason;
}

TEST(Judge, MistrustsChecksThatCouldNotHaveFailed) {
  EXPECT_EQ(judge({}).state, ResultState::mistrusted);
  const std::vector<ComparedTensor> zero = {tensor("O", {1, 2}, {1, 2}, tol(0, 0)),
                                            tensor("LSE", {0, 0}, {0, 0}, tol(0, 0))};
  const Verdict z = judge(zero);
  EXPECT_EQ(z.state, ResultState::mistrusted);
  EXPECT_EQ(z.reason, "LSE: reference has zero norm");
  const std::vector<ComparedTensor> constant = {tensor("O", {2, 2, 2}, {2, 2, 2}, tol(0, 0))};
  EXPECT_EQ(judge(constant).state, ResultState::mistrusted);
  const std::vector<ComparedTensor> empty = {tensor("O", {}, {}, tol(0, 0))};
  EXPECT_EQ(judge(empty).state, ResultState::mistrusted);
}

TEST(Judge, FailureOutranksMistrust) {
  const std::vector<ComparedTensor> ts = {tensor("O", {2, 2, 2}, {2, 2, 3}, tol(0, 0)),
                                          tensor("LSE", {0, 0}, {0, 0}, tol(0, 0))};
  EXPECT_EQ(judge(ts).state, ResultState::failed);
}

}  // namespace
}  // namespace mlacheck
