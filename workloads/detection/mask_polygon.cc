#include "workloads/detection/mask_polygon.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>

namespace podbench::detection {

namespace {

constexpr double kScale = 5;          // the upsampling of step 1
constexpr double kMaxCoordinate = 1e6;

struct Point {
  int u = 0, v = 0;  // upsampled column and row
};

// C's (int)(value + 0.5): rounds half up for positive values, truncates
// toward zero for negative ones.
int RoundC(double value) { return static_cast<int>(value + 0.5); }

// Step 2: the points of the edge a -> b, in that order, both ends included.
void WalkEdge(Point a, Point b, std::vector<Point>& out) {
  const int du = std::abs(b.u - a.u), dv = std::abs(b.v - a.v);
  const bool along_u = du >= dv;
  // Walked from the lower end on the major axis, listed from a.
  const bool reversed = along_u ? a.u > b.u : a.v > b.v;
  const Point lo = reversed ? b : a, hi = reversed ? a : b;
  const int steps = along_u ? du : dv;
  if (steps == 0) {  // a and b coincide
    out.push_back(a);
    return;
  }
  const double slope = along_u ? static_cast<double>(hi.v - lo.v) / du : static_cast<double>(hi.u - lo.u) / dv;
  for (int d = 0; d <= steps; ++d) {
    const int t = reversed ? steps - d : d;
    if (along_u) {
      out.push_back({lo.u + t, RoundC(lo.v + slope * t)});
    } else {
      out.push_back({RoundC(lo.u + slope * t), lo.v + t});
    }
  }
}

}  // namespace

Result<Rle> RasterisePolygon(const std::vector<double>& xy, int height, int width, const std::string& what) {
  if (height < 0 || width < 0) return Status::InvalidArgument(what + ": image size is negative");
  if (xy.size() % 2 != 0) {
    return Status::InvalidArgument(what + ": polygon has " + std::to_string(xy.size()) +
                                   " coordinates, an odd number (want x0, y0, x1, y1, ...)");
  }
  if (xy.size() < 6) {
    return Status::InvalidArgument(what + ": polygon has " + std::to_string(xy.size() / 2) +
                                   " points, fewer than 3");
  }
  for (size_t i = 0; i < xy.size(); ++i) {
    if (!std::isfinite(xy[i]) || std::abs(xy[i]) > kMaxCoordinate) {
      return Status::InvalidArgument(what + ": polygon coordinate #" + std::to_string(i) + " (" +
                                     std::to_string(xy[i]) + ") is not finite or beyond +-1e6 pixels");
    }
  }
  // Steps 1 and 2: the closed outline on the 5x grid.
  const size_t k = xy.size() / 2;
  std::vector<Point> corners(k + 1);
  for (size_t j = 0; j < k; ++j) corners[j] = {RoundC(kScale * xy[2 * j]), RoundC(kScale * xy[2 * j + 1])};
  corners[k] = corners[0];
  std::vector<Point> outline;
  for (size_t j = 0; j < k; ++j) WalkEdge(corners[j], corners[j + 1], outline);

  // Step 3: the column crossings, as column-major toggle positions.
  const uint64_t h = static_cast<uint64_t>(height), area = h * static_cast<uint64_t>(width);
  std::vector<uint64_t> toggles;
  for (size_t j = 1; j < outline.size(); ++j) {
    const Point& p = outline[j - 1];
    const Point& q = outline[j];
    if (q.u == p.u) continue;
    const double column = (static_cast<double>(q.u < p.u ? q.u : q.u - 1) + 0.5) / kScale - 0.5;
    if (std::floor(column) != column || column < 0 || column > width - 1) continue;
    double row = (static_cast<double>(std::min(q.v, p.v)) + 0.5) / kScale - 0.5;
    row = std::ceil(std::clamp(row, 0.0, static_cast<double>(height)));
    toggles.push_back(static_cast<uint64_t>(column) * h + static_cast<uint64_t>(row));
  }
  // Step 4: run lengths between the toggles; a gap of 0 (two toggles at one
  // position) removes itself and joins the next gap to the previous run.
  toggles.push_back(area);
  std::sort(toggles.begin(), toggles.end());
  std::vector<uint64_t> gaps(toggles.size());
  uint64_t prev = 0;
  for (size_t j = 0; j < toggles.size(); ++j) {
    gaps[j] = toggles[j] - prev;
    prev = toggles[j];
  }
  Rle r{height, width, {}};
  r.counts.push_back(static_cast<uint32_t>(gaps[0]));
  for (size_t j = 1; j < gaps.size(); ++j) {
    if (gaps[j] > 0) {
      r.counts.push_back(static_cast<uint32_t>(gaps[j]));
    } else if (++j < gaps.size()) {
      r.counts.back() += static_cast<uint32_t>(gaps[j]);
    }
  }
  return r;
}

Result<Rle> RasterisePolygons(const std::vector<std::vector<double>>& polygons, int height, int width,
                              const std::string& what) {
  if (polygons.empty()) return Status::InvalidArgument(what + ": no polygon");
  std::vector<Rle> parts;
  for (size_t i = 0; i < polygons.size(); ++i) {
    PODBENCH_ASSIGN_OR_RETURN(Rle part,
                              RasterisePolygon(polygons[i], height, width, what + ", polygon #" + std::to_string(i)));
    parts.push_back(std::move(part));
  }
  return MergeMasks(parts, /*intersect=*/false);
}

}  // namespace podbench::detection
