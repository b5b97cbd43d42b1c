#include "device/staging/mla_decode_staging.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <numbers>
#include <vector>

#include "core/error.hpp"
#include "core/poison_codes.hpp"
#include "device/staging/tensor_codec.hpp"
#include "device/staging/tests/staging_memory_param.hpp"
#include "device/staging/tests/staging_test_support.hpp"
#include "properties/support/mla_test_problems.hpp"

namespace mlacheck {
namespace {

using staging_test::as_vector;
using staging_test::EachMemory;
using staging_test::ints;
using staging_test::write_raw;

// Three requests of uneven length (1, 3 and 2 blocks of 16) and speculative q lengths, heads not a
// multiple of 16, an fp8 cache: every layout rule of backend_abi.h has something to get wrong.
MlaDecodeProblem uneven_problem() {
  MlaDecodeProblem p = small_latent_problem("staging_case", 8, {{5, 40, 17}, {1, 3, 2}});
  p = with_dtypes(p, DType::bf16, DType::fp8_e4m3fn, DType::bf16, 0.25f);
  p.num_blocks = 9;  // spare blocks in the pool
  return with_defaults(p);
}

void expect_dense(const mlacheck_tensor& t, std::int32_t dtype, std::vector<std::int64_t> shape, const char* name) {
  SCOPED_TRACE(name);
  EXPECT_NE(t.data, nullptr);
  EXPECT_EQ(t.dtype, dtype);
  ASSERT_EQ(t.ndim, static_cast<std::int32_t>(shape.size()));
  std::int64_t stride = 1;
  for (int d = t.ndim - 1; d >= 0; --d) {
    EXPECT_EQ(t.shape[d], shape[static_cast<std::size_t>(d)]) << "dimension " << d;
    EXPECT_EQ(t.strides[d], stride) << "dimension " << d;
    stride *= shape[static_cast<std::size_t>(d)];
  }
  for (int d = t.ndim; d < 4; ++d) {
    EXPECT_EQ(t.shape[d], 0);
    EXPECT_EQ(t.strides[d], 0);
  }
}

// Codes of `value` in dtype t, count times.
std::vector<std::byte> filled(DType t, float value, std::size_t count) {
  return encode_tensor(t, std::vector<float>(count, value));
}

class MlaDecodeStagingIn : public EachMemory {};

TEST_P(MlaDecodeStagingIn, TensorsHaveTheAbiLayoutsOfTheProblem) {
  const MlaDecodeProblem p = uneven_problem();
  const MlaDecodeStaging staging(p, make_inputs(p), memory());
  const mlacheck_mla_tensors& t = staging.abi_tensors();
  EXPECT_EQ(t.struct_size, sizeof(mlacheck_mla_tensors));
  expect_dense(t.q, MLACHECK_DTYPE_BF16, {6, 8, 80}, "q");
  expect_dense(t.kv_cache, MLACHECK_DTYPE_FP8_E4M3FN, {9, 16, 80}, "kv_cache");
  expect_dense(t.block_table, MLACHECK_DTYPE_INT32, {3, 3}, "block_table");
  expect_dense(t.kv_lens, MLACHECK_DTYPE_INT32, {3}, "kv_lens");
  expect_dense(t.q_lens, MLACHECK_DTYPE_INT32, {3}, "q_lens");
  expect_dense(t.qo_indptr, MLACHECK_DTYPE_INT32, {4}, "qo_indptr");
  expect_dense(t.kv_indptr, MLACHECK_DTYPE_INT32, {4}, "kv_indptr");
  expect_dense(t.o, MLACHECK_DTYPE_BF16, {6, 8, 64}, "o");
  expect_dense(t.lse, MLACHECK_DTYPE_F32, {6, 8}, "lse");
  EXPECT_EQ(t.workspace, nullptr);
  EXPECT_EQ(t.workspace_bytes, 0u);
  const mlacheck_mla_problem& a = staging.abi_problem();
  EXPECT_EQ(parse_mla_decode(a.repro), p);
  EXPECT_EQ(a.max_blocks_per_request, 3);
  EXPECT_EQ(a.num_blocks, 9);
}

TEST_P(MlaDecodeStagingIn, BuffersHoldTheBytesTheirViewsDescribe) {
  const MlaDecodeProblem p = uneven_problem();
  MlaDecodeStaging staging(p, make_inputs(p), memory());
  const mlacheck_mla_tensors& t = staging.abi_tensors();
  const auto bytes_of = [](const mlacheck_tensor& v, std::size_t element) {
    std::size_t n = element;
    for (int d = 0; d < v.ndim; ++d) n *= static_cast<std::size_t>(v.shape[d]);
    return n;
  };
  EXPECT_EQ(staging.q().data(), t.q.data);
  EXPECT_EQ(staging.q().bytes(), bytes_of(t.q, 2));
  EXPECT_EQ(staging.kv_cache().bytes(), bytes_of(t.kv_cache, 1));
  EXPECT_EQ(staging.block_table().bytes(), bytes_of(t.block_table, 4));
  EXPECT_EQ(staging.o().data(), t.o.data);
  EXPECT_EQ(staging.o().bytes(), bytes_of(t.o, 2));
  EXPECT_EQ(staging.lse().data(), t.lse.data);
  EXPECT_EQ(staging.lse().bytes(), bytes_of(t.lse, 4));
}

TEST_P(MlaDecodeStagingIn, InputsAreTheCodesOfTheHostValues) {
  const MlaDecodeProblem p = uneven_problem();
  const MlaDecodeInputs in = make_inputs(p);
  MlaDecodeStaging staging(p, in, memory());
  EXPECT_EQ(staging.q().download(), encode_tensor(p.q_dtype, in.q));
  EXPECT_EQ(staging.kv_cache().download(), encode_tensor(p.kv_dtype, in.kv_cache));
  // Decoding the staged codes gives make_inputs' values back (NaN in the unused slots).
  const DecodedTensor kv = decode_tensor(p.kv_dtype, staging.kv_cache().download());
  ASSERT_EQ(kv.values.size(), in.kv_cache.size());
  for (std::size_t i = 0; i < kv.values.size(); ++i) {
    if (std::isnan(in.kv_cache[i])) {
      EXPECT_TRUE(std::isnan(kv.values[i])) << i;
    } else {
      ASSERT_EQ(kv.values[i], in.kv_cache[i]) << i;
    }
  }
  EXPECT_EQ(as_vector<std::int32_t>(staging.kv_lens().download()), ints(p.kv_lens));
  EXPECT_EQ(as_vector<std::int32_t>(staging.q_lens().download()), ints(p.q_lens));
  EXPECT_EQ(as_vector<std::int32_t>(staging.qo_indptr().download()), (std::vector<std::int32_t>{0, 1, 4, 6}));
  EXPECT_EQ(as_vector<std::int32_t>(staging.kv_indptr().download()), (std::vector<std::int32_t>{0, 5, 45, 62}));
}

TEST_P(MlaDecodeStagingIn, BlockTableIsRestridedWithMinusOnePastEachRequestsBlocks) {
  const MlaDecodeProblem p = uneven_problem();
  MlaDecodeInputs in = make_inputs(p);
  // A wider table than the engine layout, with junk past every request's blocks.
  const int wide = in.block_table_stride + 2;
  std::vector<std::int32_t> widened(static_cast<std::size_t>(batch(p) * wide), 12345);
  for (int r = 0; r < batch(p); ++r) {
    for (int j = 0; j < blocks_for(p, r); ++j) {
      widened[static_cast<std::size_t>(r * wide + j)] =
          in.block_table[static_cast<std::size_t>(r * in.block_table_stride + j)];
    }
  }
  const std::vector<std::int32_t> original = in.block_table;
  const int original_stride = in.block_table_stride;
  in.block_table = widened;
  in.block_table_stride = wide;
  MlaDecodeStaging staging(p, in, memory());
  const std::vector<std::int32_t> table = as_vector<std::int32_t>(staging.block_table().download());
  ASSERT_EQ(table.size(), 9u);
  for (int r = 0; r < 3; ++r) {
    for (int j = 0; j < 3; ++j) {
      const std::int32_t want =
          j < blocks_for(p, r) ? original[static_cast<std::size_t>(r * original_stride + j)] : -1;
      EXPECT_EQ(table[static_cast<std::size_t>(r * 3 + j)], want) << "request " << r << " block " << j;
    }
  }
}

TEST_P(MlaDecodeStagingIn, PaddedRequestsGetTableRowsOfMinusOneAndZeroLengths) {
  // CUDA-graph padding: requests 0 and 2 hold no KV (request 2 an MTP pad of 4 query rows).
  MlaDecodeProblem p = uneven_problem();
  p.kv_lens = {0, 40, 0};
  p.q_lens = {1, 3, 4};
  p.num_blocks = 0;
  p = with_defaults(p);
  const MlaDecodeInputs in = make_inputs(p);
  MlaDecodeStaging staging(p, in, memory());
  expect_dense(staging.abi_tensors().block_table, MLACHECK_DTYPE_INT32, {3, 3}, "block_table");
  const std::vector<std::int32_t> table = as_vector<std::int32_t>(staging.block_table().download());
  for (int r : {0, 2}) {
    for (int j = 0; j < 3; ++j) EXPECT_EQ(table[static_cast<std::size_t>(r * 3 + j)], -1) << "request " << r;
  }
  for (int j = 0; j < 3; ++j) EXPECT_GE(table[static_cast<std::size_t>(3 + j)], 0) << "request 1 block " << j;
  EXPECT_EQ(as_vector<std::int32_t>(staging.kv_lens().download()), ints({0, 40, 0}));
  EXPECT_EQ(as_vector<std::int32_t>(staging.kv_indptr().download()), ints({0, 0, 40, 40}));
  EXPECT_EQ(as_vector<std::int32_t>(staging.qo_indptr().download()), ints({0, 1, 4, 8}));
}

TEST_P(MlaDecodeStagingIn, OutputsAndWorkspaceArePoisonedBeforeARun) {
  const MlaDecodeProblem p = uneven_problem();
  MlaDecodeStaging staging(p, make_inputs(p), memory(), 100);
  const auto o_poison = static_cast<std::uint16_t>(poison_code(p.o_dtype));
  EXPECT_EQ(as_vector<std::uint16_t>(staging.o().download()), std::vector<std::uint16_t>(6 * 8 * 64, o_poison));
  EXPECT_EQ(as_vector<std::uint32_t>(staging.lse().download()), std::vector<std::uint32_t>(6 * 8, kPoisonF32));
  ASSERT_NE(staging.workspace(), nullptr);
  EXPECT_EQ(staging.abi_tensors().workspace, staging.workspace()->data());
  EXPECT_EQ(staging.abi_tensors().workspace_bytes, 100u);
  EXPECT_EQ(as_vector<std::uint32_t>(staging.workspace()->download()), std::vector<std::uint32_t>(25, 0x7FFFFFFF));
  // A backend that writes nothing: every element is flagged, no guard is broken.
  const MlaDecodeRun run = staging.collect();
  EXPECT_TRUE(run.diag.broken_canaries.empty());
  EXPECT_EQ(run.o_unwritten, std::vector<std::uint8_t>(6 * 8 * 64, 1));
  EXPECT_EQ(run.lse_unwritten, std::vector<std::uint8_t>(6 * 8, 1));
}

TEST_P(MlaDecodeStagingIn, AWritePastTheEndOfOIsCaughtNamingTheBuffer) {
  const MlaDecodeProblem p = uneven_problem();
  MlaDecodeStaging staging(p, make_inputs(p), memory());
  const std::size_t bytes = staging.o().bytes();
  // A backend writing one bf16 element too many, as a kernel with an off-by-one row count would.
  write_raw(staging.o(), 0, filled(DType::bf16, 1.0f, bytes / 2 + 1));
  const MlaDecodeRun run = staging.collect();
  ASSERT_EQ(run.diag.broken_canaries.size(), 1u);
  EXPECT_EQ(run.diag.broken_canaries[0].buffer, "o");
  EXPECT_EQ(run.diag.broken_canaries[0].side, "after");
}

TEST_P(MlaDecodeStagingIn, AWriteBeforeTheStartOfAnIntermediateIsCaughtNamingIt) {
  const MlaDecodeProblem p = uneven_problem();
  MlaDecodeStaging staging(p, make_inputs(p), memory());
  GuardedBuffer& partial = staging.buffers().output("partial_o", DType::f32, 32);
  write_raw(partial, -4, filled(DType::f32, 2.0f, 1));
  const MlaDecodeRun run = staging.collect();
  ASSERT_EQ(run.diag.broken_canaries.size(), 1u);
  EXPECT_EQ(run.diag.broken_canaries[0].buffer, "partial_o");
  EXPECT_EQ(run.diag.broken_canaries[0].side, "before");
}

TEST_P(MlaDecodeStagingIn, AnElementLeftUnwrittenIsFlaggedAndTheRestDecoded) {
  const MlaDecodeProblem p = uneven_problem();
  MlaDecodeStaging staging(p, make_inputs(p), memory());
  const std::size_t o_count = staging.o().bytes() / 2;
  const std::size_t skipped = 100;
  std::vector<float> o_values(o_count, 0.5f);
  std::vector<std::byte> o_codes = encode_tensor(DType::bf16, o_values);
  // Write everything but element `skipped` (its poison stays).
  write_raw(staging.o(), 0, std::span(o_codes).first(2 * skipped));
  write_raw(staging.o(), static_cast<std::ptrdiff_t>(2 * (skipped + 1)), std::span(o_codes).subspan(2 * (skipped + 1)));
  write_raw(staging.lse(), 0, filled(DType::f32, -1.5f, staging.lse().bytes() / 4));
  const MlaDecodeRun run = staging.collect();
  EXPECT_TRUE(run.diag.broken_canaries.empty());
  ASSERT_EQ(run.out.o.size(), o_count);
  for (std::size_t i = 0; i < o_count; ++i) {
    EXPECT_EQ(run.o_unwritten[i], i == skipped ? 1 : 0) << i;
    if (i != skipped) {
      EXPECT_EQ(run.out.o[i], 0.5f) << i;
    }
  }
  EXPECT_TRUE(std::isnan(run.out.o[skipped]));
  EXPECT_EQ(run.lse_unwritten, std::vector<std::uint8_t>(run.out.lse.size(), 0));
  EXPECT_EQ(run.out.lse, std::vector<float>(run.out.lse.size(), -1.5f));
}

TEST_P(MlaDecodeStagingIn, ABase2LseIsConvertedToNaturalLog) {
  const MlaDecodeProblem p = uneven_problem();
  MlaDecodeStaging staging(p, make_inputs(p), memory());
  const std::size_t count = staging.lse().bytes() / 4;
  // All but the last element written with log2 of e^3 (so natural lse 3).
  const float log2_lse = static_cast<float>(3.0 / std::numbers::ln2);
  write_raw(staging.lse(), 0, filled(DType::f32, log2_lse, count - 1));
  const MlaDecodeRun natural = staging.collect(LseBase::natural);
  EXPECT_EQ(natural.out.lse[0], log2_lse);
  const MlaDecodeRun converted = staging.collect(LseBase::log2);
  for (std::size_t i = 0; i + 1 < count; ++i) {
    EXPECT_NEAR(converted.out.lse[i], 3.0f, 1e-6f) << i;
    EXPECT_EQ(converted.lse_unwritten[i], 0) << i;
  }
  EXPECT_EQ(converted.lse_unwritten.back(), 1);
  EXPECT_EQ(std::bit_cast<std::uint32_t>(converted.out.lse.back()), kPoisonF32) << "the poison is left as it was";
}

// A pool whose requests' blocks start at first_block (issue 13 item 2, small here): the whole pool
// is staged, the inputs' blocks at their place and NaN codes below, which the host never held.
TEST_P(MlaDecodeStagingIn, APoolFromFirstBlockHoldsNaNCodesBelowIt) {
  MlaDecodeProblem p = uneven_problem();
  p.first_block = 11;
  p.num_blocks = 11 + 9;
  const MlaDecodeInputs in = make_inputs(p);
  ASSERT_EQ(in.kv_cache.size(), static_cast<std::size_t>(9 * 16 * lk(p)));
  MlaDecodeStaging staging(p, in, memory());
  expect_dense(staging.abi_tensors().kv_cache, MLACHECK_DTYPE_FP8_E4M3FN, {20, 16, lk(p)}, "kv_cache");
  const std::vector<std::byte> pool = staging.kv_cache().download();
  const std::size_t below = static_cast<std::size_t>(11 * 16 * lk(p));  // fp8: a byte per element
  ASSERT_EQ(pool.size(), below + in.kv_cache.size());
  EXPECT_EQ(std::vector<std::byte>(pool.begin() + static_cast<std::ptrdiff_t>(below), pool.end()),
            encode_tensor(p.kv_dtype, in.kv_cache));
  const DecodedTensor low = decode_tensor(p.kv_dtype, {pool.data(), below});
  for (std::size_t i = 0; i < below; ++i) ASSERT_TRUE(std::isnan(low.values[i])) << i;
  const auto table = as_vector<std::int32_t>(staging.block_table().download());
  for (std::int32_t id : table) EXPECT_TRUE(id == -1 || (id >= 11 && id < 20)) << id;
  EXPECT_TRUE(staging.buffers().broken_canaries().empty());
  // Admission's estimate covers every buffer staged.
  std::uint64_t staged = 0;
  for (std::size_t i = 0; i < staging.buffers().size(); ++i) staged += staging.buffers().at(i).bytes();
  EXPECT_GE(mla_staging_bytes(p), staged);
  EXPECT_LE(mla_staging_bytes(p), staged + 20 * GuardedBuffer::kGuardBytes);
}

TEST(StagingMemoryShortfall, NamesTheMemoryAndWhatIsFree) {
  EXPECT_EQ(staging_memory_shortfall(StagingMemory::host, 1), std::nullopt);
  const auto why = staging_memory_shortfall(StagingMemory::host, std::uint64_t{1} << 60);
  ASSERT_TRUE(why.has_value()) << "this machine has an exabyte of memory available";
  EXPECT_NE(why->find("MiB of host memory"), std::string::npos) << *why;
  EXPECT_NE(why->find("MiB are free"), std::string::npos) << *why;
}

TEST(StagingMemoryShortfall, HostKeepsHalfBackDeviceATenth) {
  constexpr std::uint64_t GiB = std::uint64_t{1} << 30;
  EXPECT_EQ(memory_shortfall(StagingMemory::host, 10 * GiB, 20 * GiB), std::nullopt);
  const auto host = memory_shortfall(StagingMemory::host, 11 * GiB, 20 * GiB);
  ASSERT_TRUE(host.has_value()) << "a pool of more than half the host's available memory was admitted";
  EXPECT_EQ(*host, "needs about 11264 MiB of host memory, 20480 MiB are free");
  EXPECT_EQ(memory_shortfall(StagingMemory::device, 18 * GiB, 20 * GiB), std::nullopt);
  EXPECT_TRUE(memory_shortfall(StagingMemory::device, 19 * GiB, 20 * GiB).has_value());
}

TEST_P(MlaDecodeStagingIn, InputsThatDoNotMatchTheProblemAreNamed) {
  const MlaDecodeProblem p = uneven_problem();
  const auto expect_error = [&](const MlaDecodeInputs& in, const std::string& needle) {
    try {
      MlaDecodeStaging staging(p, in, memory());
      ADD_FAILURE() << "accepted inputs with a bad " << needle;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("staging_case"), std::string::npos) << e.what();
    }
  };
  MlaDecodeInputs in = make_inputs(p);
  in.q.pop_back();
  expect_error(in, "input q ");
  in = make_inputs(p);
  in.kv_cache.push_back(0.0f);
  expect_error(in, "input kv_cache");
  in = make_inputs(p);
  in.block_table[static_cast<std::size_t>(in.block_table_stride + 1)] = 9;  // request 1, block 1
  expect_error(in, "block_table[1][1] = 9");
  in = make_inputs(p);
  in.block_table_stride = 2;
  expect_error(in, "block_table_stride");
  MlaDecodeProblem bad = p;
  bad.q_lens = {1, 3};
  EXPECT_THROW(MlaDecodeStaging(bad, make_inputs(p), memory()), InvalidProblem);
}

MLACHECK_STAGING_IN_EACH_MEMORY(MlaDecodeStagingIn);

TEST(LseBaseFromAbi, MapsBothBasesAndRefusesOthers) {
  EXPECT_EQ(lse_base_from_abi(MLACHECK_LSE_NATURAL), LseBase::natural);
  EXPECT_EQ(lse_base_from_abi(MLACHECK_LSE_LOG2), LseBase::log2);
  EXPECT_THROW(lse_base_from_abi(2), std::invalid_argument);
}

}  // namespace
}  // namespace mlacheck
