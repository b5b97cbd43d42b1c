// The test op host_copy runs through the generic driver (harness/op_registry_driver.hpp), the
// settle step and the report writer exactly as the shipped ops do, added by this folder and the
// one registration line below.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <variant>
#include <vector>

#include "harness/op_registry.hpp"
#include "plan/case_settle.hpp"
#include "reports/csv_writer.hpp"
#include "reports/report_columns.hpp"
#include "tests/test_op/host_copy_op.hpp"

namespace mlacheck::test_op {
namespace {

// The registration line: the shipped ops plus the test op.
using TestOps = OpRegistry<std::tuple<MlaDecodeOp, KvGatherOp, HostCopyOp>>;

// A backend that runs nothing itself: host_copy's "kernel" is a host copy; the shipped ops'
// hooks would throw, and no test here hands them one.
class HostBackend : public Backend {
 public:
  std::string name() const override { return "host"; }
  std::string device_name() const override { return "cpu"; }
  std::optional<std::string> supports(const MlaDecodeProblem&) const override { return "host_copy only"; }
  std::optional<std::string> supports(const KvGatherProblem&) const override { return "host_copy only"; }
  MlaDecodeRun run(const MlaDecodeProblem&, const MlaDecodeInputs&, const FaultSet&) override {
    throw std::logic_error("HostBackend runs no mla_decode");
  }
  KvGatherRun run(const KvGatherProblem&, const KvGatherInputs&, const FaultSet&) override {
    throw std::logic_error("HostBackend runs no kv_gather");
  }
};

CaseResult settled(CaseResult row, bool backend_expected = false) {
  SettleContext context;
  context.origin = CaseOrigin::curated;
  context.backend_kind = BackendKind::external;
  context.backend_expected = backend_expected;
  settle_case(row, context);
  return row;
}

TEST(HostCopyOp, ParsesAndPrintsThroughTheDriver) {
  const std::string repro = "host_copy:name=a;n=16;seed=3;flip=2";
  EXPECT_EQ(TestOps::op_of_repro(repro), "host_copy");
  const TestOps::Problem c = TestOps::parse(repro);
  ASSERT_TRUE(std::holds_alternative<HostCopyProblem>(c));
  EXPECT_EQ(TestOps::name(c), "host_copy");
  EXPECT_EQ(TestOps::repro(c), repro);
  EXPECT_EQ(TestOps::case_name(c), "a");
  EXPECT_EQ(TestOps::names(), "mla_decode, kv_gather, host_copy");
  EXPECT_FALSE(TestOps::has_queries("host_copy"));
  EXPECT_EQ(TestOps::facets(c).buckets, std::vector<std::string>{"planted bug"});
  EXPECT_THROW(TestOps::parse("host_copy:name=a;n=0"), std::invalid_argument);
  // The shipped registry does not know the test op.
  EXPECT_EQ(op_of_repro(repro), "");
  EXPECT_THROW(parse_case(repro), std::invalid_argument);
  EXPECT_THROW(op_abi_case_kind("host_copy"), std::invalid_argument);
  EXPECT_EQ(op_abi_case_kind("kv_gather"), KvGatherOp::abi_case_kind);
}

TEST(HostCopyOp, ACorrectCopyPassesAndAPlantedBugFails) {
  HostBackend backend;
  const CaseResult good =
      settled(TestOps::run(TestOps::parse("host_copy:name=good;n=64;seed=9"), &backend, "", {}));
  EXPECT_EQ(good.state, ResultState::passed) << good.reason;
  ASSERT_EQ(good.tensors.size(), 1u);
  EXPECT_EQ(good.tensors[0].stats.total, 64u);

  const TestOps::Prepared prepared =
      TestOps::prepare(TestOps::parse("host_copy:name=bad;n=64;seed=9;flip=5"), &backend, "", {}, 1);
  const CaseResult bad = settled(TestOps::finish(prepared, &backend, {}));
  EXPECT_EQ(bad.state, ResultState::failed);
  EXPECT_EQ(bad.fail_kind, FailKind::wrong_output);
  EXPECT_EQ(bad.tensors[0].stats.mismatches, 1u);
}

TEST(HostCopyOp, NoBackendIsSettledLikeAnyOp) {
  const TestOps::Problem c = TestOps::parse("host_copy:name=x;n=4;seed=1");
  const CaseResult no_gpu = settled(TestOps::run(c, nullptr, "no GPU here", {}), false);
  EXPECT_EQ(no_gpu.state, ResultState::skipped);
  EXPECT_EQ(no_gpu.skip_reason, SkipReason::no_device);
  const CaseResult not_started = settled(TestOps::run(c, nullptr, "the backend did not start", {}), true);
  EXPECT_EQ(not_started.state, ResultState::errored);
}

TEST(HostCopyOp, ReportRowsHaveItsOwnColumnGroup) {
  constexpr auto groups = TestOps::report_groups;
  ASSERT_EQ(groups.size(), kTensorGroups.size() + 1);
  EXPECT_EQ(groups.back(), "C");
  const std::filesystem::path path = std::filesystem::temp_directory_path() / "mlacheck_host_copy_report.csv";
  HostBackend backend;
  {
    CsvReportWriter writer(path.string(), std::vector<std::string_view>(groups.begin(), groups.end()));
    writer.append(settled(TestOps::run(TestOps::parse("host_copy:name=bad;n=8;seed=2;flip=0"), &backend, "", {})));
  }
  std::ifstream in(path);
  std::string header, record;
  std::getline(in, header);
  std::getline(in, record);
  std::filesystem::remove(path);

  std::vector<std::string> names, cells;
  for (auto [text, out] : {std::pair{&header, &names}, std::pair{&record, &cells}}) {
    std::stringstream s(*text);
    for (std::string cell; std::getline(s, cell, ',');) out->push_back(cell);
  }
  const std::vector<std::string> expected = report_columns_for(groups);
  ASSERT_EQ(names, expected);
  ASSERT_EQ(cells.size(), names.size()) << record;
  const auto cell = [&](std::string_view column) {
    return cells[static_cast<std::size_t>(std::find(names.begin(), names.end(), column) - names.begin())];
  };
  EXPECT_EQ(cell("op"), "host_copy");
  EXPECT_EQ(cell("state"), "FAILED");
  EXPECT_EQ(cell("c_mismatches"), "1");
  EXPECT_EQ(cell("c_total"), "8");
  EXPECT_EQ(cell("o_total"), "");
  // The shipped report has no column of the test op.
  EXPECT_EQ(csv_header().find("c_max_abs_err"), std::string::npos);
}

}  // namespace
}  // namespace mlacheck::test_op
