// Inline SVG plots for the HTML report: line plots (linear or log axes),
// stacked bars and grouped bars. Presentation only: they draw the numbers
// they are given and know nothing of runs or workloads.
//
// Every plot is one <svg> element sized by its viewBox (it scales to its
// container; the page's CSS sets the width), with a <title>, axis lines,
// ticks and labels with units, a legend inside the picture, and one element
// of class "mark" per data point or bar. The root carries data-plot="ID" and
// data-marks="N" (the number of marks), so tests can check what was drawn.
// No scripts, no external references, system fonts only. Colours are the
// Okabe-Ito palette (readable by colour-blind readers); series also differ
// by marker shape and dash, so they stay apart in black-and-white print.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace podbench::results::svg {

// Text escaped for HTML and SVG (&, <, >, ", ').
std::string Escape(const std::string& text);

// The i-th colour of the palette (cycles).
const char* PaletteColor(size_t i);

struct Axis {
  std::string label;  // with the unit, e.g. "time to train (min)"
  bool log = false;   // log10 scale; REQUIRES: every value > 0
  // Tick positions; empty = chosen from the data (1-2-5 steps, or powers of
  // ten on log axes spanning more than a decade and a half).
  std::vector<double> ticks;
  std::optional<double> min, max;  // forced range; default: the data's, padded
};

enum class Marker { kCircle, kSquare, kTriangle, kDiamond, kNone };

struct Series {
  std::string name;
  std::vector<std::pair<double, double>> points;  // (x, y), drawn in order
  std::string color;       // CSS colour; empty = palette by series index
  Marker marker = Marker::kCircle;
  bool line = true;        // join the points
  bool dashed = false;
};

// A horizontal reference line (a quality target, a threshold).
struct ReferenceLine {
  double y = 0;
  std::string label;
  std::string color = "#000000";
};

struct LinePlot {
  std::string id;     // data-plot
  std::string title;  // <title>, and the caption inside the picture
  Axis x, y;
  std::vector<Series> series;
  std::vector<ReferenceLine> references;
};

struct StackedBars {
  std::string id, title;
  std::string y_label;                 // e.g. "ms per training step"
  std::vector<std::string> bars;       // a label under each bar (e.g. the slice)
  std::vector<std::string> categories; // stacked bottom to top, one legend entry each
  // values[bar][category]; REQUIRES: values.size() == bars.size() and every
  // row has categories.size() entries >= 0.
  std::vector<std::vector<double>> values;
};

struct GroupedBars {
  std::string id, title;
  std::string y_label;
  std::vector<std::string> groups;  // a label under each group
  std::vector<std::string> series;  // bars within a group, one legend entry each
  // values[group][series]; nullopt draws no bar. REQUIRES: sizes match.
  std::vector<std::vector<std::optional<double>>> values;
  std::vector<ReferenceLine> references;
  bool zero_line = true;  // bars grow from 0 (values may be negative)
};

std::string RenderLinePlot(const LinePlot& plot);
std::string RenderStackedBars(const StackedBars& plot);
std::string RenderGroupedBars(const GroupedBars& plot);

}  // namespace podbench::results::svg
