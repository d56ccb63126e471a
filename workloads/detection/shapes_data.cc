#include "workloads/detection/shapes_data.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <numbers>

namespace podbench::detection {

namespace {

// SplitMix64: a portable generator (the same bytes on every host and
// standard library), with the few distributions the generator needs.
class Rng {
 public:
  explicit Rng(uint64_t seed) : s_(seed) {}
  uint64_t Next() {
    uint64_t z = (s_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  double Uniform() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }  // [0, 1)
  double Uniform(double lo, double hi) { return lo + (hi - lo) * Uniform(); }
  int Int(int lo, int hi) { return lo + static_cast<int>(Next() % static_cast<uint64_t>(hi - lo + 1)); }
  double Normal() {  // Box-Muller
    const double u = 1.0 - Uniform(), v = Uniform();
    return std::sqrt(-2.0 * std::log(u)) * std::cos(2 * std::numbers::pi * v);
  }

 private:
  uint64_t s_;
};

struct Shape {
  int label = 1;
  double cx = 0, cy = 0, w = 0, h = 0;  // centre and extent, pixels
  double thick = 0;                     // stroke width of ring, frame, cross, x
  bool flip = false;                    // triangle points down

  // Whether the pixel centre (x, y) lies inside.
  bool Contains(double x, double y) const {
    const double dx = x - cx, dy = y - cy, hw = w / 2, hh = h / 2;
    if (std::abs(dx) > hw || std::abs(dy) > hh) return false;
    switch (label) {
      case 1:  // disc
        return dx * dx / (hw * hw) + dy * dy / (hh * hh) <= 1;
      case 2:  // box
        return true;
      case 3: {  // triangle, apex up (or down)
        const double t = flip ? (hh - dy) / h : (dy + hh) / h;  // 0 at the apex, 1 at the base
        return std::abs(dx) <= t * hw;
      }
      case 4:  // cross
        return std::abs(dx) <= thick / 2 || std::abs(dy) <= thick / 2;
      case 5: {  // ring
        const double r = std::sqrt(dx * dx + dy * dy), outer = hw, inner = std::max(0.0, hw - thick);
        return r <= outer && r > inner;
      }
      case 6:  // frame
        return std::abs(dx) > hw - thick || std::abs(dy) > hh - thick;
      case 7:  // diamond
        return std::abs(dx) / hw + std::abs(dy) / hh <= 1;
      default:  // x
        return std::abs(dx - dy) <= thick * 0.7071 || std::abs(dx + dy) <= thick * 0.7071;
    }
  }
  Box bounds() const { return Box::FromCenter(cx, cy, w, h); }
};

// Roughly the share of its w x h box a shape paints (thick = 0.28 of the
// smaller side), by label; only aims a size at an area range, which the
// painted pixel count then decides.
constexpr std::array<double, kMaxShapeClasses + 1> kFill = {0, 0.785, 1.0, 0.5, 0.48, 0.63, 0.81, 0.5, 0.6};

// COCO's area ranges as open intervals of painted pixels (the limits
// themselves, which COCO counts in both neighbours, are left out).
constexpr double kSmallBelow = 32.0 * 32.0, kLargeAbove = 96.0 * 96.0;
constexpr std::array<std::array<double, 2>, 3> kAreaRanges = {
    {{0, kSmallBelow}, {kSmallBelow, kLargeAbove}, {kLargeAbove, 1e18}}};

constexpr std::array<const char*, kMaxShapeClasses + 1> kNames = {"background", "disc",  "box",
                                                                  "triangle",   "cross", "ring",
                                                                  "frame",      "diamond", "x"};

}  // namespace

const char* ShapeName(int label) {
  return label >= 0 && label <= kMaxShapeClasses ? kNames[static_cast<size_t>(label)] : "unknown";
}

Status ShapesSpec::Validate() const {
  if (height < 8 || width < 8 || height > 4096 || width > 4096) {
    return Status::InvalidArgument("shapes data: height and width must be 8..4096 pixels");
  }
  if (classes < 1 || classes > kMaxShapeClasses) {
    return Status::InvalidArgument("shapes data: classes must be 1.." + std::to_string(kMaxShapeClasses));
  }
  if (max_objects < 1 || max_objects > 100) return Status::InvalidArgument("shapes data: max_objects must be 1..100");
  if (!(min_size >= 4) || !(max_size >= min_size) || max_size > std::min(height, width)) {
    return Status::InvalidArgument("shapes data: need 4 <= min_size <= max_size <= the image's smaller side");
  }
  if (!(max_occlusion >= 0 && max_occlusion < 1)) {
    return Status::InvalidArgument("shapes data: max_occlusion must be in [0, 1)");
  }
  if (spread_area_ranges && !(min_size < 32 && max_size > 96)) {
    return Status::InvalidArgument(
        "shapes data: spread_area_ranges needs min_size < 32 (small objects) and max_size > 96 (large objects "
        "paint more than 96^2 pixels)");
  }
  if (!(noise_stddev >= 0 && noise_stddev <= 128)) return Status::InvalidArgument("shapes data: noise_stddev must be 0..128");
  return Status::Ok();
}

ShapesImage MakeShapesImage(const ShapesSpec& spec, uint64_t index, bool with_masks) {
  Rng rng(spec.seed * 0xD1B54A32D192ED03ull ^ (index * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull));
  const int H = spec.height, W = spec.width;
  const size_t npix = static_cast<size_t>(H) * static_cast<size_t>(W);
  std::vector<double> rgb(npix * 3);

  // Background: a two-colour gradient, a sinusoidal texture, a few strokes.
  std::array<double, 3> c0{}, c1{};
  for (int c = 0; c < 3; ++c) {
    c0[static_cast<size_t>(c)] = rng.Uniform(40, 200);
    c1[static_cast<size_t>(c)] = rng.Uniform(40, 200);
  }
  const double gdir = rng.Uniform(0, 2 * std::numbers::pi);
  const double tdir = rng.Uniform(0, std::numbers::pi), tfreq = rng.Uniform(2, 8) / std::max(H, W);
  const double tamp = rng.Uniform(8, 28), tphase = rng.Uniform(0, 2 * std::numbers::pi);
  for (int y = 0; y < H; ++y) {
    for (int x = 0; x < W; ++x) {
      const double u = ((x - W / 2.0) * std::cos(gdir) + (y - H / 2.0) * std::sin(gdir)) / std::max(H, W) + 0.5;
      const double tex = tamp * std::sin(2 * std::numbers::pi * tfreq * (x * std::cos(tdir) + y * std::sin(tdir)) + tphase);
      for (int c = 0; c < 3; ++c) {
        rgb[(static_cast<size_t>(y) * W + x) * 3 + c] =
            c0[static_cast<size_t>(c)] * (1 - u) + c1[static_cast<size_t>(c)] * u + tex;
      }
    }
  }
  const int strokes = rng.Int(0, 3);
  for (int s = 0; s < strokes; ++s) {
    const double x0 = rng.Uniform(0, W), y0 = rng.Uniform(0, H), x1 = rng.Uniform(0, W), y1 = rng.Uniform(0, H);
    std::array<double, 3> col{rng.Uniform(0, 255), rng.Uniform(0, 255), rng.Uniform(0, 255)};
    const int steps = static_cast<int>(std::hypot(x1 - x0, y1 - y0)) + 1;
    for (int k = 0; k <= steps; ++k) {
      const int x = static_cast<int>(x0 + (x1 - x0) * k / steps), y = static_cast<int>(y0 + (y1 - y0) * k / steps);
      if (x < 0 || y < 0 || x >= W || y >= H) continue;
      for (int c = 0; c < 3; ++c) rgb[(static_cast<size_t>(y) * W + x) * 3 + c] = col[static_cast<size_t>(c)];
    }
  }

  // Objects, painted in order; owner[p] = the object that shows at p.
  std::vector<int16_t> owner(npix, -1);
  std::vector<Shape> shapes;
  std::vector<int64_t> full, visible;
  const int want = rng.Int(1, spec.max_objects);
  // With spread_area_ranges, each object's area range, kept through its
  // placement attempts; the larger ones are placed first, so the smaller
  // ones, painted over them, hide only part of them.
  std::vector<int> ranges;
  if (spec.spread_area_ranges) {
    for (int o = 0; o < want; ++o) ranges.push_back(rng.Int(0, 2));
    std::sort(ranges.begin(), ranges.end(), std::greater<>());
  }
  for (int o = 0; o < want; ++o) {
    const std::array<double, 2> range =
        ranges.empty() ? std::array<double, 2>{0, 1e18} : kAreaRanges[static_cast<size_t>(ranges[static_cast<size_t>(o)])];
    for (int attempt = 0; attempt < 30; ++attempt) {
      Shape s;
      s.label = rng.Int(1, spec.classes);
      double lo_size = spec.min_size, hi_size = spec.max_size;
      if (spec.spread_area_ranges) {
        const double fill = kFill[static_cast<size_t>(s.label)];
        lo_size = std::max(lo_size, std::sqrt(range[0] / fill));
        hi_size = std::min(hi_size, std::sqrt(range[1] / fill));
        if (lo_size > hi_size) continue;  // this class cannot reach that range here
      }
      const double size = std::exp(rng.Uniform(std::log(lo_size), std::log(hi_size)));
      double aspect = 1;
      if (s.label == 2 || s.label == 3 || s.label == 6 || s.label == 7) aspect = std::exp(rng.Uniform(-0.45, 0.45));
      s.w = std::min(size * std::sqrt(aspect), static_cast<double>(W));
      s.h = std::min(size / std::sqrt(aspect), static_cast<double>(H));
      s.thick = std::max(2.0, 0.28 * std::min(s.w, s.h));
      s.flip = rng.Uniform() < 0.5;
      s.cx = rng.Uniform(s.w / 2, W - s.w / 2);
      s.cy = rng.Uniform(s.h / 2, H - s.h / 2);
      // Pixels it would cover, and how much of each earlier object it hides.
      const int bx0 = std::max(0, static_cast<int>(std::floor(s.cx - s.w / 2)));
      const int bx1 = std::min(W, static_cast<int>(std::ceil(s.cx + s.w / 2)) + 1);
      const int by0 = std::max(0, static_cast<int>(std::floor(s.cy - s.h / 2)));
      const int by1 = std::min(H, static_cast<int>(std::ceil(s.cy + s.h / 2)) + 1);
      std::vector<size_t> cover;
      std::vector<int64_t> hidden(shapes.size(), 0);
      for (int y = by0; y < by1; ++y) {
        for (int x = bx0; x < bx1; ++x) {
          if (!s.Contains(x + 0.5, y + 0.5)) continue;
          const size_t p = static_cast<size_t>(y) * W + x;
          cover.push_back(p);
          if (owner[p] >= 0) ++hidden[static_cast<size_t>(owner[p])];
        }
      }
      if (cover.size() < 8) continue;
      const double painted = static_cast<double>(cover.size());
      if (painted <= range[0] || painted >= range[1]) continue;
      bool ok = true;
      for (size_t j = 0; j < shapes.size() && ok; ++j) {
        ok = static_cast<double>(visible[j] - hidden[j]) >= (1 - spec.max_occlusion) * static_cast<double>(full[j]) &&
             Iou(s.bounds(), shapes[j].bounds()) <= 0.5;
      }
      if (!ok) continue;
      // A colour that stands out from the background's mean.
      std::array<double, 3> col{};
      for (int tries = 0; tries < 8; ++tries) {
        double dist = 0;
        for (int c = 0; c < 3; ++c) {
          col[static_cast<size_t>(c)] = rng.Uniform(0, 255);
          dist += std::abs(col[static_cast<size_t>(c)] - (c0[static_cast<size_t>(c)] + c1[static_cast<size_t>(c)]) / 2);
        }
        if (dist > 150) break;
      }
      const int16_t id = static_cast<int16_t>(shapes.size());
      for (size_t j = 0; j < shapes.size(); ++j) visible[j] -= hidden[j];
      for (size_t p : cover) {
        owner[p] = id;
        for (int c = 0; c < 3; ++c) rgb[p * 3 + static_cast<size_t>(c)] = col[static_cast<size_t>(c)];
      }
      shapes.push_back(s);
      full.push_back(static_cast<int64_t>(cover.size()));
      visible.push_back(static_cast<int64_t>(cover.size()));
      break;
    }
  }

  ShapesImage out;
  out.image.height = H;
  out.image.width = W;
  out.image.channels = 3;
  out.image.pixels.resize(npix * 3);
  for (size_t i = 0; i < npix * 3; ++i) {
    const double v = rgb[i] + spec.noise_stddev * rng.Normal();
    out.image.pixels[i] = static_cast<uint8_t>(std::clamp(std::lround(v), 0L, 255L));
  }
  for (size_t j = 0; j < shapes.size(); ++j) {
    ShapeObject obj;
    obj.label = shapes[j].label;
    int x0 = W, y0 = H, x1 = -1, y1 = -1;
    if (with_masks) obj.mask.assign(npix, 0);
    for (int y = 0; y < H; ++y) {
      for (int x = 0; x < W; ++x) {
        const size_t p = static_cast<size_t>(y) * W + x;
        if (owner[p] != static_cast<int16_t>(j)) continue;
        x0 = std::min(x0, x);
        y0 = std::min(y0, y);
        x1 = std::max(x1, x);
        y1 = std::max(y1, y);
        if (with_masks) obj.mask[p] = 1;
      }
    }
    obj.box = {static_cast<double>(x0), static_cast<double>(y0), static_cast<double>(x1 + 1), static_cast<double>(y1 + 1)};
    obj.area = static_cast<double>(visible[j]);
    out.objects.push_back(std::move(obj));
  }
  return out;
}

}  // namespace podbench::detection
