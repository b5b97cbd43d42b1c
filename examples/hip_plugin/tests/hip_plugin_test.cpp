// The hip plugin (examples/hip_plugin) loaded with dlopen, as the harness loads a --backend: its
// table says what it is, it exports nothing else, and on a GPU its runs on harness-staged tensors
// equal the built-in hip backend's bit for bit (same pipeline, other side of the ABI).
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "device/backend.hpp"
#include "device/platform/device_info.hpp"
#include "device/staging/device_stream.hpp"
#include "device/staging/mla_decode_staging.hpp"
#include "mlacheck/backend_abi.h"

namespace mlacheck {
namespace {

// The plugin, loaded once for the executable; a load failure fails every test with dlerror's text.
struct LoadedPlugin {
  void* handle = nullptr;
  const mlacheck_backend_v1* table = nullptr;
  std::string error;
};

const LoadedPlugin& plugin() {
  static const LoadedPlugin loaded = [] {
    LoadedPlugin l;
    l.handle = dlopen(MLACHECK_HIP_PLUGIN_PATH, RTLD_NOW | RTLD_LOCAL);
    if (l.handle == nullptr) {
      l.error = dlerror();
      return l;
    }
    const auto entry = reinterpret_cast<mlacheck_backend_entry_fn>(dlsym(l.handle, MLACHECK_BACKEND_ENTRY));
    if (entry == nullptr) {
      l.error = std::string(MLACHECK_HIP_PLUGIN_PATH) + " has no " + MLACHECK_BACKEND_ENTRY;
      return l;
    }
    l.table = entry(MLACHECK_BACKEND_ABI_VERSION);
    if (l.table == nullptr) l.error = "the entry point refused ABI version 1";
    return l;
  }();
  return loaded;
}

const mlacheck_backend_v1& table() {
  if (plugin().table == nullptr) throw std::runtime_error(plugin().error);
  return *plugin().table;
}

TEST(HipPluginTable, DeclaresADeviceBackendWritingNaturalLse) {
  ASSERT_NE(plugin().table, nullptr) << plugin().error;
  const mlacheck_backend_v1& t = table();
  EXPECT_EQ(t.abi_version, MLACHECK_BACKEND_ABI_VERSION);
  EXPECT_EQ(t.struct_size, sizeof(mlacheck_backend_v1));
  EXPECT_STREQ(t.name, "mlacheck-hip");
  EXPECT_NE(std::strlen(t.version), 0u);
  EXPECT_EQ(t.memory, MLACHECK_MEMORY_DEVICE);
  EXPECT_EQ(t.writes_lse, 1);
  EXPECT_EQ(t.lse_base, MLACHECK_LSE_NATURAL);
  EXPECT_EQ(t.p_dtype, MLACHECK_P_MMA_INPUT);
  EXPECT_NE(t.open, nullptr);
  EXPECT_NE(t.close, nullptr);
  EXPECT_NE(t.supports, nullptr);
  EXPECT_NE(t.workspace_bytes, nullptr);
  EXPECT_NE(t.run, nullptr);
}

TEST(HipPluginTable, RefusesAnotherAbiVersion) {
  ASSERT_NE(plugin().handle, nullptr) << plugin().error;
  const auto entry = reinterpret_cast<mlacheck_backend_entry_fn>(dlsym(plugin().handle, MLACHECK_BACKEND_ENTRY));
  ASSERT_NE(entry, nullptr);
  EXPECT_EQ(entry(MLACHECK_BACKEND_ABI_VERSION + 1), nullptr);
}

// The GPU half: one plugin instance on GPU 0 and the built-in backend beside it.
class HipPluginRun : public testing::Test {
 protected:
  void SetUp() override {
    const DeviceAvailability availability = probe_devices();
    if (availability.count == 0) GTEST_SKIP() << availability.reason;
    ASSERT_NE(plugin().table, nullptr) << plugin().error;
    char error[512] = {};
    instance_ = table().open(0, error, sizeof error);
    ASSERT_NE(instance_, nullptr) << error;
    BackendOrReason built_in = make_hip_backend(0);
    ASSERT_NE(built_in.backend, nullptr) << built_in.reason;
    built_in_ = std::move(built_in.backend);
  }
  void TearDown() override {
    if (instance_ != nullptr) table().close(instance_);
  }

  // The plugin's run, the harness's way: staged in device memory with the workspace it asks for,
  // run on a stream of our own, synchronised, collected.
  MlaDecodeRun run_plugin(const MlaDecodeProblem& p, const MlaDecodeInputs& in) {
    const AbiMlaProblem abi(p);
    if (const char* why = table().supports(instance_, &abi.get())) throw std::runtime_error(why);
    MlaDecodeStaging staging(p, in, StagingMemory::device, table().workspace_bytes(instance_, &abi.get()));
    DeviceStream stream;
    char error[512] = {};
    const mlacheck_mla_tensors& tensors = staging.abi_tensors();
    if (table().run(instance_, &staging.abi_problem(), &tensors, stream.handle(), error, sizeof error) != 0) {
      throw std::runtime_error(error);
    }
    stream.synchronize();
    return staging.collect(lse_base_from_abi(table().lse_base));
  }

  void* instance_ = nullptr;
  std::unique_ptr<Backend> built_in_;
};

template <class T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

MlaDecodeProblem problem(std::string name, int total_heads, int tp, std::vector<int> kv_lens, std::vector<int> q_lens,
                         DType q, DType kv, DecodePath path) {
  MlaDecodeProblem p;
  p.name = std::move(name);
  p.total_heads = total_heads;
  p.tp = tp;
  p.kv_lens = std::move(kv_lens);
  p.q_lens = std::move(q_lens);
  p.q_dtype = q;
  p.kv_dtype = kv;
  p.o_dtype = q;
  if (is_fp8(kv)) p.kv_scale = 0.5f;
  p.path = path;
  p.block_size = 16;
  return with_defaults(p);
}

TEST_F(HipPluginRun, EqualsTheBuiltInBackendBitForBit) {
  const std::vector<MlaDecodeProblem> problems = {
      problem("split_kv_16_heads", 16, 1, {1000, 37}, {1, 1}, DType::bf16, DType::bf16, DecodePath::split_kv),
      problem("persistent_padded_heads", 8, 1, {300, 5, 2049}, {2, 1, 3}, DType::bf16, DType::bf16,
              DecodePath::persistent),
      problem("fp8_cache_tp8", 128, 8, {4096, 513, 77, 1}, {1, 1, 1, 1}, DType::bf16, DType::fp8_e4m3fn,
              DecodePath::automatic),
      problem("f16_speculative", 64, 4, {128, 900}, {4, 5}, DType::f16, DType::f16, DecodePath::split_kv),
  };
  int compared = 0;
  for (const MlaDecodeProblem& p : problems) {
    SCOPED_TRACE(to_repro(p));
    if (built_in_->supports(p)) continue;  // a dtype this GPU's kernels do not take
    ++compared;
    const MlaDecodeInputs in = make_inputs(p);
    const MlaDecodeRun expected = built_in_->run(p, in, {});
    const MlaDecodeRun actual = run_plugin(p, in);
    EXPECT_TRUE(expected.diag.broken_canaries.empty());
    EXPECT_TRUE(actual.diag.broken_canaries.empty());
    EXPECT_TRUE(same_bits(actual.out.o, expected.out.o)) << "O differs";
    EXPECT_TRUE(same_bits(actual.out.lse, expected.out.lse)) << "LSE differs";
    EXPECT_EQ(actual.o_unwritten, expected.o_unwritten);
    EXPECT_EQ(actual.lse_unwritten, expected.lse_unwritten);
    EXPECT_EQ(std::count(actual.o_unwritten.begin(), actual.o_unwritten.end(), 1), 0);
  }
  if (compared == 0) GTEST_SKIP() << "this GPU supports none of the problems";
}

TEST_F(HipPluginRun, RepeatedRunsOnOneInstanceAgree) {
  const MlaDecodeProblem p =
      problem("repeat", 16, 1, {700, 33, 64}, {1, 2, 1}, DType::bf16, DType::bf16, DecodePath::persistent);
  const MlaDecodeInputs in = make_inputs(p);
  const MlaDecodeRun first = run_plugin(p, in);
  const MlaDecodeRun second = run_plugin(p, in);
  EXPECT_TRUE(same_bits(first.out.o, second.out.o));
  EXPECT_TRUE(same_bits(first.out.lse, second.out.lse));
}

TEST_F(HipPluginRun, ATooSmallWorkspaceIsAnErrorNamingTheIntermediate) {
  const MlaDecodeProblem p = problem("small_ws", 16, 1, {300}, {1}, DType::bf16, DType::bf16, DecodePath::split_kv);
  const AbiMlaProblem abi(p);
  const std::uint64_t needed = table().workspace_bytes(instance_, &abi.get());
  ASSERT_GT(needed, 0u);
  MlaDecodeStaging staging(p, make_inputs(p), StagingMemory::device, needed / 2);
  DeviceStream stream;
  char error[512] = {};
  const mlacheck_mla_tensors& tensors = staging.abi_tensors();
  EXPECT_NE(table().run(instance_, &staging.abi_problem(), &tensors, stream.handle(), error, sizeof error), 0);
  EXPECT_NE(std::string(error).find("workspace"), std::string::npos) << error;
  stream.synchronize();
  EXPECT_TRUE(staging.collect().diag.broken_canaries.empty()) << "nothing was written past the workspace";
}

TEST_F(HipPluginRun, TensorsThatDisagreeWithTheProblemAreNamed) {
  const MlaDecodeProblem p = problem("bad_view", 16, 1, {40}, {1}, DType::bf16, DType::bf16, DecodePath::split_kv);
  MlaDecodeStaging staging(p, make_inputs(p), StagingMemory::device, 1 << 20);
  mlacheck_mla_tensors views = staging.abi_tensors();
  views.o.dtype = MLACHECK_DTYPE_F16;
  DeviceStream stream;
  char error[512] = {};
  EXPECT_NE(table().run(instance_, &staging.abi_problem(), &views, stream.handle(), error, sizeof error), 0);
  EXPECT_NE(std::string(error).find("tensor o "), std::string::npos) << error;
  views = staging.abi_tensors();
  views.q.strides[1] = 1;
  EXPECT_NE(table().run(instance_, &staging.abi_problem(), &views, stream.handle(), error, sizeof error), 0);
  EXPECT_NE(std::string(error).find("tensor q "), std::string::npos) << error;
}

TEST_F(HipPluginRun, SupportsNamesWhatItRefuses) {
  MlaDecodeProblem p = problem("odd_rank", 16, 1, {40}, {1}, DType::bf16, DType::bf16, DecodePath::split_kv);
  p.rope_dim = 128;  // valid, but wider than the row-group kernels' rope tile
  p = with_defaults(p);
  const AbiMlaProblem abi(p);
  const std::optional<std::string> built_in_answer = built_in_->supports(p);
  const char* plugin_answer = table().supports(instance_, &abi.get());
  ASSERT_TRUE(built_in_answer.has_value());
  ASSERT_NE(plugin_answer, nullptr);
  EXPECT_EQ(*built_in_answer, plugin_answer);
  const AbiMlaProblem fine(problem("fine", 16, 1, {40}, {1}, DType::bf16, DType::bf16, DecodePath::split_kv));
  EXPECT_EQ(table().supports(instance_, &fine.get()), nullptr);
}

}  // namespace
}  // namespace mlacheck
