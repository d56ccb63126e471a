#include "results/report_svg.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

namespace podbench::results::svg {
namespace {

// A narrow picture, so that text stays readable when a phone shrinks it.
constexpr double kWidth = 480;
constexpr double kLeft = 64, kRight = 16;
constexpr double kPlotHeight = 220;
constexpr double kCharWidth = 7.2;  // of 13 px sans-serif, for layout estimates
constexpr double kLegendRow = 20;

std::string Num(double v) {
  if (v == 0) return "0";
  const double a = std::fabs(v);
  if (a >= 1e5 || a < 1e-3) return fmt::format("{:.3g}", v);
  return fmt::format("{:.4g}", v);
}

// A value-to-pixel mapping of one axis.
struct Scale {
  double lo = 0, hi = 1;
  bool log = false;
  double from = 0, to = 1;  // pixels of lo and hi
  double operator()(double v) const {
    const double t = log ? (std::log10(v) - std::log10(lo)) / (std::log10(hi) - std::log10(lo))
                         : (v - lo) / (hi - lo);
    return from + t * (to - from);
  }
};

std::vector<double> NiceLinearTicks(double lo, double hi) {
  const double raw = (hi - lo) / 5;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = mag;
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    step = m * mag;
    if (step >= raw) break;
  }
  std::vector<double> ticks;
  for (double t = std::ceil(lo / step - 1e-9) * step; t <= hi + step * 1e-9; t += step) {
    ticks.push_back(std::fabs(t) < step * 1e-9 ? 0 : t);
  }
  return ticks;
}

std::vector<double> LogTicks(double lo, double hi) {
  // Powers of ten; then 1-2-5 steps; then every digit, until there are at
  // least three ticks in the range.
  const std::vector<std::vector<double>> steps = {{1}, {1, 2, 5}, {1, 2, 3, 4, 5, 6, 7, 8, 9}};
  const int e0 = static_cast<int>(std::floor(std::log10(lo)));
  const int e1 = static_cast<int>(std::ceil(std::log10(hi)));
  std::vector<double> ticks;
  for (const auto& mantissas : steps) {
    ticks.clear();
    for (int e = e0; e <= e1; ++e) {
      for (double m : mantissas) {
        const double t = m * std::pow(10.0, e);
        if (t >= lo * (1 - 1e-9) && t <= hi * (1 + 1e-9)) ticks.push_back(t);
      }
    }
    if (ticks.size() >= 3) return ticks;
  }
  if (ticks.size() < 2) ticks = NiceLinearTicks(lo, hi);
  ticks.erase(std::remove_if(ticks.begin(), ticks.end(), [](double t) { return t <= 0; }), ticks.end());
  return ticks;
}

// The axis range: forced, or the data's padded; log axes stay positive.
std::pair<double, double> Range(const Axis& axis, double lo, double hi) {
  if (!std::isfinite(lo) || !std::isfinite(hi)) {
    lo = axis.log ? 1 : 0;
    hi = axis.log ? 10 : 1;
  }
  if (axis.log) {
    if (hi <= lo) {
      lo /= 2;
      hi *= 2;
    }
    lo /= 1.15;
    hi *= 1.15;
  } else {
    if (hi <= lo) {
      const double d = lo == 0 ? 1 : std::fabs(lo) * 0.1;
      lo -= d;
      hi += d;
    }
    const double pad = (hi - lo) * 0.06;
    lo -= pad;
    hi += pad;
  }
  if (axis.min) lo = *axis.min;
  if (axis.max) hi = *axis.max;
  return {lo, hi};
}

// The caption inside the picture, on one line or, when too long, two split
// at a space.
std::vector<std::string> TitleLines(const std::string& title) {
  constexpr size_t kFits = 54;  // characters of 14 px bold across the picture
  if (title.size() <= kFits) return {title};
  size_t cut = title.rfind(' ', kFits);
  if (cut == std::string::npos || cut == 0) cut = kFits;
  return {title.substr(0, cut), title.substr(cut + (title[cut] == ' ' ? 1 : 0))};
}

// Where the plot area starts, below the caption.
double PlotTop(const std::string& title) { return 40 + 17 * static_cast<double>(TitleLines(title).size() - 1); }

std::string Open(const std::string& id, const std::string& title, double height, size_t marks) {
  std::string s = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"plot\" viewBox=\"0 0 {} {}\" "
      "role=\"img\" aria-label=\"{}\" data-plot=\"{}\" data-marks=\"{}\" "
      "font-family=\"system-ui, sans-serif\" font-size=\"13\">\n<title>{}</title>\n"
      "<rect x=\"0\" y=\"0\" width=\"{}\" height=\"{}\" fill=\"#ffffff\"/>\n",
      kWidth, height, Escape(title), Escape(id), marks, Escape(title), kWidth, height);
  double y = 20;
  for (const std::string& line : TitleLines(title)) {
    s += fmt::format("<text x=\"10\" y=\"{}\" font-size=\"14\" font-weight=\"bold\">{}</text>\n", y,
                     Escape(line));
    y += 17;
  }
  return s;
}

// Axis lines, grid lines, ticks and labels of a plot area.
std::string Axes(const Scale& x, const std::vector<double>& xticks, const std::string& xlabel,
                 const Scale& y, const std::vector<double>& yticks, const std::string& ylabel) {
  std::string s;
  const double bottom = y.from, top = y.to, left = x.from, right = x.to;
  for (double t : yticks) {
    const double py = y(t);
    if (py > bottom + 0.5 || py < top - 0.5) continue;
    s += fmt::format("<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#dddddd\"/>"
                     "<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>\n",
                     left, py, right, py, left - 6, py + 4, Num(t));
  }
  for (double t : xticks) {
    const double px = x(t);
    if (px < left - 0.5 || px > right + 0.5) continue;
    s += fmt::format("<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#dddddd\"/>"
                     "<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>\n",
                     px, top, px, bottom, px, bottom + 18, Num(t));
  }
  s += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" stroke=\"#000000\"/>"
                   "<line x1=\"{0:.1f}\" y1=\"{2:.1f}\" x2=\"{3:.1f}\" y2=\"{2:.1f}\" stroke=\"#000000\"/>\n",
                   left, top, bottom, right);
  if (!xlabel.empty()) {
    s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>\n",
                     (left + right) / 2, bottom + 38, Escape(xlabel));
  }
  s += fmt::format("<text transform=\"translate(18 {:.1f}) rotate(-90)\" text-anchor=\"middle\">{}</text>\n",
                   (top + bottom) / 2, Escape(ylabel));
  return s;
}

std::string MarkerSvg(Marker m, double x, double y, const std::string& color, const std::string& tip) {
  const std::string title = tip.empty() ? "" : "<title>" + Escape(tip) + "</title>";
  switch (m) {
    case Marker::kCircle:
      return fmt::format("<circle class=\"mark\" cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"4.5\" fill=\"{}\">{}</circle>",
                         x, y, color, title);
    case Marker::kSquare:
      return fmt::format("<rect class=\"mark\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"9\" height=\"9\" "
                         "fill=\"#ffffff\" stroke=\"{}\" stroke-width=\"2\">{}</rect>",
                         x - 4.5, y - 4.5, color, title);
    case Marker::kTriangle:
      return fmt::format("<path class=\"mark\" d=\"M{:.1f} {:.1f}l5.5 9.5h-11z\" fill=\"{}\">{}</path>", x,
                         y - 6, color, title);
    case Marker::kDiamond:
      return fmt::format("<path class=\"mark\" d=\"M{:.1f} {:.1f}l5.5 5.5l-5.5 5.5l-5.5 -5.5z\" "
                         "fill=\"{}\">{}</path>",
                         x, y - 5.5, color, title);
    case Marker::kNone:
      // Still one mark per point (a dot under the line), so points can be counted.
      return fmt::format("<circle class=\"mark\" cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"1.5\" fill=\"{}\">{}</circle>",
                         x, y, color, title);
  }
  return "";
}

struct LegendEntry {
  std::string name, color;
  Marker marker = Marker::kNone;
  bool line = false, dashed = false, box = false;
};

double LegendHeight(const std::vector<LegendEntry>& entries) {
  double x = kLeft;
  int rows = entries.empty() ? 0 : 1;
  for (const LegendEntry& e : entries) {
    const double w = 34 + kCharWidth * static_cast<double>(e.name.size()) + 16;
    if (x + w > kWidth - kRight && x > kLeft) {
      ++rows;
      x = kLeft;
    }
    x += w;
  }
  return rows * kLegendRow;
}

std::string Legend(const std::vector<LegendEntry>& entries, double top) {
  std::string s = "<g class=\"legend\">";
  double x = kLeft, y = top + 14;
  for (const LegendEntry& e : entries) {
    const double w = 34 + kCharWidth * static_cast<double>(e.name.size()) + 16;
    if (x + w > kWidth - kRight && x > kLeft) {
      x = kLeft;
      y += kLegendRow;
    }
    if (e.box) {
      s += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"22\" height=\"11\" fill=\"{}\"/>", x,
                       y - 10, e.color);
    }
    if (e.line) {
      s += fmt::format("<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"{}\" "
                       "stroke-width=\"2\"{}/>",
                       x, y - 4, x + 26, y - 4, e.color, e.dashed ? " stroke-dasharray=\"6 4\"" : "");
    }
    if (e.marker != Marker::kNone) {
      std::string m = MarkerSvg(e.marker, x + 13, y - 4, e.color, "");
      m.replace(m.find("class=\"mark\""), 12, "class=\"key\"");
      s += m;
    }
    s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\">{}</text>", x + 32, y, Escape(e.name));
    x += w;
  }
  return s + "</g>\n";
}

std::string Close() { return "</svg>\n"; }

}  // namespace

std::string Escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

const char* PaletteColor(size_t i) {
  // Okabe & Ito, "Color Universal Design" (2008), without the yellow, which
  // is unreadable on white, and without black, which reference lines use;
  // then four of Paul Tol's colour-blind-safe colours, so that ten
  // categories (a step breakdown) stay apart.
  static const char* kColors[] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00",
                                  "#56B4E9", "#332288", "#999999", "#882255", "#117733"};
  return kColors[i % std::size(kColors)];
}

std::string RenderLinePlot(const LinePlot& p) {
  double xlo = INFINITY, xhi = -INFINITY, ylo = INFINITY, yhi = -INFINITY;
  size_t marks = 0;
  for (const Series& s : p.series) {
    for (auto [x, y] : s.points) {
      if ((p.x.log && x <= 0) || (p.y.log && y <= 0) || !std::isfinite(x) || !std::isfinite(y)) continue;
      xlo = std::min(xlo, x);
      xhi = std::max(xhi, x);
      ylo = std::min(ylo, y);
      yhi = std::max(yhi, y);
      ++marks;
    }
  }
  for (const ReferenceLine& r : p.references) {
    if (p.y.log && r.y <= 0) continue;
    ylo = std::min(ylo, r.y);
    yhi = std::max(yhi, r.y);
  }
  std::vector<LegendEntry> legend;
  for (size_t i = 0; i < p.series.size(); ++i) {
    const Series& s = p.series[i];
    legend.push_back({s.name, s.color.empty() ? PaletteColor(i) : s.color, s.marker, s.line, s.dashed});
  }
  for (const ReferenceLine& r : p.references) legend.push_back({r.label, r.color, Marker::kNone, true, true});
  const double top = PlotTop(p.title);
  const double legend_top = top + kPlotHeight + 48;
  const double height = legend_top + LegendHeight(legend) + 8;

  auto [x0, x1] = Range(p.x, xlo, xhi);
  auto [y0, y1] = Range(p.y, ylo, yhi);
  Scale xs{x0, x1, p.x.log, kLeft, kWidth - kRight};
  Scale ys{y0, y1, p.y.log, top + kPlotHeight, top};
  std::string s = Open(p.id, p.title, height, marks);
  s += Axes(xs, p.x.ticks.empty() ? (p.x.log ? LogTicks(x0, x1) : NiceLinearTicks(x0, x1)) : p.x.ticks,
            p.x.label, ys,
            p.y.ticks.empty() ? (p.y.log ? LogTicks(y0, y1) : NiceLinearTicks(y0, y1)) : p.y.ticks,
            p.y.label);
  for (const ReferenceLine& r : p.references) {
    if (p.y.log && r.y <= 0) continue;
    s += fmt::format("<line class=\"reference\" x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" "
                     "stroke=\"{}\" stroke-width=\"1.5\" stroke-dasharray=\"6 4\"><title>{}</title></line>\n",
                     xs.from, ys(r.y), xs.to, ys(r.y), r.color, Escape(r.label + ": " + Num(r.y)));
  }
  for (size_t i = 0; i < p.series.size(); ++i) {
    const Series& se = p.series[i];
    const std::string color = se.color.empty() ? PaletteColor(i) : se.color;
    std::string path, dots;
    for (auto [x, y] : se.points) {
      if ((p.x.log && x <= 0) || (p.y.log && y <= 0) || !std::isfinite(x) || !std::isfinite(y)) continue;
      path += fmt::format("{}{:.1f} {:.1f}", path.empty() ? "M" : " L", xs(x), ys(y));
      dots += MarkerSvg(se.marker, xs(x), ys(y), color, se.name + ": " + Num(x) + ", " + Num(y));
    }
    s += "<g class=\"series\" data-series=\"" + Escape(se.name) + "\">";
    if (se.line && !path.empty()) {
      s += fmt::format("<path d=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\"{}/>", path, color,
                       se.dashed ? " stroke-dasharray=\"6 4\"" : "");
    }
    s += dots + "</g>\n";
  }
  s += Legend(legend, legend_top);
  return s + Close();
}

namespace {

// Bottom space for the labels under bars: horizontal when they fit their
// slot, else rotated.
struct BarLabels {
  bool rotate = false;
  double height = 24;
};
BarLabels LayoutBarLabels(const std::vector<std::string>& labels, double slot) {
  BarLabels b;
  size_t longest = 0;
  for (const auto& l : labels) longest = std::max(longest, l.size());
  if (kCharWidth * static_cast<double>(longest) > slot - 4) {
    b.rotate = true;
    b.height = 20 + kCharWidth * static_cast<double>(std::min<size_t>(longest, 40)) * 0.5;
  }
  return b;
}

std::string BarLabel(const std::string& text, double x, double y, const BarLabels& layout) {
  if (!layout.rotate) {
    return fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>\n", x, y + 16,
                       Escape(text));
  }
  return fmt::format("<text transform=\"translate({:.1f} {:.1f}) rotate(-30)\" text-anchor=\"end\">{}</text>\n",
                     x + 4, y + 12, Escape(text));
}

}  // namespace

std::string RenderStackedBars(const StackedBars& p) {
  const double plot_w = kWidth - kLeft - kRight;
  const double slot = p.bars.empty() ? plot_w : plot_w / static_cast<double>(p.bars.size());
  const BarLabels labels = LayoutBarLabels(p.bars, slot);
  double top_value = 0;
  size_t marks = 0;
  for (const auto& row : p.values) {
    double sum = 0;
    for (double v : row) {
      sum += std::max(0.0, v);
      if (v > 0) ++marks;
    }
    top_value = std::max(top_value, sum);
  }
  std::vector<LegendEntry> legend;
  for (size_t c = 0; c < p.categories.size(); ++c) {
    legend.push_back({p.categories[c], PaletteColor(c), Marker::kNone, false, false, true});
  }
  const double top = PlotTop(p.title);
  const double legend_top = top + kPlotHeight + labels.height + 8;
  const double height = legend_top + LegendHeight(legend) + 8;
  Axis yaxis;
  yaxis.min = 0;
  auto [y0, y1] = Range(yaxis, 0, top_value > 0 ? top_value : 1);
  Scale ys{y0, y1, false, top + kPlotHeight, top};
  Scale xs{0, 1, false, kLeft, kWidth - kRight};
  std::string s = Open(p.id, p.title, height, marks);
  s += Axes(xs, {}, "", ys, NiceLinearTicks(y0, y1), p.y_label);
  const double bar_w = std::min(64.0, slot * 0.6);
  for (size_t b = 0; b < p.bars.size(); ++b) {
    const double cx = kLeft + slot * (static_cast<double>(b) + 0.5);
    double base = 0;
    s += "<g class=\"bar\" data-bar=\"" + Escape(p.bars[b]) + "\">";
    for (size_t c = 0; c < p.categories.size() && c < p.values[b].size(); ++c) {
      const double v = std::max(0.0, p.values[b][c]);
      if (v <= 0) continue;
      s += fmt::format("<rect class=\"mark\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.2f}\" "
                       "fill=\"{}\" stroke=\"#ffffff\" stroke-width=\"0.5\"><title>{}</title></rect>",
                       cx - bar_w / 2, ys(base + v), bar_w, ys(base) - ys(base + v), PaletteColor(c),
                       Escape(p.bars[b] + ", " + p.categories[c] + ": " + Num(v)));
      base += v;
    }
    s += "</g>\n" + BarLabel(p.bars[b], cx, top + kPlotHeight, labels);
  }
  s += Legend(legend, legend_top);
  return s + Close();
}

std::string RenderGroupedBars(const GroupedBars& p) {
  const double plot_w = kWidth - kLeft - kRight;
  const double slot = p.groups.empty() ? plot_w : plot_w / static_cast<double>(p.groups.size());
  const BarLabels labels = LayoutBarLabels(p.groups, slot);
  double lo = p.zero_line ? 0 : INFINITY, hi = p.zero_line ? 0 : -INFINITY;
  size_t marks = 0;
  for (const auto& row : p.values) {
    for (const auto& v : row) {
      if (!v || !std::isfinite(*v)) continue;
      lo = std::min(lo, *v);
      hi = std::max(hi, *v);
      ++marks;
    }
  }
  for (const ReferenceLine& r : p.references) {
    lo = std::min(lo, r.y);
    hi = std::max(hi, r.y);
  }
  std::vector<LegendEntry> legend;
  for (size_t k = 0; k < p.series.size(); ++k) {
    legend.push_back({p.series[k], PaletteColor(k), Marker::kNone, false, false, true});
  }
  for (const ReferenceLine& r : p.references) legend.push_back({r.label, r.color, Marker::kNone, true, true});
  const double top = PlotTop(p.title);
  const double legend_top = top + kPlotHeight + labels.height + 8;
  const double height = legend_top + LegendHeight(legend) + 8;
  Axis yaxis;
  auto [y0, y1] = Range(yaxis, lo, hi);
  if (p.zero_line && lo >= 0) y0 = 0;
  Scale ys{y0, y1, false, top + kPlotHeight, top};
  Scale xs{0, 1, false, kLeft, kWidth - kRight};
  std::string s = Open(p.id, p.title, height, marks);
  s += Axes(xs, {}, "", ys, NiceLinearTicks(y0, y1), p.y_label);
  const double zero = ys(std::clamp(0.0, y0, y1));
  if (p.zero_line && y0 < 0) {
    s += fmt::format("<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#000000\"/>\n",
                     xs.from, zero, xs.to, zero);
  }
  for (const ReferenceLine& r : p.references) {
    s += fmt::format("<line class=\"reference\" x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" "
                     "stroke=\"{}\" stroke-width=\"1.5\" stroke-dasharray=\"6 4\"><title>{}</title></line>\n",
                     xs.from, ys(r.y), xs.to, ys(r.y), r.color, Escape(r.label + ": " + Num(r.y)));
  }
  const double n = static_cast<double>(std::max<size_t>(1, p.series.size()));
  const double bar_w = std::min(36.0, slot * 0.8 / n);
  for (size_t g = 0; g < p.groups.size(); ++g) {
    const double cx = kLeft + slot * (static_cast<double>(g) + 0.5);
    s += "<g class=\"group\" data-group=\"" + Escape(p.groups[g]) + "\">";
    for (size_t k = 0; k < p.series.size() && k < p.values[g].size(); ++k) {
      const auto& v = p.values[g][k];
      if (!v || !std::isfinite(*v)) continue;
      const double x = cx - bar_w * n / 2 + bar_w * static_cast<double>(k);
      const double y = ys(*v);
      s += fmt::format("<rect class=\"mark\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.2f}\" "
                       "fill=\"{}\"><title>{}</title></rect>",
                       x + 1, std::min(y, zero), bar_w - 2, std::max(0.5, std::fabs(zero - y)),
                       PaletteColor(k), Escape(p.groups[g] + ", " + p.series[k] + ": " + Num(*v)));
    }
    s += "</g>\n" + BarLabel(p.groups[g], cx, top + kPlotHeight, labels);
  }
  s += Legend(legend, legend_top);
  return s + Close();
}

}  // namespace podbench::results::svg
