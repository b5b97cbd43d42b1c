#include "reports/html_report.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <ostream>
#include <set>

#include "reports/html_sections.hpp"
#include "reports/report_error.hpp"
#include "reports/report_text.hpp"

namespace mlacheck {

namespace html {

namespace {

constexpr std::array<ResultState, 6> kStates = {ResultState::passed,  ResultState::failed,     ResultState::errored,
                                                ResultState::skipped, ResultState::mistrusted, ResultState::known_bug};
constexpr std::size_t kWorstCases = 25;

// Inline, so the page is one file; print-friendly, no web fonts.
constexpr std::string_view kStyle = R"(
body { font: 14px/1.4 system-ui, sans-serif; margin: 24px; color: #222; max-width: 1400px; }
h1 { font-size: 22px; } h2 { font-size: 18px; margin-top: 32px; border-bottom: 1px solid #ccc; }
table { border-collapse: collapse; margin: 8px 0; } th, td { border: 1px solid #ddd; padding: 2px 8px; text-align: left; vertical-align: top; }
th { background: #f3f3f3; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
code { font-size: 12px; word-break: break-all; }
.state { padding: 0 6px; border-radius: 3px; font-weight: 600; font-size: 12px; color: #fff; }
.s-PASSED { background: #1a7f37; } .s-FAILED { background: #cf222e; } .s-ERRORED { background: #8250df; }
.s-SKIPPED { background: #6e7781; } .s-MISTRUSTED { background: #bf8700; } .s-KNOWN_BUG { background: #0969da; }
.plots { display: flex; flex-wrap: wrap; gap: 16px; align-items: flex-start; }
svg.plot { background: #fff; border: 1px solid #eee; font-size: 11px; }
svg .plot-title { font-weight: 600; font-size: 13px; } svg .frame { fill: none; stroke: #999; }
svg .grid { stroke: #eee; } svg .axis { stroke: #999; } svg .zero-band { stroke: #999; stroke-dasharray: 4 3; }
svg .gap, tr.gap td { fill: #cf222e; color: #cf222e; font-weight: 600; }
td.intended { outline: 3px solid #222; outline-offset: -3px; }
)";

std::string td(const std::string& html, bool numeric = false) {
  return std::string(numeric ? "<td class=\"num\">" : "<td>") + html + "</td>";
}

std::string table(const std::vector<std::string>& headers, const std::vector<std::string>& rows, std::string_view cls) {
  std::string out = "<table class=\"" + std::string(cls) + "\"><thead><tr>";
  for (const std::string& h : headers) out += "<th>" + markup_escape(h) + "</th>";
  out += "</tr></thead><tbody>\n";
  for (const std::string& r : rows) out += "<tr>" + r + "</tr>\n";
  return out + "</tbody></table>\n";
}

std::string summary(std::span<const Case> cases) {
  std::array<int, kStates.size()> counts{};
  double wall_ms = 0.0;
  std::set<std::string> devices;
  for (const Case& c : cases) {
    ++counts[static_cast<std::size_t>(c.row->state)];
    wall_ms += c.row->wall_ms;
    if (const std::string d = device_label(*c.row); !d.empty()) devices.insert(d);
  }
  std::vector<std::string> rows;
  for (ResultState s : kStates) {
    const int n = counts[static_cast<std::size_t>(s)];
    const double share = cases.empty() ? 0.0 : 100.0 * n / static_cast<double>(cases.size());
    char pct[16];
    std::snprintf(pct, sizeof pct, "%.1f%%", share);
    rows.push_back(td(state_badge(s)) + td(std::to_string(n), true) + td(pct, true));
  }
  std::string devices_text;
  for (const std::string& d : devices) devices_text += (devices_text.empty() ? "" : "; ") + d;
  char time[64];
  std::snprintf(time, sizeof time, "%.1f s", wall_ms / 1000.0);
  const int failing = counts[static_cast<std::size_t>(ResultState::failed)] + counts[static_cast<std::size_t>(ResultState::errored)];
  const int unchecked = counts[static_cast<std::size_t>(ResultState::skipped)];
  return section("summary", "Summary",
                 "<p>" + std::to_string(cases.size()) + " cases, " + std::to_string(failing) + " FAILED or ERRORED, " +
                     std::to_string(unchecked) + " not checked (SKIPPED); case time " + time + "; devices: " +
                     markup_escape(devices_text.empty() ? "none" : devices_text) + ".</p>\n" +
                     table({"state", "cases", "share"}, rows, "summary"));
}

std::string worst_cases(std::span<const Case> cases) {
  std::vector<const Case*> ranked;
  for (const Case& c : cases) {
    if (is_failure(c.row->state) || bound_used(*c.row) > 0.0) ranked.push_back(&c);
  }
  std::stable_sort(ranked.begin(), ranked.end(), [](const Case* a, const Case* b) {
    if (is_failure(a->row->state) != is_failure(b->row->state)) return is_failure(a->row->state);
    return bound_used(*a->row) > bound_used(*b->row);
  });
  if (ranked.size() > kWorstCases) ranked.resize(kWorstCases);
  std::vector<std::string> rows;
  for (const Case* c : ranked) {
    const CaseResult& r = *c->row;
    const ComparedTensor* t = primary_tensor(r);
    rows.push_back(td(state_badge(r.state)) + td(markup_escape(r.id)) + td(markup_escape(r.path)) +
                   td(markup_escape(c->facets.dtype)) + td(std::to_string(c->facets.kv_len), true) +
                   td(error_text(t ? t->stats.rms_rel_err : NAN), true) + td(r.tensors.empty() ? "-" : error_text(bound_used(r)), true) +
                   td(markup_escape(r.reason)) + td("<code>" + markup_escape(r.repro) + "</code>"));
  }
  return section("worst-cases", "Worst cases",
                 "<p>FAILED and ERRORED cases first, then by how much of its rms bound the worst tensor used "
                 "(rms_rel_err / tol_rms). Replay one with <code>mlacheck run --case \"&lt;repro&gt;\"</code>.</p>\n" +
                     (rows.empty() ? std::string("<p>No case failed or showed any error.</p>\n")
                                   : table({"state", "id", "path", "cache", "kv_len", "rms_rel_err", "bound used",
                                            "reason", "repro"},
                                           rows, "worst")));
}

// One table of state counts per value of a facet; numeric facets sort by number.
struct Category {
  const char* title;
  std::function<std::pair<double, std::string>(const Case&)> key;
};

std::string categories(std::span<const Case> cases) {
  const auto text_key = [](std::string s) { return std::pair<double, std::string>{0.0, s.empty() ? "(none)" : s}; };
  const auto int_key = [](const Case& c, int v) {
    if (!c.facets.parsed) return std::pair<double, std::string>{-2, "(unknown)"};
    return v > 0 ? std::pair<double, std::string>{v, std::to_string(v)} : std::pair<double, std::string>{-1, "(n/a)"};
  };
  const std::vector<Category> cats = {
      {"op", [&](const Case& c) { return text_key(c.row->op); }},
      {"path taken", [&](const Case& c) { return text_key(c.row->path); }},
      {"cache dtype", [&](const Case& c) { return text_key(c.facets.dtype); }},
      {"heads per rank (kv heads for kv_gather)", [&](const Case& c) { return int_key(c, c.facets.heads); }},
      {"longest q_len", [&](const Case& c) { return int_key(c, c.facets.q_len); }},
      {"device", [&](const Case& c) { return text_key(device_label(*c.row)); }},
      {"faults", [&](const Case& c) { return text_key(c.row->faults); }},
  };
  std::vector<std::string> headers = {"value", "cases"};
  for (ResultState s : kStates) headers.emplace_back(to_string(s));
  headers.emplace_back("worst rms_rel_err");
  std::string body = "<div class=\"plots\">\n";
  for (const Category& cat : cats) {
    struct Tally {
      std::array<int, kStates.size()> counts{};
      int total = 0;
      double worst = NAN;  // stays NaN ("-") when no case of the value was compared
    };
    std::map<std::pair<double, std::string>, Tally> tallies;
    for (const Case& c : cases) {
      Tally& t = tallies[cat.key(c)];
      ++t.counts[static_cast<std::size_t>(c.row->state)];
      ++t.total;
      if (const ComparedTensor* p = primary_tensor(*c.row)) {
        t.worst = std::isnan(t.worst) ? p->stats.rms_rel_err : std::max(t.worst, p->stats.rms_rel_err);
      }
    }
    std::vector<std::string> rows;
    for (const auto& [key, t] : tallies) {
      std::string r = td(markup_escape(key.second)) + td(std::to_string(t.total), true);
      for (int n : t.counts) r += td(n == 0 ? "" : std::to_string(n), true);
      rows.push_back(r + td(error_text(t.worst), true));
    }
    body += "<div><h3>" + markup_escape(cat.title) + "</h3>\n" + table(headers, rows, "category") + "</div>\n";
  }
  return section("categories", "By category", body + "</div>\n");
}

std::string kill_matrix(const KillMatrixGrid& m) {
  std::vector<std::string> headers = {"scenario"};
  headers.insert(headers.end(), m.faults.begin(), m.faults.end());
  std::vector<std::string> rows;
  for (std::size_t s = 0; s < m.scenarios.size(); ++s) {
    std::string r = td(markup_escape(m.scenarios[s]));
    for (std::size_t f = 0; f < m.faults.size(); ++f) {
      const bool intended = s < m.intended.size() && m.intended[s] == static_cast<int>(f);
      const std::optional<ResultState> state =
          s < m.cells.size() && f < m.cells[s].size() ? m.cells[s][f] : std::nullopt;
      r += std::string(intended ? "<td class=\"intended\" title=\"the fault this scenario reproduces\">" : "<td>") +
           (state ? state_badge(*state) : "") + "</td>";
    }
    rows.push_back(r);
  }
  return section("kill-matrix", "Kill matrix",
                 "<p>Each scenario with each fault switched on. The outlined cell is the fault the scenario "
                 "reproduces: it must be FAILED or ERRORED, and the clean run PASSED.</p>\n" +
                     table(headers, rows, "kill-matrix"));
}

std::string factor_coverage(const FactorCoverageGrid& g) {
  std::vector<std::string> rows;
  for (const FactorCoverageGrid::Value& v : g.values) {
    rows.push_back(td(markup_escape(v.factor)) +
                   td(markup_escape(v.value)) + td(std::to_string(v.cases), true) + td(markup_escape(v.provenance)));
  }
  std::string uncovered;
  for (const std::string& u : g.uncovered) uncovered += "<li><code>" + markup_escape(u) + "</code></li>\n";
  return section("factor-coverage", "Production factor coverage",
                 "<p>Cases holding each value of the production factors (" + markup_escape(g.table) +
                     "), and their " + std::to_string(g.strength) + "-way combinations: " +
                     std::to_string(g.combinations - g.uncovered.size()) + " of " + std::to_string(g.combinations) +
                     " held by some case; uncovered: " + std::to_string(g.uncovered.size()) + ".</p>\n" +
                     (uncovered.empty() ? "" : "<ul class=\"uncovered\">\n" + uncovered + "</ul>\n") +
                     table({"factor", "value", "cases", "provenance"}, rows, "factor-coverage"));
}

std::string all_cases(std::span<const Case> cases) {
  std::vector<std::string> rows;
  for (const Case& c : cases) {
    const CaseResult& r = *c.row;
    const ComparedTensor* t = primary_tensor(r);
    rows.push_back(td("<span title=\"" + markup_escape(r.repro) + "\">" + markup_escape(r.id) + "</span>") +
                   td(state_badge(r.state)) + td(markup_escape(r.op)) + td(markup_escape(r.path)) +
                   td(markup_escape(c.facets.dtype)) + td(c.facets.parsed ? std::to_string(c.facets.kv_len) : "", true) +
                   td(error_text(t ? t->stats.rms_rel_err : NAN), true) + td(r.tensors.empty() ? "-" : error_text(bound_used(r)), true) +
                   td(format_number(std::round(r.wall_ms * 10) / 10), true) + td(markup_escape(r.reason)));
  }
  return section("all-cases", "All cases",
                 "<details><summary>" + std::to_string(cases.size()) +
                     " cases (hover an id for its repro string; report.csv has every column)</summary>\n" +
                     table({"id", "state", "op", "path", "cache", "kv_len", "rms_rel_err", "bound used", "wall ms",
                            "reason"},
                           rows, "all-cases") +
                     "</details>\n");
}

}  // namespace

std::string section(std::string_view id, std::string_view heading, const std::string& body) {
  return "<section id=\"" + std::string(id) + "\">\n<h2>" + markup_escape(heading) + "</h2>\n" + body + "</section>\n";
}

std::string state_badge(ResultState s) {
  const std::string name(to_string(s));
  return "<span class=\"state s-" + name + "\">" + name + "</span>";
}

std::string error_text(double v) {
  if (std::isnan(v)) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2e", v);
  return buf;
}

}  // namespace html

void write_html(std::ostream& out, std::span<const CaseResult> rows, const HtmlReportOptions& options) {
  std::vector<html::Case> cases;
  cases.reserve(rows.size());
  for (const CaseResult& r : rows) cases.push_back({&r, facets_of(r)});
  out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>"
      << markup_escape(options.title) << "</title>\n<style>" << html::kStyle << "</style>\n</head>\n<body>\n<h1>"
      << markup_escape(options.title) << "</h1>\n"
      << html::summary(cases) << html::worst_cases(cases) << html::categories(cases) << html::plot_sections(cases);
  if (options.factor_coverage) out << html::factor_coverage(*options.factor_coverage);
  if (options.space) out << html::space_section(*options.space);
  if (options.kill_matrix) out << html::kill_matrix(*options.kill_matrix);
  out << html::all_cases(cases) << "</body>\n</html>\n";
}

void write_html_file(const std::string& path, std::span<const CaseResult> rows, const HtmlReportOptions& options) {
  std::ofstream out(path, std::ios::binary);
  if (!out) throw ReportError("cannot create " + path + ": " + std::strerror(errno));
  write_html(out, rows, options);
  out.flush();
  if (!out) throw ReportError("cannot write " + path + ": " + std::strerror(errno));
}

}  // namespace mlacheck
