// The host half of the hip pipeline, which needs no GPU: how a session prepares the split-KV path's
// intermediates (names, sizes, poison, the qo_indptr fault's own buffer), that the plugin's
// measured workspace is exactly what a run carves, and the checks on the ABI views a plugin gets.
// Preparation allocates and uploads but launches nothing, so host-staged buffers stand in for
// device memory; the persistent path is left out (its slot count is a runtime occupancy query).
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "core/poison_codes.hpp"
#include "device/hip_backend/decode_intermediates.hpp"
#include "device/hip_backend/mla_decode_pipeline.hpp"
#include "device/hip_backend/staged_mla_tensors.hpp"
#include "device/hip_backend/tests/h100_like_device.hpp"
#include "device/staging/mla_decode_staging.hpp"
#include "properties/support/mla_test_problems.hpp"

namespace mlacheck {
namespace {

MlaDecodeProblem split_kv_problem(int heads) {
  MlaDecodeProblem p = test_problem("prep", heads, {{300, 17, 64}, {1, 2, 1}});
  p.path = DecodePath::split_kv;
  return with_defaults(p);
}

std::vector<std::string> names(const GuardedBufferSet& set) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < set.size(); ++i) out.push_back(set.at(i).name());
  return out;
}

template <class T>
std::vector<T> contents(const GuardedBuffer& b) {
  const std::vector<std::byte> bytes = b.download();
  std::vector<T> out(bytes.size() / sizeof(T));
  std::memcpy(out.data(), bytes.data(), out.size() * sizeof(T));
  return out;
}

TEST(HipPipelinePreparation, PaddedHeadsGetPaddedIntermediatesAllPoisoned) {
  const MlaDecodeProblem p = split_kv_problem(8);
  GuardedBufferSet set(StagingMemory::host);
  GuardedIntermediates scratch(set);
  const MlaDecodeSession session(p, StagedMlaTensors{}, scratch, h100_like(), nullptr, {});
  EXPECT_EQ(session.path().path, DecodePath::split_kv);
  EXPECT_GE(session.work_count(), 1);
  EXPECT_EQ(names(set), (std::vector<std::string>{"expanded_kv_indptr", "kv_indices", "q_padded", "o_padded",
                                                  "lse_padded", "partial_o", "partial_lse"}));
  const std::size_t tokens = 4, padded = 16;
  EXPECT_EQ(set.find("expanded_kv_indptr")->bytes(), 4 * sizeof(std::int32_t));
  EXPECT_EQ(set.find("kv_indices")->bytes(), 381 * sizeof(std::int32_t));
  EXPECT_EQ(set.find("q_padded")->bytes(), tokens * padded * 576 * 2);
  EXPECT_EQ(set.find("o_padded")->bytes(), tokens * padded * 512 * 2);
  EXPECT_EQ(set.find("lse_padded")->bytes(), tokens * padded * 4);
  EXPECT_EQ(contents<std::uint32_t>(*set.find("kv_indices")), std::vector<std::uint32_t>(381, kPoisonIndex));
  const auto o_poison = static_cast<std::uint16_t>(poison_code(p.o_dtype));
  EXPECT_EQ(contents<std::uint16_t>(*set.find("o_padded")), std::vector<std::uint16_t>(tokens * padded * 512, o_poison));
  EXPECT_EQ(contents<std::uint32_t>(*set.find("partial_lse")),
            std::vector<std::uint32_t>(set.find("partial_lse")->bytes() / 4, kPoisonF32));
}

TEST(HipPipelinePreparation, SixteenHeadsWriteTheStagedOutputsDirectly) {
  GuardedBufferSet set(StagingMemory::host);
  GuardedIntermediates scratch(set);
  const MlaDecodeSession session(split_kv_problem(16), StagedMlaTensors{}, scratch, h100_like(), nullptr, {});
  EXPECT_EQ(names(set), (std::vector<std::string>{"expanded_kv_indptr", "kv_indices", "partial_o", "partial_lse"}));
}

TEST(HipPipelinePreparation, TheQoIndptrFaultUploadsItsOwnArange) {
  const MlaDecodeProblem p = split_kv_problem(16);
  GuardedBufferSet set(StagingMemory::host);
  GuardedIntermediates scratch(set);
  const MlaDecodeSession session(p, StagedMlaTensors{}, scratch, h100_like(), nullptr,
                                 {Fault::qo_indptr_assumes_single_token});
  const GuardedBuffer* arange = set.find("qo_indptr_arange");
  ASSERT_NE(arange, nullptr) << "the fault reads the engine's qo_indptr instead of building its own";
  EXPECT_EQ(contents<std::int32_t>(*arange), (std::vector<std::int32_t>{0, 1, 2, 3}));
}

TEST(HipPipelinePreparation, TheFoldedDispatchUploadsOneTokenPerRequest) {
  // Fault tokens-folded-into-heads (R9): 16 heads at q_len 8 run as one token of 128 heads per
  // request, on partial buffers of the same rows; the clean session uploads nothing of its own.
  MlaDecodeProblem p = split_kv_problem(16);
  p.kv_lens = {300, 17, 64};
  p.q_lens = {8, 8, 8};
  p = with_defaults(p);
  GuardedBufferSet clean_set(StagingMemory::host);
  GuardedIntermediates clean_scratch(clean_set);
  const MlaDecodeSession clean(p, StagedMlaTensors{}, clean_scratch, h100_like(), nullptr, {});
  EXPECT_EQ(clean_set.find("qo_indptr_folded"), nullptr);

  GuardedBufferSet set(StagingMemory::host);
  GuardedIntermediates scratch(set);
  const MlaDecodeSession session(p, StagedMlaTensors{}, scratch, h100_like(), nullptr,
                                 {Fault::tokens_folded_into_heads});
  const GuardedBuffer* folded = set.find("qo_indptr_folded");
  ASSERT_NE(folded, nullptr) << "the folded step must read one query token per request";
  EXPECT_EQ(contents<std::int32_t>(*folded), (std::vector<std::int32_t>{0, 1, 2, 3}));
  const std::size_t splits_clean = static_cast<std::size_t>(clean.work_count());
  const std::size_t splits = static_cast<std::size_t>(session.work_count());
  EXPECT_EQ(set.find("partial_lse")->bytes() / splits, clean_set.find("partial_lse")->bytes() / splits_clean)
      << "24 tokens x 16 heads and 3 tokens x 128 heads are the same rows";
}

TEST(HipPipelinePreparation, TheMeasuredWorkspaceIsExactlyWhatARunCarves) {
  for (int heads : {8, 16, 128}) {
    SCOPED_TRACE(heads);
    const MlaDecodeProblem p = split_kv_problem(heads);
    const std::uint64_t measured = hip_decode_workspace_bytes(p, h100_like());
    // The guarded twin: the same intermediates, each 256-byte aligned one after another.
    GuardedBufferSet set(StagingMemory::host);
    GuardedIntermediates guarded(set);
    const MlaDecodeSession twin(p, StagedMlaTensors{}, guarded, h100_like(), nullptr, {});
    std::uint64_t end = 0;
    for (std::size_t i = 0; i < set.size(); ++i) {
      end = (end + WorkspaceIntermediates::kAlignment - 1) / WorkspaceIntermediates::kAlignment *
                WorkspaceIntermediates::kAlignment +
            set.at(i).bytes();
    }
    EXPECT_EQ(measured, end);
    // Preparation only computes addresses in the workspace, so host bytes stand in for it.
    std::vector<std::byte> workspace(measured);
    WorkspaceIntermediates exact(workspace.data(), measured, nullptr);
    EXPECT_NO_THROW(MlaDecodeSession(p, StagedMlaTensors{}, exact, h100_like(), nullptr, {}));
    EXPECT_EQ(exact.used_bytes(), measured);
    WorkspaceIntermediates short_by_one(workspace.data(), measured - 1, nullptr);
    try {
      const MlaDecodeSession session(p, StagedMlaTensors{}, short_by_one, h100_like(), nullptr, {});
      ADD_FAILURE() << "a workspace one byte short was accepted";
    } catch (const std::length_error& e) {
      EXPECT_NE(std::string(e.what()).find("'partial_lse'"), std::string::npos) << e.what();
    }
  }
}

TEST(WorkspaceIntermediates, AlignsEveryIntermediateAndRefusesANullWorkspace) {
  std::vector<std::byte> workspace(2048);
  WorkspaceIntermediates carve(workspace.data(), workspace.size(), nullptr);
  auto* a = static_cast<std::byte*>(carve.output("a", DType::bf16, 3));
  auto* b = reinterpret_cast<std::byte*>(carve.indices("b", 5));
  EXPECT_EQ(a, workspace.data());
  EXPECT_EQ(b, workspace.data() + 256);
  EXPECT_EQ(carve.used_bytes(), 256u + 20u);
  EXPECT_THROW(WorkspaceIntermediates(nullptr, 64, nullptr), std::invalid_argument);
}

TEST(StagedTensors, OfAStagingPointAtItsBuffers) {
  const MlaDecodeProblem p = split_kv_problem(8);
  MlaDecodeStaging staging(p, make_inputs(p), StagingMemory::host);
  const StagedMlaTensors t = staged_tensors(staging);
  EXPECT_EQ(t.q, staging.q().data());
  EXPECT_EQ(t.kv_cache, staging.kv_cache().data());
  EXPECT_EQ(t.block_table, staging.block_table().data());
  EXPECT_EQ(t.block_table_stride, max_blocks_per_request(p));
  EXPECT_EQ(t.kv_lens, staging.kv_lens().data());
  EXPECT_EQ(t.qo_indptr, staging.qo_indptr().data());
  EXPECT_EQ(t.o, staging.o().data());
  EXPECT_EQ(t.lse, staging.lse().data());
  const StagedMlaTensors from_abi = staged_tensors(staging.abi_tensors(), p);
  EXPECT_EQ(from_abi.q, t.q);
  EXPECT_EQ(from_abi.block_table_stride, t.block_table_stride);
  EXPECT_EQ(from_abi.lse, t.lse);
}

TEST(StagedTensors, OfAbiViewsNameTheTensorThatDisagreesWithTheProblem) {
  const MlaDecodeProblem p = split_kv_problem(8);
  MlaDecodeStaging staging(p, make_inputs(p), StagingMemory::host);
  const auto expect_refused = [&](const mlacheck_mla_tensors& views, const std::string& needle) {
    try {
      (void)staged_tensors(views, p);
      ADD_FAILURE() << "accepted: " << needle;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  mlacheck_mla_tensors v = staging.abi_tensors();
  v.kv_cache.dtype = MLACHECK_DTYPE_F16;
  expect_refused(v, "tensor kv_cache of prep: dtype");
  v = staging.abi_tensors();
  v.o.shape[2] = 256;
  expect_refused(v, "tensor o of prep: shape");
  v = staging.abi_tensors();
  v.lse.strides[0] = 16;
  expect_refused(v, "tensor lse of prep: strides");
  v = staging.abi_tensors();
  v.qo_indptr.data = nullptr;
  expect_refused(v, "tensor qo_indptr of prep: data is NULL");
  v = staging.abi_tensors();
  v.q.ndim = 2;
  expect_refused(v, "tensor q of prep: ndim");
  v = staging.abi_tensors();
  v.struct_size = 16;
  expect_refused(v, "struct_size");
  // A block table with longer rows than the engine layout is read at its own stride.
  v = staging.abi_tensors();
  const int longer = max_blocks_per_request(p) + 5;
  v.block_table.strides[0] = longer;
  EXPECT_EQ(staged_tensors(v, p).block_table_stride, longer);
  v.block_table.strides[0] = max_blocks_per_request(p) - 1;
  expect_refused(v, "tensor block_table of prep: strides");
  v.block_table.strides[0] = longer;
  v.block_table.strides[1] = 2;
  expect_refused(v, "tensor block_table of prep: strides");
}

}  // namespace
}  // namespace mlacheck
