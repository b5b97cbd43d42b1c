// mlacheck merge and the --out folder: shards combine in order, a repeated id names both places,
// and the folder's three files agree.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "reports/csv_reader.hpp"
#include "reports/csv_writer.hpp"
#include "reports/report_error.hpp"
#include "reports/report_folder.hpp"
#include "reports/report_merge.hpp"
#include "reports/tests/sample_rows.hpp"

namespace mlacheck {
namespace {

using test::mla_row;
using test::ScratchDir;

CaseResult row(const std::string& id) { return mla_row(id, ResultState::passed, 100, DType::bf16, "split_kv", 1e-3); }

TEST(ReportMerge, ShardsCombineInOrder) {
  ScratchDir dir;
  write_csv_report(dir.file("0.csv"), std::vector{row("a"), row("b")});
  write_csv_report(dir.file("1.csv"), std::vector{row("c")});
  const std::vector<CsvReport> shards = {read_csv_report(dir.file("0.csv")), read_csv_report(dir.file("1.csv"))};
  const std::vector<CaseResult> merged = merge_reports(shards);
  ASSERT_EQ(merged.size(), 3u);
  EXPECT_EQ(merged[0].id, "a");
  EXPECT_EQ(merged[2].id, "c");
  // Writing over one of the inputs is safe: the new file replaces it whole.
  write_csv_report(dir.file("0.csv"), merged);
  EXPECT_EQ(read_csv_report(dir.file("0.csv")).rows.size(), 3u);
  EXPECT_FALSE(std::filesystem::exists(dir.file("0.csv.partial")));
}

TEST(ReportMerge, ARepeatedIdNamesBothFilesAndLines) {
  ScratchDir dir;
  write_csv_report(dir.file("0.csv"), std::vector{row("a"), row("b")});
  write_csv_report(dir.file("1.csv"), std::vector{row("c"), row("b")});
  const std::vector<CsvReport> shards = {read_csv_report(dir.file("0.csv")), read_csv_report(dir.file("1.csv"))};
  try {
    merge_reports(shards);
    FAIL() << "no error";
  } catch (const ReportError& e) {
    EXPECT_EQ(std::string(e.what()), "duplicate id 'b' in " + dir.file("0.csv") + ":3 and " + dir.file("1.csv") + ":3");
  }
}

TEST(ReportFolder, WritesAllThreeFromTheCsv) {
  ScratchDir dir;
  ReportFolder folder(dir.path().string(), ReportFolder::Mode::fresh);
  folder.append(row("a"));
  folder.append(mla_row("b", ResultState::failed, 100, DType::bf16, "split_kv", 1.0));
  folder.finish();
  EXPECT_EQ(read_csv_report(dir.file("report.csv")).rows.size(), 2u);
  std::ifstream junit(dir.file("junit.xml")), html(dir.file("report.html"));
  const std::string j((std::istreambuf_iterator<char>(junit)), {}), h((std::istreambuf_iterator<char>(html)), {});
  EXPECT_NE(j.find("tests=\"2\" failures=\"1\""), std::string::npos);
  EXPECT_NE(h.find("<section id=\"all-cases\">"), std::string::npos);
}

std::string folder_error(const std::string& path, ReportFolder::Mode mode) {
  try {
    ReportFolder folder(path, mode);
  } catch (const ReportError& e) {
    return e.what();
  }
  return "no error";
}

TEST(ReportFolder, CreatesAMissingFolderAndRefusesAFile) {
  ScratchDir dir;
  EXPECT_EQ(folder_error(dir.file("new/nested"), ReportFolder::Mode::fresh), "no error");
  EXPECT_TRUE(std::filesystem::exists(dir.file("new/nested/report.csv")));
  std::ofstream(dir.file("plain")) << "x";
  EXPECT_EQ(folder_error(dir.file("plain"), ReportFolder::Mode::fresh),
            "output folder " + dir.file("plain") + " is not a folder");
  EXPECT_EQ(folder_error(dir.file("absent"), ReportFolder::Mode::resume),
            "--resume: output folder " + dir.file("absent") + " does not exist; nothing to resume");
}

TEST(ReportFolder, NeverTruncatesAReportUnlessTold) {
  ScratchDir dir;
  {
    ReportFolder first(dir.path().string(), ReportFolder::Mode::fresh);
    first.append(row("a"));
    first.finish();
  }
  EXPECT_EQ(folder_error(dir.path().string(), ReportFolder::Mode::fresh),
            dir.file("report.csv") + " already holds a run's report: --resume finishes that run, --force replaces it");
  EXPECT_EQ(read_csv_report(dir.file("report.csv")).rows.size(), 1u);  // untouched
  {
    ReportFolder resumed(dir.path().string(), ReportFolder::Mode::resume);
    EXPECT_EQ(resumed.resume_rows().size(), 1u);
    EXPECT_TRUE(std::filesystem::exists(dir.file("report.html")));  // resume keeps the folder as it is
  }
  {
    ReportFolder replaced(dir.path().string(), ReportFolder::Mode::replace);
    // The old run's junit.xml and report.html are gone until this run writes its own.
    EXPECT_FALSE(std::filesystem::exists(dir.file("junit.xml")));
    EXPECT_FALSE(std::filesystem::exists(dir.file("report.html")));
  }
  EXPECT_EQ(read_csv_report(dir.file("report.csv")).rows.size(), 0u);
}

}  // namespace
}  // namespace mlacheck
