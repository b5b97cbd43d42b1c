#include <algorithm>
#include <cmath>
#include <map>

#include "core/dtype.hpp"
#include "reports/html_sections.hpp"
#include "reports/report_text.hpp"
#include "reports/svg_plot.hpp"

namespace mlacheck::html {

namespace {

// Cases with a compared headline tensor, grouped by cache dtype in a fixed order.
std::map<std::string, std::vector<const Case*>> by_dtype(std::span<const Case> cases) {
  std::map<std::string, std::vector<const Case*>> out;
  for (const Case& c : cases) {
    if (c.facets.parsed && primary_tensor(*c.row) != nullptr) out[c.facets.dtype].push_back(&c);
  }
  return out;
}

double headline_error(const Case& c) { return primary_tensor(*c.row)->stats.rms_rel_err; }

std::string error_vs_kv_len(std::span<const Case> cases) {
  std::string body =
      "<p>Normwise error (rms_rel_err of O, or of K for kv_gather) of each compared case against its longest "
      "kv_len, one plot per cache dtype, coloured by the path taken. Hover a point for its case.</p>\n";
  const auto groups = by_dtype(cases);
  if (groups.empty()) return section("error-vs-kv-len", "Error against kv_len", body + "<p>No compared cases.</p>\n");
  // One colour per path across all plots.
  std::map<std::string, std::size_t> path_colour;
  for (const auto& [dtype, members] : groups) {
    for (const Case* c : members) path_colour.emplace(c->row->path, 0);
  }
  std::size_t next = 0;
  for (auto& [path, colour] : path_colour) colour = next++;
  body += "<div class=\"plots\">\n";
  for (const auto& [dtype, members] : groups) {
    std::map<std::string, PlotSeries> series;
    for (const Case* c : members) {
      PlotSeries& s = series[c->row->path];
      s.label = c->row->path.empty() ? "(none)" : c->row->path;
      s.colour = path_colour[c->row->path];
      s.points.push_back({static_cast<double>(c->facets.kv_len), headline_error(*c),
                          c->row->id + ": kv_len " + std::to_string(c->facets.kv_len) +
                              ", rms_rel_err " + format_number(headline_error(*c))});
    }
    std::vector<PlotSeries> ordered;
    for (auto& [path, s] : series) ordered.push_back(std::move(s));
    body += svg_log_scatter("cache " + dtype, "longest kv_len", "rms_rel_err", ordered);
  }
  return section("error-vs-kv-len", "Error against kv_len", body + "</div>\n");
}

std::string error_histogram(std::span<const Case> cases) {
  const auto groups = by_dtype(cases);
  std::string body = "<p>Cases per decade of normwise error (rms_rel_err of O or K), stacked by cache dtype; "
                     "\"0\" counts exact results.</p>\n";
  int lo = 0, hi = 0;
  bool any = false, zero = false;
  for (const auto& [dtype, members] : groups) {
    for (const Case* c : members) {
      const double e = headline_error(*c);
      if (e == 0.0) zero = true;
      if (!(e > 0.0) || !std::isfinite(e)) continue;
      const int d = static_cast<int>(std::floor(std::log10(e)));
      lo = any ? std::min(lo, d) : d;
      hi = any ? std::max(hi, d) : d;
      any = true;
    }
  }
  std::vector<std::string> categories;
  if (zero) categories.push_back("0");
  if (any) {
    for (int d = lo; d <= hi; ++d) categories.push_back("1e" + std::to_string(d));
  }
  std::vector<BarSeries> series;
  for (const auto& [dtype, members] : groups) {
    BarSeries s{dtype, std::vector<double>(categories.size(), 0.0)};
    for (const Case* c : members) {
      const double e = headline_error(*c);
      if (e == 0.0) s.values[0] += 1;
      if (e > 0.0 && std::isfinite(e)) s.values[(zero ? 1 : 0) + static_cast<std::size_t>(std::floor(std::log10(e)) - lo)] += 1;
    }
    series.push_back(std::move(s));
  }
  if (categories.empty()) return section("error-histogram", "Error distribution", body + "<p>No compared cases.</p>\n");
  return section("error-histogram", "Error distribution",
                 body + svg_stacked_bars("cases per error decade", "cases", categories, series));
}

// The margin correct cases keep: how much of its rms bound each PASSED case used.
std::string bound_used_distribution(std::span<const Case> cases) {
  std::vector<CaseResult> rows;
  for (const Case& c : cases) rows.push_back(*c.row);
  const BoundUsedHistogram h = bound_used_histogram(rows);
  std::string body =
      "<p>How much of its normwise bound each correct (PASSED) case used: rms_rel_err / tol_rms per compared "
      "tensor with an rms bound, in half-decade bins (\"3e-3\" holds [10^-2.5, 10^-2)); \"0\" counts exact "
      "results. Cases far below 1 leave a margin a small precision mistake can hide in.</p>\n";
  if (h.tensors.empty())
    return section("bound-used", "Bound used by correct cases", body + "<p>No passed cases.</p>\n");
  std::vector<BarSeries> series;
  for (const auto& [name, counts] : h.tensors) series.push_back({name, counts});
  return section("bound-used", "Bound used by correct cases",
                 body + svg_stacked_bars("passed cases per bound used", "cases", h.bins, series));
}

std::string coverage(std::span<const Case> cases) {
  const std::vector<std::string>& buckets = coverage_buckets();
  std::vector<double> checked(buckets.size(), 0.0), all(buckets.size(), 0.0);
  for (const Case& c : cases) {
    for (const std::string& b : c.facets.buckets) {
      const auto i = static_cast<std::size_t>(std::find(buckets.begin(), buckets.end(), b) - buckets.begin());
      if (i == buckets.size()) continue;  // e.g. an f32 cache: a legal case outside the space we track
      all[i] += 1;
      if (!c.row->tensors.empty()) checked[i] += 1;
    }
  }
  std::string table = "<table class=\"coverage\"><thead><tr><th>bucket</th><th>compared</th><th>all cases</th></tr></thead><tbody>\n";
  for (std::size_t i = 0; i < buckets.size(); ++i) {
    table += std::string("<tr") + (checked[i] == 0 ? " class=\"gap\"" : "") + "><td>" + markup_escape(buckets[i]) +
             "</td><td>" + format_number(checked[i]) + "</td><td>" + format_number(all[i]) + "</td></tr>\n";
  }
  table += "</tbody></table>\n";
  return section("coverage", "Coverage",
                 "<p>Cases per corner of the problem space; \"compared\" counts cases whose outputs were checked "
                 "(not skipped or errored). Buckets no case reached are marked.</p>\n<div class=\"plots\">" +
                     svg_horizontal_bars("compared cases per bucket", buckets, checked) + table + "</div>\n");
}

}  // namespace

std::string plot_sections(std::span<const Case> cases) {
  return error_vs_kv_len(cases) + error_histogram(cases) + bound_used_distribution(cases) + coverage(cases);
}

}  // namespace mlacheck::html
