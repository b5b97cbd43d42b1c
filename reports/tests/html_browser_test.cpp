// report.html in a real browser: headless Chromium parses it (the DOM it dumps still has every
// section and plot mark) and renders it to a PNG kept in the build tree for a person to look at.
// Chromium is large, so CI does not install it: without it the test says SKIPPED and why.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "reports/html_report.hpp"
#include "reports/tests/html_scan.hpp"
#include "reports/tests/sample_rows.hpp"

namespace mlacheck {
namespace {

std::string find_chromium() {
  if (const char* env = std::getenv("MLACHECK_CHROMIUM")) return env;
  for (const char* name : {"chromium", "chromium-browser", "google-chrome"}) {
    if (std::system(("command -v " + std::string(name) + " > /dev/null 2>&1").c_str()) == 0) return name;
  }
  return "";
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<CaseResult> a_run() {
  std::vector<CaseResult> rows;
  int i = 0;
  for (DType dtype : {DType::bf16, DType::f16, DType::fp8_e4m3fn}) {
    for (int kv : {1, 7, 64, 515, 4097, 16384}) {
      for (const char* path : {"split_kv", "persistent"}) {
        const double err = 5e-6 * std::sqrt(kv) * (dtype == DType::fp8_e4m3fn ? 8 : 1) * (path[0] == 'p' ? 1.3 : 1);
        rows.push_back(test::mla_row("case" + std::to_string(i++), ResultState::passed, kv, dtype, path, err));
      }
    }
  }
  rows.push_back(test::mla_row("tile-from-lk", ResultState::failed, 4097, DType::bf16, "split_kv", 0.4));
  rows.push_back(test::mla_row("illegal-address", ResultState::errored, 515, DType::f16, "", 0));
  rows.push_back(test::mla_row("no-gpu", ResultState::skipped, 64, DType::bf16, "", 0));
  rows.push_back(test::gather_row("gather.shuffle", ResultState::passed, CacheLayout::shuffle, true));
  return rows;
}

// Runs chromium headless on `args` with a time limit; returns its exit status.
int chromium(const std::string& exe, const std::string& args, const std::string& log) {
  return std::system(("timeout 120 " + exe + " --headless --no-sandbox --disable-gpu --hide-scrollbars " + args +
                      " > " + log + " 2>&1")
                         .c_str());
}

TEST(HtmlBrowser, ChromiumRendersTheReport) {
  const std::string exe = find_chromium();
  if (exe.empty()) {
    GTEST_SKIP() << "chromium not installed (MLACHECK_WITH_BROWSER=1 scripts/install-deps.sh installs it)";
  }
  test::ScratchDir dir;
  KillMatrixGrid kill;
  kill.scenarios = {"S1.heads_below_16", "S5.tile_width"};
  kill.faults = {"none", "pad_heads_unpadded", "tile_from_lk"};
  kill.cells = {{ResultState::passed, ResultState::failed, ResultState::passed},
                {ResultState::passed, ResultState::passed, ResultState::failed}};
  kill.intended = {1, 2};
  HtmlReportOptions options;
  options.kill_matrix = kill;
  const std::vector<CaseResult> rows = a_run();
  write_html_file(dir.file("report.html"), rows, options);
  std::ofstream(dir.file("blank.html")) << "<!DOCTYPE html><html><body></body></html>\n";

  const std::string url = "file://" + dir.file("report.html");
  ASSERT_EQ(chromium(exe, "--dump-dom " + url, dir.file("dom.html")), 0) << slurp(dir.file("dom.html"));
  const auto tags = test::scan_tags(slurp(dir.file("dom.html")));
  for (const char* id : {"summary", "worst-cases", "categories", "error-vs-kv-len", "error-histogram", "bound-used",
                         "coverage", "kill-matrix", "all-cases"}) {
    EXPECT_FALSE(test::tags_in_section(tags, id).empty()) << id;
  }
  EXPECT_EQ(test::count_named(test::tags_in_section(tags, "error-vs-kv-len"), "circle"), 38u);

  // The screenshot stays in the build tree (reports/tests/report-screenshot.png) to be looked at.
  const std::string png = MLACHECK_TEST_OUTPUT_DIR "/report-screenshot.png";
  const std::string blank_png = dir.file("blank.png");
  std::filesystem::remove(png);
  ASSERT_EQ(chromium(exe, "--window-size=1280,2600 --screenshot=" + png + " " + url, dir.file("shot.log")), 0)
      << slurp(dir.file("shot.log"));
  ASSERT_EQ(chromium(exe, "--window-size=1280,2600 --screenshot=" + blank_png + " file://" + dir.file("blank.html"),
                     dir.file("blank.log")),
            0);
  const std::string image = slurp(png);
  ASSERT_GT(image.size(), 24u);
  EXPECT_EQ(image.substr(0, 8), "\x89PNG\r\n\x1a\n");
  // Width and height from the IHDR chunk, big-endian.
  const auto be32 = [&](std::size_t at) {
    return (static_cast<unsigned char>(image[at]) << 24) | (static_cast<unsigned char>(image[at + 1]) << 16) |
           (static_cast<unsigned char>(image[at + 2]) << 8) | static_cast<unsigned char>(image[at + 3]);
  };
  EXPECT_EQ(be32(16), 1280u);
  EXPECT_EQ(be32(20), 2600u);
  // A blank page of the same size compresses to almost nothing; a rendered report cannot.
  EXPECT_GT(image.size(), 20 * slurp(blank_png).size()) << "the screenshot looks blank";
}

}  // namespace
}  // namespace mlacheck
