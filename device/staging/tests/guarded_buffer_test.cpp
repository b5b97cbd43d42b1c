#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "core/poison_codes.hpp"
#include "device/staging/guarded_buffer.hpp"
#include "device/staging/guarded_buffer_set.hpp"
#include "device/staging/tests/staging_memory_param.hpp"
#include "device/staging/tests/staging_test_support.hpp"

namespace mlacheck {
namespace {

using staging_test::EachMemory;
using staging_test::write_raw;

std::vector<std::byte> bytes_of(std::initializer_list<int> values) {
  std::vector<std::byte> out;
  for (int v : values) out.push_back(static_cast<std::byte>(v));
  return out;
}

template <class T>
std::vector<T> words(const std::vector<std::byte>& bytes) {
  std::vector<T> out(bytes.size() / sizeof(T));
  std::memcpy(out.data(), bytes.data(), out.size() * sizeof(T));
  return out;
}

class GuardedBufferIn : public EachMemory {};

TEST_P(GuardedBufferIn, RoundTripsItsBytesAndStartsAligned) {
  const auto buffer = make_guarded_buffer(memory(), "round_trip", 5);
  EXPECT_EQ(buffer->memory(), memory());
  EXPECT_EQ(buffer->name(), "round_trip");
  EXPECT_EQ(buffer->bytes(), 5u);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(buffer->data()) % GuardedBuffer::kGuardBytes, 0u);
  const std::vector<std::byte> in = bytes_of({1, 2, 3, 4, 250});
  buffer->upload(in);
  EXPECT_EQ(buffer->download(), in);
  EXPECT_TRUE(buffer->check_guards().empty());
}

TEST_P(GuardedBufferIn, UploadAtWritesItsRangeOnlyAndRefusesOneOutside) {
  const auto buffer = make_guarded_buffer(memory(), "pool", 8);
  buffer->poison(std::uint8_t{0x7F});
  buffer->upload_at(3, bytes_of({1, 2, 3}));
  EXPECT_EQ(buffer->download(), bytes_of({0x7F, 0x7F, 0x7F, 1, 2, 3, 0x7F, 0x7F}));
  buffer->upload_at(5, bytes_of({9, 9, 9}));  // up to the last byte
  EXPECT_TRUE(buffer->check_guards().empty());
  try {
    buffer->upload_at(6, bytes_of({1, 2, 3}));
    FAIL() << "an upload past the end was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'pool'"), std::string::npos) << e.what();
  }
  EXPECT_THROW(buffer->upload_at(9, {}), std::invalid_argument);
  EXPECT_TRUE(buffer->check_guards().empty());
}

TEST_P(GuardedBufferIn, RefusesCopiesOfAnotherSizeNamingTheBuffer) {
  const auto buffer = make_guarded_buffer(memory(), "sized", 4);
  const std::vector<std::byte> three = bytes_of({1, 2, 3});
  try {
    buffer->upload(three);
    FAIL() << "a 3-byte upload into 4 bytes was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'sized'"), std::string::npos) << e.what();
  }
  EXPECT_NO_THROW(buffer->poison(std::uint32_t{1})) << "4 bytes take one 32-bit pattern";
  const auto six = make_guarded_buffer(memory(), "six", 6);
  EXPECT_THROW(six->poison(std::uint32_t{1}), std::invalid_argument);
  const auto odd = make_guarded_buffer(memory(), "odd", 3);
  EXPECT_THROW(odd->poison(std::uint16_t{1}), std::invalid_argument);
}

TEST_P(GuardedBufferIn, PoisonsWithEachPatternWidth) {
  const auto buffer = make_guarded_buffer(memory(), "poisoned", 8);
  buffer->poison(std::uint32_t{0x7FFFFFFF});
  EXPECT_EQ(words<std::uint32_t>(buffer->download()), (std::vector<std::uint32_t>{0x7FFFFFFF, 0x7FFFFFFF}));
  buffer->poison(std::uint16_t{0x7FFF});
  EXPECT_EQ(words<std::uint16_t>(buffer->download()), (std::vector<std::uint16_t>(4, 0x7FFF)));
  buffer->poison(std::uint8_t{0x80});
  EXPECT_EQ(buffer->download(), std::vector<std::byte>(8, std::byte{0x80}));
  EXPECT_TRUE(buffer->check_guards().empty()) << "poison stays inside the buffer";
}

TEST_P(GuardedBufferIn, GuardsCatchAWriteOneByteEitherSideWithTheGap) {
  const auto buffer = make_guarded_buffer(memory(), "edges", 6);
  write_raw(*buffer, 6, bytes_of({0}));    // the first byte after the end
  write_raw(*buffer, -3, bytes_of({0}));   // three bytes before the start: 2 bytes of gap
  const std::vector<CanaryBreach> breaches = buffer->check_guards();
  ASSERT_EQ(breaches.size(), 2u);
  EXPECT_EQ(breaches[0].side, GuardSide::front);
  EXPECT_EQ(breaches[0].gap, 2u);
  EXPECT_EQ(breaches[1].side, GuardSide::back);
  EXPECT_EQ(breaches[1].gap, 0u);
  EXPECT_EQ(breaches[1].buffer, "edges");
}

TEST_P(GuardedBufferIn, GuardsSurviveWritesThatFillTheBufferExactly) {
  const auto buffer = make_guarded_buffer(memory(), "full", 16);
  write_raw(*buffer, 0, std::vector<std::byte>(16, std::byte{0xA5}));  // the guard pattern's first byte
  EXPECT_TRUE(buffer->check_guards().empty());
}

TEST_P(GuardedBufferIn, SetPoisonsOutputsIndicesAndScratchAndNamesBrokenGuards) {
  GuardedBufferSet set(memory());
  GuardedBuffer& out_bf16 = set.output("out_bf16", DType::bf16, 3);
  GuardedBuffer& out_fnuz = set.output("out_fnuz", DType::fp8_e4m3fnuz, 3);
  GuardedBuffer& idx = set.indices("idx", 2);
  GuardedBuffer& ws4 = set.scratch("ws4", 8);
  GuardedBuffer& ws2 = set.scratch("ws2", 6);
  GuardedBuffer& ws1 = set.scratch("ws1", 3);
  const std::vector<std::int32_t> host{7, -1};
  GuardedBuffer& in = set.input("in", std::span<const std::int32_t>(host));
  EXPECT_EQ(words<std::uint16_t>(out_bf16.download()), (std::vector<std::uint16_t>(3, kPoisonBf16)));
  EXPECT_EQ(out_fnuz.download(), std::vector<std::byte>(3, std::byte{0x80}));
  EXPECT_EQ(words<std::uint32_t>(idx.download()), (std::vector<std::uint32_t>(2, kPoisonIndex)));
  EXPECT_EQ(words<std::uint32_t>(ws4.download()), (std::vector<std::uint32_t>(2, kPoisonIndex)));
  EXPECT_EQ(words<std::uint16_t>(ws2.download()), (std::vector<std::uint16_t>(3, kPoisonBf16)));
  EXPECT_EQ(ws1.download(), std::vector<std::byte>(3, std::byte{0x7F}));
  EXPECT_EQ(words<std::int32_t>(in.download()), host);
  EXPECT_EQ(set.size(), 7u);
  EXPECT_EQ(set.find("idx"), &idx);
  EXPECT_EQ(set.find("missing"), nullptr);
  EXPECT_EQ(&set.at(0), &out_bf16);
  EXPECT_EQ(&set.at(6), &in);
  EXPECT_TRUE(set.broken_canaries().empty());

  write_raw(idx, 8, bytes_of({1}));
  write_raw(ws2, -1, bytes_of({1}));
  const std::vector<BrokenCanary> broken = set.broken_canaries();
  ASSERT_EQ(broken.size(), 2u);
  EXPECT_EQ(broken[0].buffer, "idx");
  EXPECT_EQ(broken[0].side, "after");
  EXPECT_EQ(broken[1].buffer, "ws2");
  EXPECT_EQ(broken[1].side, "before");
}

MLACHECK_STAGING_IN_EACH_MEMORY(GuardedBufferIn);

TEST(DeviceStaging, IsRefusedWithTheReasonInBuildsWithoutAGpu) {
  if (staging_available(StagingMemory::device)) GTEST_SKIP() << "this build has a GPU backend";
  try {
    (void)make_guarded_buffer(StagingMemory::device, "q", 4);
    FAIL() << "device staging without a GPU backend was accepted";
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("'q'"), std::string::npos) << what;
    EXPECT_NE(what.find(probe_devices().reason), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace mlacheck
