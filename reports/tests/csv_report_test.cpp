// report.csv: the documented columns, exact round trips of awkward text and numbers, flushing per
// row, and a clear file:line error for each kind of damage.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <functional>
#include <limits>
#include <sstream>

#include "reports/csv_reader.hpp"
#include "reports/csv_writer.hpp"
#include "reports/report_columns.hpp"
#include "reports/report_error.hpp"
#include "reports/tests/sample_rows.hpp"

namespace mlacheck {
namespace {

using test::ScratchDir;

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void spit(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

void expect_same_row(const CaseResult& a, const CaseResult& b) {
  EXPECT_EQ(a.id, b.id);
  EXPECT_EQ(a.op, b.op);
  EXPECT_EQ(a.repro, b.repro);
  EXPECT_EQ(a.backend, b.backend);
  EXPECT_EQ(a.backend_version, b.backend_version);
  EXPECT_EQ(a.device, b.device);
  EXPECT_EQ(a.device_index, b.device_index);
  EXPECT_EQ(a.device_pci_bus_id, b.device_pci_bus_id);
  EXPECT_EQ(a.path, b.path);
  EXPECT_EQ(a.skip_reason, b.skip_reason);
  EXPECT_EQ(a.error_kind, b.error_kind);
  EXPECT_EQ(a.fail_kind, b.fail_kind);
  EXPECT_EQ(a.faults, b.faults);
  EXPECT_EQ(a.state, b.state);
  EXPECT_EQ(a.reason, b.reason);
  EXPECT_EQ(a.canaries, b.canaries);
  EXPECT_EQ(a.shrunk_repro, b.shrunk_repro);
  EXPECT_EQ(a.num_splits, b.num_splits);
  EXPECT_EQ(a.reference_ms, b.reference_ms);
  EXPECT_EQ(a.device_ms, b.device_ms);
  EXPECT_EQ(a.wall_ms, b.wall_ms);
  ASSERT_EQ(a.tensors.size(), b.tensors.size()) << a.id;
  for (std::size_t i = 0; i < a.tensors.size(); ++i) {
    const ComparedTensor &x = a.tensors[i], &y = b.tensors[i];
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.stats.total, y.stats.total);
    EXPECT_EQ(x.stats.mismatches, y.stats.mismatches);
    EXPECT_EQ(x.stats.nonfinite, y.stats.nonfinite);
    EXPECT_EQ(x.stats.unwritten, y.stats.unwritten);
    EXPECT_EQ(x.stats.nan_written, y.stats.nan_written);
    EXPECT_EQ(x.worst_element, y.worst_element);
    EXPECT_EQ(x.tol.rule, y.tol.rule);
    for (auto [u, v] : {std::pair{x.stats.max_abs_err, y.stats.max_abs_err}, {x.stats.max_rel_err, y.stats.max_rel_err},
                        {x.stats.rms_rel_err, y.stats.rms_rel_err}, {x.stats.cosine, y.stats.cosine},
                        {x.tol.abs, y.tol.abs}, {x.tol.rel, y.tol.rel}, {x.tol.rms, y.tol.rms}}) {
      if (std::isnan(u)) {
        EXPECT_TRUE(std::isnan(v));
      } else {
        EXPECT_EQ(u, v);
      }
    }
  }
}

std::vector<CaseResult> every_kind_of_row() {
  using test::gather_row;
  using test::mla_row;
  std::vector<CaseResult> rows = {
      mla_row("dsv3.decode.0.split_kv", ResultState::passed, 4097, DType::bf16, "split_kv", 3e-3),
      mla_row("dsv3.mtp.1.persistent", ResultState::failed, 2048, DType::fp8_e4m3fn, "persistent", 0.25),
      mla_row("k3.bs7.2", ResultState::errored, 1000, DType::f16, "", 0),
      mla_row("no-gpu", ResultState::skipped, 17, DType::bf16, "", 0),
      gather_row("gather.shuffle.interleaved", ResultState::passed, CacheLayout::shuffle, true),
  };
  rows[1].faults = "pad_heads_unpadded,tile_from_lk";
  rows[1].canaries = "broken: o(after), lse(before)";
  rows[1].shrunk_repro = "mla_decode:name=dsv3.mtp.1.persistent;kv=1;q=1";
  rows[1].fail_kind = FailKind::wrong_output;
  rows[2].state = ResultState::known_bug;
  rows[2].error_kind = ErrorKind::device_lost;  // a known bug keeps the kind it had
  rows[2].reason = "known bug KB-3 \"fp16 split\", see known_bugs.csv";
  rows[3].reason = "line one, with a comma\nline \"two\"\r\nline three; key=value";
  rows[3].skip_reason = SkipReason::no_device;
  return rows;
}

CsvReport write_and_read(const ScratchDir& dir, const std::vector<CaseResult>& rows) {
  {
    CsvReportWriter w(dir.file("report.csv"));
    for (const CaseResult& r : rows) w.append(r);
  }
  return read_csv_report(dir.file("report.csv"));
}

std::string error_of(const std::string& path) {
  try {
    read_csv_report(path);
  } catch (const ReportError& e) {
    return e.what();
  }
  return "no error";
}

TEST(CsvReport, HeaderIsTheDocumentedColumnList) {
  ScratchDir dir;
  CsvReportWriter w(dir.file("report.csv"));
  const std::string header = slurp(dir.file("report.csv"));
  EXPECT_EQ(header.substr(0, 99),
            "id,op,repro,backend,backend_version,device,device_index,device_pci_bus_id,path,faults,state,reason,");
  EXPECT_NE(header.find(",reason,o_max_abs_err,o_max_rel_err,o_rms_rel_err,o_cosine,o_mismatches,"), std::string::npos);
  EXPECT_NE(header.find(",v_tol_rule,canaries,num_splits,reference_ms,device_ms,wall_ms,"), std::string::npos);
  EXPECT_NE(header.find(",wall_ms,o_nan_written,o_worst_element,lse_nan_written,"), std::string::npos);
  EXPECT_NE(header.find(",v_nan_written,v_worst_element,"), std::string::npos);
  EXPECT_NE(header.find(",v_worst_element,shrunk_repro,skip_reason,error_kind,fail_kind,caught_by\n"), std::string::npos);
  EXPECT_EQ(kReportColumnCount, 78u);
  // The whole header, word for word: the ops' column groups come from the registry
  // (harness/op_registry.hpp), and the shipped ones must keep the published format.
  EXPECT_EQ(header,
      "id,op,repro,backend,backend_version,device,device_index,device_pci_bus_id,path,faults,state,"
      "reason,o_max_abs_err,o_max_rel_err,o_rms_rel_err,o_cosine,o_mismatches,o_nonfinite,o_unwritten,"
      "o_total,o_tol_abs,o_tol_rel,o_tol_rms,o_tol_rule,lse_max_abs_err,lse_max_rel_err,"
      "lse_rms_rel_err,lse_cosine,lse_mismatches,lse_nonfinite,lse_unwritten,lse_total,lse_tol_abs,"
      "lse_tol_rel,lse_tol_rms,lse_tol_rule,k_max_abs_err,k_max_rel_err,k_rms_rel_err,k_cosine,"
      "k_mismatches,k_nonfinite,k_unwritten,k_total,k_tol_abs,k_tol_rel,k_tol_rms,k_tol_rule,"
      "v_max_abs_err,v_max_rel_err,v_rms_rel_err,v_cosine,v_mismatches,v_nonfinite,v_unwritten,"
      "v_total,v_tol_abs,v_tol_rel,v_tol_rms,v_tol_rule,canaries,num_splits,reference_ms,device_ms,"
      "wall_ms,o_nan_written,o_worst_element,lse_nan_written,lse_worst_element,k_nan_written,"
      "k_worst_element,v_nan_written,v_worst_element,shrunk_repro,skip_reason,error_kind,fail_kind,"
      "caught_by\n");
  const std::string doc = slurp(MLACHECK_SOURCE_DIR "/docs/report-columns.md");
  ASSERT_FALSE(doc.empty());
  for (std::string_view c : kLeadingColumns) EXPECT_NE(doc.find("| `" + std::string(c) + "` |"), std::string::npos) << c;
  for (std::string_view c : kTrailingColumns) EXPECT_NE(doc.find("| `" + std::string(c) + "` |"), std::string::npos) << c;
  for (std::string_view c : kAddedFinalColumns) EXPECT_NE(doc.find("| `" + std::string(c) + "` |"), std::string::npos) << c;
  for (std::string_view m : kTensorMetrics) EXPECT_NE(doc.find("| `<t>_" + std::string(m) + "` |"), std::string::npos) << m;
  for (std::string_view m : kAddedTensorMetrics) {
    EXPECT_NE(doc.find("| `<t>_" + std::string(m) + "` |"), std::string::npos) << m;
  }
}

TEST(CsvReport, EveryKindOfRowRoundTripsExactly) {
  ScratchDir dir;
  const std::vector<CaseResult> rows = every_kind_of_row();
  const CsvReport back = write_and_read(dir, rows);
  ASSERT_EQ(back.rows.size(), rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) expect_same_row(rows[i], back.rows[i]);
  // Row 4 (no-gpu) holds a quoted field over three lines, so row 5 starts on line 8.
  EXPECT_EQ(back.lines, (std::vector<int>{2, 3, 4, 5, 8}));
}

TEST(CsvReport, QuotesOnlyWhatNeedsQuoting) {
  CaseResult row = test::mla_row("q", ResultState::failed, 100, DType::bf16, "split_kv", 1.0);
  row.reason = "a \"b\", c";
  const std::string record = csv_record(row);
  EXPECT_EQ(record.rfind("q,mla_decode,\"mla_decode:name=q;", 0), 0u) << record;  // kv=100,3 has a comma
  EXPECT_NE(record.find(",FAILED,\"a \"\"b\"\", c\","), std::string::npos) << record;
  EXPECT_NE(record.find(",\"bf16 out, fp32 acc, n=4096\","), std::string::npos) << record;
}

TEST(CsvReport, NonFiniteAndExtremeNumbersRoundTrip) {
  ScratchDir dir;
  CaseResult row = test::mla_row("nan", ResultState::failed, 100, DType::bf16, "split_kv", 1.0);
  row.tensors[0].stats.cosine = std::numeric_limits<double>::quiet_NaN();
  row.tensors[0].stats.max_rel_err = std::numeric_limits<double>::infinity();
  row.tensors[1].stats.max_abs_err = std::numeric_limits<double>::denorm_min();
  row.tensors[1].stats.total = std::numeric_limits<std::size_t>::max();
  row.wall_ms = 1e300;
  const CsvReport back = write_and_read(dir, {row});
  ASSERT_EQ(back.rows.size(), 1u);
  expect_same_row(row, back.rows[0]);
}

TEST(CsvReport, ARowNeverShowsBetterThanItsWorstTensorOfAGroup) {
  CaseResult row = test::mla_row("oracle-x", ResultState::passed, 300, DType::bf16, "oracle", 1e-14);
  row.tensors.push_back(test::tensor("O (P rounded)", 5e-14));
  row.tensors.push_back(test::tensor("LSE (P rounded)", 1e-16));
  auto groups = tensors_by_group(row);
  EXPECT_EQ(groups[0]->name, "O (P rounded)");  // larger rms error
  EXPECT_EQ(groups[1]->name, "LSE");
  EXPECT_EQ(groups[2], nullptr);
  row.tensors[0].stats.mismatches = 1;  // a failing tensor wins even with the smaller error
  groups = tensors_by_group(row);
  EXPECT_EQ(groups[0]->name, "O");
}

TEST(CsvReport, ATensorWithoutColumnsIsRefusedBeforeAnythingIsWritten) {
  ScratchDir dir;
  CsvReportWriter w(dir.file("report.csv"));
  CaseResult row = test::mla_row("q", ResultState::passed, 100, DType::bf16, "split_kv", 1e-3);
  row.tensors.push_back(test::tensor("Q", 0));
  EXPECT_THROW(w.append(row), ReportError);
  EXPECT_EQ(read_csv_report(dir.file("report.csv")).rows.size(), 0u);
}

TEST(CsvReport, EachRowIsOnDiskOnceAppended) {
  ScratchDir dir;
  CsvReportWriter w(dir.file("report.csv"));
  const std::vector<CaseResult> rows = every_kind_of_row();
  for (std::size_t i = 0; i < rows.size(); ++i) {
    w.append(rows[i]);
    EXPECT_EQ(read_csv_report(dir.file("report.csv")).rows.size(), i + 1);  // the writer is still open
  }
}

TEST(CsvReport, UnwritablePathIsAClearError) {
  ScratchDir dir;
  try {
    CsvReportWriter w(dir.file("missing-folder/report.csv"));
    FAIL() << "no error";
  } catch (const ReportError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot create " + dir.file("missing-folder/report.csv")), std::string::npos);
  }
}

// Writes a good three-row report, damages it with `edit`, and returns the reader's message.
std::string damaged(const ScratchDir& dir, const std::function<void(std::string&)>& edit) {
  std::vector<CaseResult> rows = every_kind_of_row();
  rows.erase(rows.begin() + 3);  // keep one physical line per row: line n+1 is row n
  write_and_read(dir, rows);
  std::string text = slurp(dir.file("report.csv"));
  edit(text);
  spit(dir.file("report.csv"), text);
  return error_of(dir.file("report.csv"));
}

std::size_t nth_line(const std::string& text, int line) {
  std::size_t at = 0;
  for (int i = 1; i < line; ++i) at = text.find('\n', at) + 1;
  return at;
}

TEST(CsvReport, DamageIsReportedWithFileLineAndReason) {
  ScratchDir dir;
  const std::string f = dir.file("report.csv");
  EXPECT_EQ(error_of(dir.file("absent.csv")).rfind("cannot read " + dir.file("absent.csv") + ": No such file", 0), 0u);
  EXPECT_EQ(damaged(dir, [](std::string& t) { t.clear(); }), f + ":1: empty file: no header");
  EXPECT_EQ(damaged(dir, [](std::string& t) { t.replace(t.find(",o_cosine,"), 10, ",o_cos,"); }),
            f + ":1: header has unknown column 'o_cos'");
  EXPECT_EQ(damaged(dir, [](std::string& t) { t.insert(nth_line(t, 3), "x,y,z\n"); }),
            f + ":3: fewer fields than the 78 columns");
  EXPECT_EQ(damaged(dir, [](std::string& t) { t.replace(t.find(",FAILED,"), 8, ",FAIL,"); }),
            f + ":3: column 'state': 'FAIL' is not a result state (PASSED, FAILED, ERRORED, SKIPPED, MISTRUSTED, KNOWN_BUG)");
  EXPECT_EQ(damaged(dir, [](std::string& t) { t.replace(t.rfind(",1.5,"), 4, ",1.5x"); }),
            f + ":5: column 'wall_ms': '1.5x' is not a number");
  EXPECT_EQ(damaged(dir, [](std::string& t) { t.replace(t.find(",4096,"), 6, ",-1,"); }),
            f + ":2: column 'o_total': '-1' is not a number");
  EXPECT_EQ(damaged(dir, [](std::string& t) { t.insert(nth_line(t, 5), t.substr(nth_line(t, 2), nth_line(t, 3) - nth_line(t, 2))); }),
            f + ":5: id 'dsv3.decode.0.split_kv' repeats the row of line 2");
  EXPECT_EQ(damaged(dir, [](std::string& t) { t.pop_back(); }),
            f + ":5: the last row has no line end (a run killed while writing it, or a cut file)");
  EXPECT_EQ(damaged(dir, [](std::string& t) { t.resize(nth_line(t, 5) + 40); t += "\n"; }),
            f + ":5: a quoted field is not closed");
  EXPECT_EQ(damaged(dir, [](std::string& t) { t[nth_line(t, 4) + 2] = '\xC3'; }), f + ":4: not UTF-8 text");
}

TEST(CsvReport, APartlyEmptyTensorGroupIsDamage) {
  ScratchDir dir;
  CsvReportWriter(dir.file("report.csv")).append(test::mla_row("x", ResultState::passed, 9, DType::bf16, "split_kv", 0.5));
  std::string text = slurp(dir.file("report.csv"));
  text.replace(text.find(",0.875,"), 7, ",,");  // o_cosine of 0.5 error
  spit(dir.file("report.csv"), text);
  EXPECT_EQ(error_of(dir.file("report.csv")),
            dir.file("report.csv") + ":2: column 'o_cosine': '' is empty while other o_ columns are set");
}

TEST(CsvReport, AReportWithoutTheLaterColumnsReadsThemAsNotApplying) {
  // Written before backend_version, device_index and device_pci_bus_id existed (docs/report-columns.md).
  const CsvReport old = read_csv_report(MLACHECK_SOURCE_DIR "/reports/tests/data/before-device-columns.csv");
  const CsvReport now = read_csv_report(MLACHECK_SOURCE_DIR "/reports/tests/data/base.csv");
  ASSERT_EQ(old.rows.size(), now.rows.size());
  for (std::size_t i = 0; i < old.rows.size(); ++i) {
    EXPECT_EQ(old.rows[i].id, now.rows[i].id);
    EXPECT_EQ(old.rows[i].device, now.rows[i].device);
    EXPECT_EQ(old.rows[i].device_index, -1);
    EXPECT_EQ(old.rows[i].device_pci_bus_id, "");
    EXPECT_EQ(old.rows[i].backend_version, "");
  }
}

TEST(CsvReport, AReportWithoutThePerTensorDiagnosisColumnsReadsAsNoNansAndNoElementNamed) {
  // Written before <t>_nan_written and <t>_worst_element existed: base.csv is the same report with them.
  const CsvReport old = read_csv_report(MLACHECK_SOURCE_DIR "/reports/tests/data/before-diagnosis-columns.csv");
  const CsvReport now = read_csv_report(MLACHECK_SOURCE_DIR "/reports/tests/data/base.csv");
  ASSERT_EQ(old.rows.size(), now.rows.size());
  int named = 0;
  for (std::size_t i = 0; i < old.rows.size(); ++i) {
    ASSERT_EQ(old.rows[i].tensors.size(), now.rows[i].tensors.size()) << old.rows[i].id;
    for (std::size_t t = 0; t < old.rows[i].tensors.size(); ++t) {
      const ComparedTensor &was = old.rows[i].tensors[t], &is = now.rows[i].tensors[t];
      EXPECT_EQ(was.stats.nonfinite, is.stats.nonfinite);
      EXPECT_EQ(was.stats.rms_rel_err, is.stats.rms_rel_err);
      EXPECT_EQ(was.stats.nan_written, 0u);
      EXPECT_EQ(was.worst_element, "");
      named += is.worst_element.empty() ? 0 : 1;
    }
  }
  EXPECT_EQ(named, 2) << "base.csv names the worst O and LSE element of one row";
}

TEST(CsvReport, AReportWithoutTheShrunkReproColumnReadsAsNotShrunk) {
  // Written before shrunk_repro existed: base.csv is the same report with it.
  const CsvReport old = read_csv_report(MLACHECK_SOURCE_DIR "/reports/tests/data/before-shrunk-column.csv");
  const CsvReport now = read_csv_report(MLACHECK_SOURCE_DIR "/reports/tests/data/base.csv");
  ASSERT_EQ(old.rows.size(), now.rows.size());
  for (std::size_t i = 0; i < old.rows.size(); ++i) {
    EXPECT_EQ(old.rows[i].repro, now.rows[i].repro);
    EXPECT_EQ(old.rows[i].shrunk_repro, "");
  }
}

TEST(CsvReport, AReportWithoutTheDispositionColumnsReadsKindsAsUnknownWhereTheStateNeedsOne) {
  // Written before skip_reason, error_kind, fail_kind and caught_by existed: base.csv is the same
  // report with them. Nothing is guessed from the reason ("... not supported ..." stays unknown).
  const CsvReport old = read_csv_report(MLACHECK_SOURCE_DIR "/reports/tests/data/before-disposition-columns.csv");
  const CsvReport now = read_csv_report(MLACHECK_SOURCE_DIR "/reports/tests/data/base.csv");
  ASSERT_EQ(old.rows.size(), now.rows.size());
  for (std::size_t i = 0; i < old.rows.size(); ++i) {
    EXPECT_EQ(old.rows[i].state, now.rows[i].state);
    EXPECT_EQ(old.rows[i].skip_reason, old.rows[i].state == ResultState::skipped ? SkipReason::unknown : SkipReason::none);
    EXPECT_EQ(old.rows[i].error_kind, ErrorKind::none);
    EXPECT_EQ(old.rows[i].fail_kind, FailKind::none);
  }
  EXPECT_EQ(now.rows[4].skip_reason, SkipReason::unsupported);
  // Written again, an unknown kind says so: it is not dropped to "" (none).
  EXPECT_NE(csv_record(old.rows[4]).find(",unknown,,,\n"), std::string::npos) << csv_record(old.rows[4]);
}

TEST(CsvReport, EveryKindRoundTripsAndCaughtByIsWrittenFromTheTypedFields) {
  ScratchDir dir;
  std::vector<CaseResult> rows;
  for (ErrorKind k : {ErrorKind::unknown, ErrorKind::crashed, ErrorKind::timed_out, ErrorKind::device_lost,
                      ErrorKind::backend_exception, ErrorKind::harness_error, ErrorKind::backend_not_started}) {
    rows.push_back(test::mla_row("e" + std::to_string(rows.size()), ResultState::errored, 17, DType::bf16, "", 0));
    rows.back().error_kind = k;
    // The same crash wording on every row: the kind alone decides caught_by.
    rows.back().reason = "the case's process died while running this case: signal 6 (Aborted)";
  }
  for (SkipReason k : {SkipReason::unknown, SkipReason::unsupported, SkipReason::not_enough_memory,
                       SkipReason::no_device, SkipReason::not_checked_by_policy}) {
    rows.push_back(test::mla_row("s" + std::to_string(rows.size()), ResultState::skipped, 17, DType::bf16, "", 0));
    rows.back().skip_reason = k;
  }
  for (FailKind k : {FailKind::unknown, FailKind::wrong_output, FailKind::refused_curated}) {
    rows.push_back(test::mla_row("f" + std::to_string(rows.size()), ResultState::failed, 17, DType::bf16, "", 0));
    rows.back().fail_kind = k;
    if (k == FailKind::refused_curated) rows.back().tensors.clear();
  }
  const CsvReport back = write_and_read(dir, rows);
  ASSERT_EQ(back.rows.size(), rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    expect_same_row(rows[i], back.rows[i]);
    EXPECT_EQ(to_string(caught_by(back.rows[i])), to_string(caught_by(rows[i]))) << rows[i].id;
  }
  EXPECT_NE(csv_record(rows[0]).find(",unknown,,\n"), std::string::npos) << "an unknown kind claims no catch";
  EXPECT_NE(csv_record(rows[1]).find(",crashed,,crash\n"), std::string::npos);
  EXPECT_NE(csv_record(rows[4]).find(",backend_exception,,refusal\n"), std::string::npos) << "crash words, a refusal";
  EXPECT_NE(csv_record(rows.back()).find(",refused_curated,refusal\n"), std::string::npos);
}

TEST(CsvReport, AnUnknownKindWordIsDamage) {
  ScratchDir dir;
  const std::string f = dir.file("report.csv");
  std::string text = slurp(MLACHECK_SOURCE_DIR "/reports/tests/data/base.csv");
  ASSERT_NE(text.rfind(",unsupported,,,\n"), std::string::npos);
  text.replace(text.rfind(",unsupported,,,\n"), 15, ",segfault,,,");
  spit(f, text);
  EXPECT_EQ(error_of(f), f + ":6: column 'skip_reason': 'segfault' is not one of unsupported, not_enough_memory, no_device, "
                "not_checked_by_policy, unknown or empty");
}

TEST(CsvReport, ADiagnosisCellWithoutItsTensorIsDamage) {
  ScratchDir dir;
  std::string text = slurp(MLACHECK_SOURCE_DIR "/reports/tests/data/base.csv");
  // The kv_gather row: wall_ms 1.5, then o_ and lse_ (empty: it has no O or LSE), k_ and v_.
  const std::string gather_tail = ",1.5,,,,,0,,0,,,,,,\n";
  ASSERT_NE(text.find(gather_tail), std::string::npos);
  text.replace(text.find(gather_tail), gather_tail.size(), ",1.5,1,,,,0,,0,,,,,,\n");
  spit(dir.file("report.csv"), text);
  EXPECT_EQ(error_of(dir.file("report.csv")),
            dir.file("report.csv") + ":5: column 'o_nan_written': '1' is set while the o_ columns are empty");
}

TEST(CsvReport, AMissingColumnOtherThanTheLaterOnesIsDamage) {
  ScratchDir dir;
  const std::string f = dir.file("report.csv");
  EXPECT_EQ(damaged(dir, [](std::string& t) { t.replace(t.find(",faults,"), 8, ","); }),
            f + ":1: header lacks column 'faults'");
}

TEST(CsvReport, TheGpuIndexAndBusIdRoundTripAndMinusOneIsEmpty) {
  CaseResult row = test::mla_row("g", ResultState::passed, 100, DType::bf16, "split_kv", 0.001);
  row.device_index = 3;
  row.device_pci_bus_id = "0000:c1:00.0";
  EXPECT_NE(csv_record(row).find(",NVIDIA H100 80GB HBM3 (sm_90),3,0000:c1:00.0,split_kv,"), std::string::npos);
  row.device_index = -1;
  row.device_pci_bus_id.clear();
  EXPECT_NE(csv_record(row).find(",NVIDIA H100 80GB HBM3 (sm_90),,,split_kv,"), std::string::npos);
}

TEST(CsvReport, ACommittedReportStillReadsAndWritesByteForByte) {
  // The fixture was written by this writer; reading it guards the column names, rewriting it the
  // formatting. A change here is a format change: update docs/report-columns.md and the fixture.
  const std::string fixture = MLACHECK_SOURCE_DIR "/reports/tests/data/base.csv";
  const CsvReport report = read_csv_report(fixture);
  ASSERT_GE(report.rows.size(), 4u);
  std::string rewritten = slurp(fixture).substr(0, slurp(fixture).find('\n') + 1);
  for (const CaseResult& r : report.rows) rewritten += csv_record(r);
  EXPECT_EQ(rewritten, slurp(fixture));
}

}  // namespace
}  // namespace mlacheck
