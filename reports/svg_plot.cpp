#include "reports/svg_plot.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>

#include "reports/report_text.hpp"

namespace mlacheck {

namespace {

constexpr double kWidth = 520, kHeight = 320;
constexpr double kLeft = 64, kRight = 150, kTop = 28, kBottom = 48;  // the right margin holds the legend
constexpr double kPlotW = kWidth - kLeft - kRight, kPlotH = kHeight - kTop - kBottom;

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

std::string open_svg(std::string_view title) {
  // Inline in HTML: the parser puts <svg> in the SVG namespace, so no xmlns (and no URL) is needed.
  return "<svg class=\"plot\" width=\"" + num(kWidth) + "\" height=\"" +
         num(kHeight) + "\" viewBox=\"0 0 " + num(kWidth) + " " + num(kHeight) + "\" role=\"img\" aria-label=\"" +
         markup_escape(title) + "\">\n<text x=\"" + num(kLeft) + "\" y=\"16\" class=\"plot-title\">" +
         markup_escape(title) + "</text>\n";
}

std::string text(double x, double y, std::string_view s, std::string_view anchor, std::string_view extra = "") {
  return "<text x=\"" + num(x) + "\" y=\"" + num(y) + "\" text-anchor=\"" + std::string(anchor) + "\"" +
         std::string(extra) + ">" + markup_escape(s) + "</text>\n";
}

std::string line(double x1, double y1, double x2, double y2, std::string_view cls) {
  return "<line x1=\"" + num(x1) + "\" y1=\"" + num(y1) + "\" x2=\"" + num(x2) + "\" y2=\"" + num(y2) + "\" class=\"" +
         std::string(cls) + "\"/>\n";
}

// labels[i] is drawn in series_colour(colours[i]).
std::string legend(const std::vector<std::string>& labels, const std::vector<std::size_t>& colours) {
  std::string out;
  for (std::size_t i = 0; i < labels.size(); ++i) {
    const double y = kTop + 6 + 18.0 * static_cast<double>(i);
    out += "<rect x=\"" + num(kWidth - kRight + 12) + "\" y=\"" + num(y) + "\" width=\"10\" height=\"10\" fill=\"" +
           std::string(series_colour(colours[i])) + "\"/>\n";
    out += text(kWidth - kRight + 28, y + 9, labels[i], "start", " class=\"legend\"");
  }
  return out;
}

std::string decade_label(int d) { return d == 0 ? "1" : "1e" + std::to_string(d); }

// Whole decades [lo, hi] covering the positive values, plus whether a zero band is needed.
struct LogRange {
  int lo = 0, hi = 1;
  bool zero_band = false;
  double span() const { return hi - lo + (zero_band ? 1.0 : 0.0); }
  // Position in [0, 1] along the axis; zero sits in the middle of the band below `lo`.
  double at(double v) const {
    const double base = zero_band ? 1.0 : 0.0;
    const double pos = v == 0.0 ? 0.5 : base + std::log10(v) - lo;
    return pos / span();
  }
};

LogRange log_range(const std::vector<double>& values) {
  LogRange r;
  double lo = HUGE_VAL, hi = -HUGE_VAL;
  for (double v : values) {
    if (v == 0.0) r.zero_band = true;
    if (v > 0.0 && std::isfinite(v)) {
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
  }
  if (lo <= hi) {
    r.lo = static_cast<int>(std::floor(std::log10(lo)));
    r.hi = std::max(r.lo + 1, static_cast<int>(std::ceil(std::log10(hi))));
  }
  return r;
}

bool placeable(double v) { return v == 0.0 || (v > 0.0 && std::isfinite(v)); }

// Decade ticks, thinned so that at most about eight are labelled.
int tick_step(const LogRange& r) { return std::max(1, (r.hi - r.lo + 7) / 8); }

}  // namespace

std::string_view series_colour(std::size_t i) {
  // Okabe-Ito: distinguishable with protanopia, deuteranopia and tritanopia.
  static constexpr std::array<std::string_view, 8> kPalette = {"#0072B2", "#E69F00", "#009E73", "#D55E00",
                                                                "#CC79A7", "#56B4E9", "#F0E442", "#000000"};
  return kPalette[i % kPalette.size()];
}

std::string svg_log_scatter(std::string_view title, std::string_view x_label, std::string_view y_label,
                            const std::vector<PlotSeries>& series) {
  std::vector<double> xs, ys;
  for (const PlotSeries& s : series) {
    for (const PlotPoint& p : s.points) {
      if (!placeable(p.x) || !placeable(p.y) || p.x == 0.0) continue;
      xs.push_back(p.x);
      ys.push_back(p.y);
    }
  }
  const LogRange rx = log_range(xs), ry = log_range(ys);
  const auto px = [&](double x) { return kLeft + rx.at(x) * kPlotW; };
  const auto py = [&](double y) { return kTop + kPlotH - ry.at(y) * kPlotH; };

  std::string out = open_svg(title);
  out += "<rect x=\"" + num(kLeft) + "\" y=\"" + num(kTop) + "\" width=\"" + num(kPlotW) + "\" height=\"" +
         num(kPlotH) + "\" class=\"frame\"/>\n";
  for (int d = rx.lo; d <= rx.hi; d += tick_step(rx)) {
    const double x = px(std::pow(10.0, d));
    out += line(x, kTop, x, kTop + kPlotH, "grid");
    out += text(x, kTop + kPlotH + 14, decade_label(d), "middle");
  }
  for (int d = ry.lo; d <= ry.hi; d += tick_step(ry)) {
    const double y = py(std::pow(10.0, d));
    out += line(kLeft, y, kLeft + kPlotW, y, "grid");
    out += text(kLeft - 4, y + 4, decade_label(d), "end");
  }
  if (ry.zero_band) {  // a dashed line halfway between the "0" band and the lowest decade
    const double y = py(std::pow(10.0, ry.lo)) + 0.25 * kPlotH / ry.span();
    out += line(kLeft, y, kLeft + kPlotW, y, "zero-band");
    out += text(kLeft - 4, py(0.0) + 4, "0", "end");
  }
  out += text(kLeft + kPlotW / 2, kHeight - 10, x_label, "middle", " class=\"axis-label\"");
  out += "<text transform=\"translate(14 " + num(kTop + kPlotH / 2) + ") rotate(-90)\" text-anchor=\"middle\" "
         "class=\"axis-label\">" + markup_escape(y_label) + "</text>\n";
  std::vector<std::string> labels;
  std::vector<std::size_t> colours;
  std::size_t left_out = 0;
  for (std::size_t i = 0; i < series.size(); ++i) {
    labels.push_back(series[i].label + " (" + std::to_string(series[i].points.size()) + ")");
    colours.push_back(series[i].colour);
    for (const PlotPoint& p : series[i].points) {
      if (!placeable(p.x) || !placeable(p.y) || p.x == 0.0) {
        ++left_out;
        continue;
      }
      out += "<circle cx=\"" + num(px(p.x)) + "\" cy=\"" + num(py(p.y)) + "\" r=\"3\" fill=\"" +
             std::string(series_colour(series[i].colour)) + "\"><title>" + markup_escape(p.title) + "</title></circle>\n";
    }
  }
  out += legend(labels, colours);
  if (left_out > 0) {
    out += text(kWidth - kRight + 12, kHeight - 10, std::to_string(left_out) + " not plotted (NaN, Inf, < 0)", "start",
                " class=\"legend\"");
  }
  return out + "</svg>\n";
}

std::string svg_stacked_bars(std::string_view title, std::string_view y_label, const std::vector<std::string>& categories,
                             const std::vector<BarSeries>& series) {
  std::vector<double> totals(categories.size(), 0.0);
  for (const BarSeries& s : series) {
    for (std::size_t c = 0; c < categories.size() && c < s.values.size(); ++c) totals[c] += s.values[c];
  }
  const double top = std::max(1.0, totals.empty() ? 0.0 : *std::max_element(totals.begin(), totals.end()));
  const double slot = kPlotW / static_cast<double>(std::max<std::size_t>(1, categories.size()));
  const auto py = [&](double v) { return kTop + kPlotH - v / top * kPlotH; };

  std::string out = open_svg(title);
  out += line(kLeft, kTop + kPlotH, kLeft + kPlotW, kTop + kPlotH, "axis");
  for (double v : {0.0, top / 2, top}) {
    out += line(kLeft, py(v), kLeft + kPlotW, py(v), "grid");
    out += text(kLeft - 4, py(v) + 4, format_number(std::round(v)), "end");
  }
  for (std::size_t c = 0; c < categories.size(); ++c) {
    const double x = kLeft + slot * static_cast<double>(c);
    double base = 0.0;
    for (std::size_t s = 0; s < series.size(); ++s) {
      const double v = c < series[s].values.size() ? series[s].values[c] : 0.0;
      if (v <= 0.0) continue;
      out += "<rect x=\"" + num(x + slot * 0.1) + "\" y=\"" + num(py(base + v)) + "\" width=\"" + num(slot * 0.8) +
             "\" height=\"" + num(py(base) - py(base + v)) + "\" fill=\"" + std::string(series_colour(s)) +
             "\"><title>" + markup_escape(categories[c] + ", " + series[s].label + ": " + format_number(v)) +
             "</title></rect>\n";
      base += v;
    }
    out += text(x + slot / 2, kTop + kPlotH + 14, categories[c], "middle");
  }
  out += "<text transform=\"translate(14 " + num(kTop + kPlotH / 2) + ") rotate(-90)\" text-anchor=\"middle\" "
         "class=\"axis-label\">" + markup_escape(y_label) + "</text>\n";
  std::vector<std::string> labels;
  std::vector<std::size_t> colours;
  for (const BarSeries& s : series) {
    colours.push_back(labels.size());
    labels.push_back(s.label);
  }
  out += legend(labels, colours);
  return out + "</svg>\n";
}

std::string svg_horizontal_bars(std::string_view title, const std::vector<std::string>& labels,
                                const std::vector<double>& values) {
  constexpr double kLabelW = 210, kRow = 16, kBarW = kWidth - kLabelW - 60;
  const double height = kTop + kRow * static_cast<double>(labels.size()) + 8;
  const double top = std::max(1.0, values.empty() ? 0.0 : *std::max_element(values.begin(), values.end()));
  std::string out = "<svg class=\"plot\" width=\"" + num(kWidth) +
                    "\" height=\"" + num(height) + "\" viewBox=\"0 0 " + num(kWidth) + " " + num(height) +
                    "\" role=\"img\" aria-label=\"" + markup_escape(title) + "\">\n" +
                    text(kLeft, 16, title, "start", " class=\"plot-title\"");
  for (std::size_t i = 0; i < labels.size(); ++i) {
    const double y = kTop + kRow * static_cast<double>(i);
    const double v = i < values.size() ? values[i] : 0.0;
    out += text(kLabelW - 6, y + 11, labels[i], "end", v > 0.0 ? "" : " class=\"gap\"");
    out += "<rect x=\"" + num(kLabelW) + "\" y=\"" + num(y + 2) + "\" width=\"" + num(v / top * kBarW) +
           "\" height=\"" + num(kRow - 4) + "\" fill=\"" + std::string(series_colour(0)) + "\"><title>" +
           markup_escape(labels[i] + ": " + format_number(v)) + "</title></rect>\n";
    out += text(kLabelW + v / top * kBarW + 4, y + 11, format_number(v), "start", v > 0.0 ? "" : " class=\"gap\"");
  }
  return out + "</svg>\n";
}

}  // namespace mlacheck
