#pragma once
// The report's charts as inline SVG, drawn here so the HTML page needs no script, library or
// network: a scatter plot on log axes, stacked and horizontal bar charts. Every mark carries a <title>, so
// hovering a point names its case.
#include <string>
#include <string_view>
#include <vector>

namespace mlacheck {

struct PlotPoint {
  double x = 0.0;
  double y = 0.0;
  std::string title;  // shown on hover: the case id and its value
};

struct PlotSeries {
  std::string label;
  std::size_t colour = 0;  // index into series_colour(), so one label keeps its colour across plots
  std::vector<PlotPoint> points;
};

// Both axes logarithmic over whole decades. Errors of exactly zero are real results (bitwise
// paths, exact fills) that a log axis cannot place: they go in a band labelled "0" below the
// lowest decade instead of being dropped. Other non-positive or non-finite values are left out
// and counted in the caption.
std::string svg_log_scatter(std::string_view title, std::string_view x_label, std::string_view y_label,
                            const std::vector<PlotSeries>& series);

struct BarSeries {
  std::string label;
  std::vector<double> values;  // one per category
};

// Vertical bars, one per category, the series stacked in order.
std::string svg_stacked_bars(std::string_view title, std::string_view y_label, const std::vector<std::string>& categories,
                             const std::vector<BarSeries>& series);

// Horizontal bars, one per label: for long category names. Zero bars get their label in the
// "gap" class, so empty categories stand out.
std::string svg_horizontal_bars(std::string_view title, const std::vector<std::string>& labels,
                                const std::vector<double>& values);

// The colour of series i, from a palette that stays apart for the common colour-vision deficiencies.
std::string_view series_colour(std::size_t i);

}  // namespace mlacheck
