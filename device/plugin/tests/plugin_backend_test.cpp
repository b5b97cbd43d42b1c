// PluginBackend through the harness's case driver, as `mlacheck run` drives it: the example CPU
// plugin passes every dtype, paging and multi-token shape; the wrong example and each
// misbehaving test plugin is caught with the verdict and reason a user would read in report.csv.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "core/gather_problem.hpp"
#include "core/mla_inputs.hpp"
#include "device/platform/device_info.hpp"
#include "device/plugin/plugin_backend.hpp"
#include "harness/gather_case.hpp"
#include "harness/mla_case.hpp"
#include "properties/support/mla_test_problems.hpp"

namespace mlacheck {
namespace {

std::unique_ptr<Backend> load(const std::string& path) {
  BackendOrReason loaded = load_plugin_backend(path, 0);
  EXPECT_NE(loaded.backend, nullptr) << loaded.reason;
  return std::move(loaded.backend);
}

MlaDecodeProblem decode_problem() {
  return with_defaults(test_problem("plugin-decode", 16, {{300, 17, 1}, {1, 1, 1}}));
}

// Shapes that exercise every part of the ABI the example reads: multi-token causal rows, block
// sizes 1 and 7, every cache dtype (fp8 with a scale), fp8 queries with a scale of their own (the
// ABI's q_scale), f16 and f32 outputs, a TP rank's heads, heads below 16, no rope channels.
std::vector<MlaDecodeProblem> example_problems() {
  std::vector<MlaDecodeProblem> out{decode_problem()};
  const MlaDecodeProblem mtp = test_problem("plugin-mtp-fp8", 16, {{40, 7}, {3, 2}, 7});
  out.push_back(with_defaults(with_dtypes(mtp, DType::f16, DType::fp8_e4m3fn, DType::f16, 0.03125f)));
  const MlaDecodeProblem rank = on_tp_rank(test_problem("plugin-tp-rank-fnuz", 128, {{33, 100}, {1, 4}, 1}), 8, 3);
  out.push_back(with_defaults(with_dtypes(rank, DType::bf16, DType::fp8_e4m3fnuz, DType::f32, 0.5f)));
  MlaDecodeProblem narrow = test_problem("plugin-f32-no-rope", 6, {{65}, {5}});
  narrow = with_dtypes(narrow, DType::f32, DType::f32, DType::f32);
  narrow.kv_lora_rank = 128;
  narrow.rope_dim = 0;
  out.push_back(with_defaults(narrow));
  // aiter's fp8 decode: fp8 q and cache, each with its per-tensor scale
  MlaDecodeProblem a8w8 = test_problem("plugin-fp8-queries", 16, {{70, 9}, {2, 1}});
  a8w8 = with_dtypes(a8w8, DType::fp8_e4m3fn, DType::fp8_e4m3fn, DType::bf16, 0.25f);
  a8w8.q_scale = 0.0234375f;
  out.push_back(with_defaults(a8w8));
  return out;
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// decode_problem()'s row from the plugin at `path`, into *row.
void decode_with(const std::string& path, CaseResult* row) {
  const std::unique_ptr<Backend> backend = load(path);
  ASSERT_NE(backend, nullptr);
  *row = run_mla_case(decode_problem(), backend.get(), "");
}

TEST(PluginBackend, CpuExamplePassesEveryShape) {
  const std::unique_ptr<Backend> backend = load(CPU_EXAMPLE_PLUGIN);
  ASSERT_NE(backend, nullptr);
  for (const MlaDecodeProblem& p : example_problems()) {
    const CaseResult row = run_mla_case(p, backend.get(), "");
    EXPECT_EQ(row.state, ResultState::passed) << p.name << ": " << row.reason;
    EXPECT_EQ(row.backend, "cpu-example");
    EXPECT_EQ(row.backend_version, "1.0");
    EXPECT_EQ(row.device, "cpu");
    EXPECT_EQ(row.path, "plugin");
    EXPECT_EQ(row.canaries, "ok");
    ASSERT_EQ(row.tensors.size(), 2u) << "O and LSE are both compared";
    EXPECT_EQ(row.tensors[1].name, "LSE");
  }
}

TEST(PluginBackend, WrongExampleFailsOnO) {
  CaseResult row;
  ASSERT_NO_FATAL_FAILURE(decode_with(WRONG_EXAMPLE_PLUGIN, &row));
  EXPECT_EQ(row.state, ResultState::failed);
  EXPECT_EQ(row.reason.rfind("O: ", 0), 0u) << row.reason;
}

TEST(PluginBackend, WriteAfterOIsFailedNamingItsCanary) {
  CaseResult row;
  ASSERT_NO_FATAL_FAILURE(decode_with(TEST_PLUGIN_OVERRUN, &row));
  EXPECT_EQ(row.state, ResultState::failed);
  EXPECT_TRUE(contains(row.reason, "guard canary overwritten: o(after)")) << row.reason;
  EXPECT_EQ(row.canaries, "broken: o(after)");
}

TEST(PluginBackend, UnwrittenElementIsFailed) {
  CaseResult row;
  ASSERT_NO_FATAL_FAILURE(decode_with(TEST_PLUGIN_UNWRITTEN, &row));
  EXPECT_EQ(row.state, ResultState::failed);
  EXPECT_TRUE(contains(row.reason, "O: 1 of") && contains(row.reason, "elements never written")) << row.reason;
}

TEST(PluginBackend, NanInOIsFailed) {
  CaseResult row;
  ASSERT_NO_FATAL_FAILURE(decode_with(TEST_PLUGIN_NAN, &row));
  EXPECT_EQ(row.state, ResultState::failed);
  EXPECT_TRUE(contains(row.reason, "O: 1 of") && contains(row.reason, "elements are NaN written by the kernel")) << row.reason;
}

TEST(PluginBackend, ErrorCodeIsErroredWithThePluginsMessage) {
  CaseResult row;
  ASSERT_NO_FATAL_FAILURE(decode_with(TEST_PLUGIN_ERROR, &row));
  EXPECT_EQ(row.state, ResultState::errored);
  EXPECT_EQ(row.reason, "plugin test-error: error test plugin: deliberate failure in case plugin-decode");
}

TEST(PluginBackend, Log2LseIsConvertedWhenDeclared) {
  CaseResult row;
  ASSERT_NO_FATAL_FAILURE(decode_with(TEST_PLUGIN_LSE_LOG2, &row));
  EXPECT_EQ(row.state, ResultState::passed) << row.reason;
  // The same values declared natural: the LSE comparison must notice.
  CaseResult wrong;
  ASSERT_NO_FATAL_FAILURE(decode_with(TEST_PLUGIN_LSE_BASE_MISMATCH, &wrong));
  EXPECT_EQ(wrong.state, ResultState::failed);
  EXPECT_EQ(wrong.reason.rfind("LSE: ", 0), 0u) << wrong.reason;
}

TEST(PluginBackend, NoLseDeclaredIsJudgedOnOAlone) {
  CaseResult row;
  ASSERT_NO_FATAL_FAILURE(decode_with(TEST_PLUGIN_NO_LSE, &row));
  EXPECT_EQ(row.state, ResultState::passed) << row.reason;
  ASSERT_EQ(row.tensors.size(), 1u);
  EXPECT_EQ(row.tensors[0].name, "O");
}

TEST(PluginBackend, RefusedShapeIsSkippedWithThePluginsReason) {
  const std::unique_ptr<Backend> backend = load(TEST_PLUGIN_PICKY);
  ASSERT_NE(backend, nullptr);
  MlaDecodeProblem multi = decode_problem();
  multi.q_lens = {1, 2, 1};
  const CaseResult refused = run_mla_case(multi, backend.get(), "");
  EXPECT_EQ(refused.state, ResultState::skipped);
  EXPECT_EQ(refused.reason, "picky test plugin: one query token per request only");
  EXPECT_EQ(run_mla_case(decode_problem(), backend.get(), "").state, ResultState::passed);
}

TEST(PluginBackend, GatherCasesAreSkipped) {
  const std::unique_ptr<Backend> backend = load(CPU_EXAMPLE_PLUGIN);
  ASSERT_NE(backend, nullptr);
  KvGatherProblem g;
  g.name = "plugin-gather";
  g.kv_lens = {20};
  const CaseResult row = run_gather_case(with_defaults(g), backend.get(), "");
  EXPECT_EQ(row.state, ResultState::skipped);
  EXPECT_EQ(row.reason, "plugin backends run mla_decode only");
}

TEST(PluginBackend, FaultsAreRefused) {
  const std::unique_ptr<Backend> backend = load(CPU_EXAMPLE_PLUGIN);
  ASSERT_NE(backend, nullptr);
  const CaseResult row = run_mla_case(decode_problem(), backend.get(), "", {Fault::tile_width_from_lk});
  EXPECT_EQ(row.state, ResultState::errored);
  EXPECT_TRUE(contains(row.reason, "a plugin runs unfaulted")) << row.reason;
}

TEST(PluginBackend, DevicePluginNeedsAGpu) {
  BackendOrReason loaded = load_plugin_backend(TEST_PLUGIN_DEVICE_MEMORY, 0);
  if (probe_devices().count == 0) {
    EXPECT_EQ(loaded.backend, nullptr);
    EXPECT_TRUE(contains(loaded.reason, std::string("backend plugin ") + TEST_PLUGIN_DEVICE_MEMORY +
                                            " (test-device_memory) runs on a GPU: "))
        << loaded.reason;
    return;
  }
  // With a GPU it loads on it, and its refusal to run reaches the row.
  ASSERT_NE(loaded.backend, nullptr) << loaded.reason;
  EXPECT_NE(loaded.backend->device_name(), "cpu");
  const CaseResult row = run_mla_case(decode_problem(), loaded.backend.get(), "");
  // Rows name the GPU a device plugin ran on, as they do for the built-in backend.
  EXPECT_EQ(row.device_index, 0);
  EXPECT_FALSE(row.device_pci_bus_id.empty());
  EXPECT_EQ(row.state, ResultState::errored);
  EXPECT_TRUE(contains(row.reason, "plugin test-device_memory: device_memory test plugin: deliberate failure"))
      << row.reason;
}

TEST(PluginBackend, HostTimingTimesEveryRun) {
  BackendOrReason loaded = load_plugin_backend(CPU_EXAMPLE_PLUGIN, 0);
  auto* plugin = dynamic_cast<PluginBackend*>(loaded.backend.get());
  ASSERT_NE(plugin, nullptr);
  const MlaDecodeProblem p = decode_problem();
  const DecodeTiming t = plugin->time_decode(p, make_inputs(p), 1, 3);
  EXPECT_EQ(t.path, "plugin");
  ASSERT_EQ(t.us.size(), 3u);
  EXPECT_GT(t.median_us, 0.0);
  // A run that writes past its buffer is no timing.
  BackendOrReason overrun = load_plugin_backend(TEST_PLUGIN_OVERRUN, 0);
  auto* bad = dynamic_cast<PluginBackend*>(overrun.backend.get());
  ASSERT_NE(bad, nullptr);
  EXPECT_THROW(bad->time_decode(p, make_inputs(p), 0, 1), std::runtime_error);
}

}  // namespace
}  // namespace mlacheck
