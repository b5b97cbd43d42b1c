#pragma once
// Rows and files for the report tests: realistic rows built from real descriptors (so their
// repro strings parse), and a scratch folder per test.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "core/gather_problem.hpp"
#include "core/mla_problem.hpp"
#include "harness/case_result.hpp"

namespace mlacheck::test {

inline ComparedTensor tensor(std::string name, double rms_rel_err, double tol_rms = 1e-2) {
  ComparedTensor t;
  t.name = std::move(name);
  t.stats.total = 4096;
  t.stats.max_abs_err = rms_rel_err * 3;
  t.stats.max_rel_err = rms_rel_err * 10;
  t.stats.rms_rel_err = rms_rel_err;
  t.stats.cosine = 1.0 - rms_rel_err * rms_rel_err / 2;
  t.tol = Tolerance{1e-3, 1e-2, tol_rms, "bf16 out, fp32 acc, n=" + std::to_string(4096)};
  return t;
}

inline CaseResult mla_row(const std::string& id, ResultState state, int kv_len, DType kv_dtype, const std::string& path,
                          double o_err) {
  MlaDecodeProblem p;
  p.name = id;
  p.kv_lens = {kv_len, 3};
  p.q_lens = {1, 3};
  p.kv_dtype = kv_dtype;
  if (is_fp8(kv_dtype)) p.kv_scale = 0.0625f;
  p = with_defaults(p);
  CaseResult row;
  row.id = id;
  row.op = "mla_decode";
  row.repro = to_repro(p);
  row.backend = "hip";
  row.device = "NVIDIA H100 80GB HBM3 (sm_90)";
  row.device_index = 1;
  row.device_pci_bus_id = "0000:2a:00.0";
  row.path = path;
  row.state = state;
  if (state == ResultState::skipped) {
    row.reason = "no GPU: hipGetDeviceCount returned 0";
    row.skip_reason = SkipReason::no_device;
    return row;
  }
  if (state == ResultState::errored) {
    row.reason = "hipErrorIllegalAddress: an illegal memory access was encountered";
    row.error_kind = ErrorKind::device_lost;
    return row;
  }
  row.tensors = {tensor("O", o_err), tensor("LSE", o_err / 4)};
  row.tensors[0].worst_element = "request 1, query token 2, head 5, channel 130";
  if (state == ResultState::failed) {
    row.fail_kind = FailKind::wrong_output;
    row.tensors[0].stats.mismatches = 17;
    row.tensors[0].stats.nonfinite = 3;
    row.tensors[0].stats.nan_written = 2;
    row.reason = "O: 2 of 4096 elements are NaN written by the kernel, 1 of 4096 elements Inf where the reference "
                 "is finite, 17 of 4096 elements outside tolerance (worst at request 1, query token 2, head 5, "
                 "channel 130)";
  }
  row.canaries = "ok";
  row.num_splits = 4;
  row.reference_ms = 12.5;
  row.device_ms = 0.125;
  row.wall_ms = 20.0625;
  return row;
}

inline CaseResult gather_row(const std::string& id, ResultState state, CacheLayout layout, bool interleaved) {
  KvGatherProblem p;
  p.name = id;
  p.layout = layout;
  p.interleaved = interleaved;
  p.kv_lens = {33, 7};
  p = with_defaults(p);
  CaseResult row;
  row.id = id;
  row.op = "kv_gather";
  row.repro = to_repro(p);
  row.backend = "hip";
  row.backend_version = "2.1.0-test";
  row.device = "gpu";
  row.path = "gather";
  row.state = state;
  row.tensors = {tensor("K", 0.0, 0.0), tensor("V", 0.0, 0.0)};
  row.canaries = "ok";
  row.wall_ms = 1.5;
  return row;
}

// A fresh, empty folder named after the running test, removed when the test ends.
class ScratchDir {
 public:
  ScratchDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    path_ = std::filesystem::temp_directory_path() /
            (std::string("mlacheck_reports_") + info->test_suite_name() + "_" + info->name());
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() { std::filesystem::remove_all(path_); }
  std::string file(const std::string& name) const { return (path_ / name).string(); }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace mlacheck::test
