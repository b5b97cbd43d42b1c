// The fuzz corpus of issue 37, kept as a test: malformed inputs fed in-process to every parser of
// the edge (repro strings through parse_case, report.csv text through parse_csv_report, known-bug
// tables through load_known_bugs, and the numeric options through the real command lines). Each
// must give a valid result or the parser's own error with a message, never another exception, a
// crash or an out-of-range value. The corpus is generated from a fixed seed by mutating valid
// inputs, so it is the same on every run; issue37_inputs.txt holds the issue's exact inputs and
// the message each must give.
#include <CLI/CLI.hpp>
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <sstream>
#include <string>
#include <typeinfo>
#include <vector>

#include "cli/diff_command.hpp"
#include "cli/mutate_command.hpp"
#include "cli/option_checks.hpp"
#include "cli/run_command.hpp"
#include "cli/scenarios_command.hpp"
#include "harness/op_registry.hpp"
#include "reports/csv_reader.hpp"
#include "reports/report_error.hpp"
#include "scenarios/known_bugs.hpp"
#include "scenarios/table_error.hpp"

namespace mlacheck {
namespace {

constexpr std::uint64_t kCorpusSeed = 37;

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

const std::string& base_report() {
  static const std::string text = read_text(MLACHECK_SOURCE_DIR "/reports/tests/data/base.csv");
  return text;
}

// Mutations that reach the parsers' edges: numbers at and past the limits of their types, the
// non-finite spellings, separators, quotes, line breaks and bytes that are not UTF-8.
const std::vector<std::string> kTokens = {
    "nan", "-nan", "inf", "-inf", "NaN", "1e309", "-1", "-0", "0", "2147483647", "2147483648", "-2147483649",
    "18446744073709551616", "99999999999999999999999", "4294967296", "0x10", "1e-400", "+1", " ", "",
    ";", "=", ",", "*", "**", "\"", "\"\"", "\n", "\r\n", "\xff", "\xc3", "\t", "\\", "name=", ";kv=", "q=",
    "steps=64", "steps=65", "kv=100*3000", "kv=2147483647*2147483647", "join=", "leave=", "1,2,3", "mla_decode:",
    "kv_gather:", ",,,,,,,,", "PASSED", "FAILED", "KNOWN_BUG"};

class Mutator {
 public:
  explicit Mutator(std::uint64_t seed) : rng_(seed) {}

  std::string operator()(std::string s) {
    const int edits = 1 + static_cast<int>(pick(4));
    for (int i = 0; i < edits; ++i) s = edit(std::move(s));
    return s;
  }
  std::size_t pick(std::size_t n) { return n == 0 ? 0 : std::uniform_int_distribution<std::size_t>(0, n - 1)(rng_); }
  const std::string& token() { return kTokens[pick(kTokens.size())]; }

 private:
  std::string edit(std::string s) {
    const std::size_t at = pick(s.size() + 1);
    switch (pick(6)) {
      case 0: return s.insert(at, token());                               // insert a token
      case 1: return s.erase(at, 1 + pick(8));                            // delete a few bytes
      case 2: return s.replace(at, std::min<std::size_t>(1 + pick(6), s.size() - at), token());  // replace
      case 3: return s.substr(0, at);                                     // truncate
      case 4: {                                                           // repeat a span
        const std::string span = s.substr(at, 1 + pick(16));
        for (std::size_t k = pick(4); k > 0; --k) s.insert(at, span);
        return s;
      }
      default:
        if (!s.empty()) s[pick(s.size())] = static_cast<char>(pick(256));  // one random byte
        return s;
    }
  }
  std::mt19937_64 rng_;
};

// Runs `parse` and returns "" for a result, or the message of an accepted error; any other
// exception fails the test with the input that raised it.
template <class AcceptedError>
std::string outcome(const std::string& input, const std::function<void()>& parse) {
  try {
    parse();
  } catch (const AcceptedError& e) {
    EXPECT_NE(std::string(e.what()), "") << "an error without a message for: " << input;
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << typeid(e).name() << ": " << e.what() << "\nfor input: " << input;
    return e.what();
  }
  return "";
}

const std::vector<std::string> kValidRepros = {
    "mla_decode:name=a",
    "mla_decode:name=b;heads=128;tp=8;rank=3;kv=4097,3;q=1,3;bs=16",
    "mla_decode:name=c;kv=100*3000;steps=2;join=0*100",
    "mla_decode:name=d;kv=64,0,32;q=2,1,1;steps=4;join=0,2,1;leave=3,4,4;kv_dtype=fp8_e4m3fn;kv_scale=0.5",
    "kv_gather:name=g",
};

TEST(MalformedInputs, ReproStringsParseOrSayWhy) {
  Mutator mutate(kCorpusSeed);
  int parsed = 0;
  for (int i = 0; i < 6000; ++i) {
    const std::string repro = mutate(kValidRepros[mutate.pick(kValidRepros.size())]);
    CaseProblem c;
    const std::string error = outcome<std::invalid_argument>(repro, [&] { c = parse_case(repro); });
    if (!error.empty()) continue;
    ++parsed;
    // A valid result: its repro string reads back as itself.
    const std::string printed = to_repro(c);
    EXPECT_EQ(to_repro(parse_case(printed)), printed) << "from " << repro;
  }
  EXPECT_GT(parsed, 0) << "no mutated repro string parsed: the corpus only tests the error path";
}

TEST(MalformedInputs, ReportTextReadsOrNamesTheLine) {
  Mutator mutate(kCorpusSeed + 1);
  int read = 0;
  for (int i = 0; i < 3000; ++i) {
    const std::string text = mutate(base_report());
    CsvReport report;
    const std::string error = outcome<ReportError>(text, [&] { report = parse_csv_report("fuzz.csv", text); });
    if (!error.empty()) {
      EXPECT_EQ(error.rfind("fuzz.csv", 0), 0u) << error;
      continue;
    }
    ++read;
    for (const CaseResult& row : report.rows) {
      for (const ComparedTensor& t : row.tensors) {
        EXPECT_FALSE(std::isnan(t.stats.max_abs_err) || t.stats.max_abs_err < 0) << row.id;
        EXPECT_TRUE(std::isnan(t.stats.cosine) || (t.stats.cosine >= -1.0 && t.stats.cosine <= 1.0)) << row.id;
        EXPECT_FALSE(std::isnan(t.stats.rms_rel_err) || std::isnan(t.tol.abs)) << row.id;
      }
      EXPECT_TRUE(row.wall_ms >= 0.0) << row.id;
    }
  }
  EXPECT_GT(read, 0);
}

TEST(MalformedInputs, KnownBugRowsLoadOrNameTheirCell) {
  const std::string header = "id,reference,case,path,backend,platform,rank_heads,q_len,note\n";
  const std::vector<std::string> valid = {
      "mi355,aiter #1,mla_decode:,split_kv,,MI355X,16,6,rows collapse\n",
      "fp8,,kv_gather:cache_dtype=fp8_e4m3fn,gather,hip,,,,\n",
      "pair,,\"mla_decode:kv=4096*2;kv_scale=0.50\",persistent,,,,,note\n"};
  // The loader reads a file: rewritten for each row, in memory-backed /dev/shm where there is one.
  const std::filesystem::path dir =
      std::filesystem::is_directory("/dev/shm") ? std::filesystem::path("/dev/shm") : std::filesystem::temp_directory_path();
  const std::string path = (dir / ("mlacheck_fuzz_bugs_" + std::to_string(::getpid()) + ".csv")).string();
  Mutator mutate(kCorpusSeed + 2);
  for (int i = 0; i < 1000; ++i) {
    const std::string text = header + mutate(valid[mutate.pick(valid.size())]);
    std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
    outcome<scenarios::TableError>(text, [&] {
      for (const scenarios::KnownBug& bug : scenarios::load_known_bugs(path)) {
        EXPECT_TRUE(bug.path.empty() || bug.path == "split_kv" || bug.path == "persistent" || bug.path == "gather" ||
                    bug.path == "plugin")
            << bug.path;
      }
    });
  }
  std::filesystem::remove(path);
}

// The mlacheck command line (main.cpp's commands that read numbers), parsed in-process.
struct CommandLine {
  CLI::App app{"mlacheck"};
  cli::RunOptions run;
  cli::DiffOptions diff;
  cli::ScenariosOptions scenarios;
  cli::MutateOptions mutate;
  CommandLine() {
    cli::add_run_command(app, run);
    cli::add_diff_command(app, diff);
    cli::add_scenarios_command(app, scenarios);
    cli::add_mutate_command(app, mutate);
  }
  // "" when the line is accepted, else CLI11's message (which names the option).
  std::string parse(std::vector<std::string> args) {
    std::reverse(args.begin(), args.end());  // CLI11 takes the arguments last first
    try {
      app.parse(args);
    } catch (const CLI::ParseError& e) {
      return e.what();
    }
    return "";
  }
};

TEST(MalformedInputs, NumericOptionsAreInRangeOrRefusedByName) {
  Mutator mutate(kCorpusSeed + 3);
  const std::vector<std::vector<std::string>> lines = {
      {"run", "--timeout"}, {"run", "--seed"}, {"run", "--lookahead"}, {"run", "--property-cases"},
      {"scenarios", "--sensitivity", "--seeds"}, {"diff", "a.csv", "b.csv", "--factor"}, {"mutate", "--timeout"}};
  const std::vector<std::string> seeds = {"120", "1", "8", "64", "20", "2.5", "0.5"};
  for (int i = 0; i < 3500; ++i) {
    const std::size_t k = mutate.pick(lines.size());
    std::string value = mutate.pick(3) == 0 ? mutate.token() : mutate(seeds[k]);
    // A value starting with '-' is given as --opt=-1, as a user must (CLI11 reads it as an option).
    const bool attached = !value.empty() && value[0] == '-';
    std::vector<std::string> args = lines[k];
    if (attached) {
      args.back() += "=" + value;
    } else {
      args.push_back(value);
    }
    CommandLine cl;
    const std::string error = cl.parse(args);
    if (!error.empty()) continue;
    // Accepted: the value is one the run can use.
    EXPECT_TRUE(std::isfinite(cl.run.timeout_base_s) && cl.run.timeout_base_s > 0) << value;
    EXPECT_TRUE(std::isfinite(cl.mutate.timeout_base_s) && cl.mutate.timeout_base_s > 0) << value;
    EXPECT_LE(cl.run.lookahead, static_cast<std::size_t>(cli::kMaxLookahead)) << value;
    EXPECT_TRUE(cl.run.property_cases >= 0 && cl.run.property_cases <= cli::kMaxPropertyCases) << value;
    EXPECT_TRUE(cl.scenarios.seeds >= 1 && cl.scenarios.seeds <= cli::kMaxSeeds) << value;
    EXPECT_TRUE(std::isfinite(cl.diff.factor) && cl.diff.factor >= 1.0) << value;
    EXPECT_EQ(value.find('-') != std::string::npos && k == 1, false) << "a signed seed was accepted: " << value;
  }
}

std::vector<std::string> split(const std::string& line, char sep) {
  std::vector<std::string> out;
  std::string part;
  std::istringstream in(line);
  while (std::getline(in, part, sep)) out.push_back(part);
  return out;
}

// The issue's own inputs, each with the message it must give.
TEST(MalformedInputs, TheIssuesInputsGiveTheirMessages) {
  std::ifstream in(MLACHECK_SOURCE_DIR "/cli/tests/fuzz/issue37_inputs.txt");
  ASSERT_TRUE(in) << "issue37_inputs.txt";
  std::string line;
  int checked = 0;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> f = split(line, '\t');
    ASSERT_GE(f.size(), 3u) << line;
    std::string error;
    if (f[0] == "repro") {
      error = outcome<std::invalid_argument>(f[1], [&] { parse_case(f[1]); });
    } else if (f[0] == "args") {
      error = CommandLine().parse(split(f[1], ' '));
    } else if (f[0] == "report") {
      ASSERT_EQ(f.size(), 4u) << line;
      std::string text = base_report();
      const std::size_t at = text.find(f[1]);
      ASSERT_NE(at, std::string::npos) << f[1];
      text.replace(at, f[1].size(), f[2]);
      error = outcome<ReportError>(line, [&] { parse_csv_report("base.csv", text); });
      f.back() = "base.csv:2: " + f.back();
    } else if (f[0] == "known_bug") {
      const std::string path = (std::filesystem::temp_directory_path() / "mlacheck_issue37_bugs.csv").string();
      std::ofstream(path, std::ios::trunc) << "id,reference,case,path,backend,platform,rank_heads,q_len,note\n" << f[1] << "\n";
      error = outcome<scenarios::TableError>(line, [&] { scenarios::load_known_bugs(path); });
      std::filesystem::remove(path);
    } else {
      FAIL() << "unknown kind " << f[0];
    }
    EXPECT_NE(error.find(f.back()), std::string::npos) << line << "\ngave: " << (error.empty() ? "(accepted)" : error);
    ++checked;
  }
  EXPECT_GE(checked, 14);
}

}  // namespace
}  // namespace mlacheck
