#include "workloads/detection/mask_rle.h"

#include <algorithm>

namespace podbench::detection {

namespace {

// Walks the runs of `a` and `b` together, calling emit(length, a_set, b_set)
// for each stretch over which neither mask changes.
template <typename Emit>
void WalkRuns(const Rle& a, const Rle& b, Emit emit) {
  size_t ia = 0, ib = 0;
  uint64_t left_a = a.counts.empty() ? 0 : a.counts[0], left_b = b.counts.empty() ? 0 : b.counts[0];
  while (true) {
    // Skip exhausted (or empty) runs; each skip flips that mask's value.
    while (left_a == 0 && ia + 1 < a.counts.size()) left_a = a.counts[++ia];
    while (left_b == 0 && ib + 1 < b.counts.size()) left_b = b.counts[++ib];
    if (left_a == 0 || left_b == 0) return;
    const uint64_t n = std::min(left_a, left_b);
    emit(n, ia % 2 == 1, ib % 2 == 1);
    left_a -= n;
    left_b -= n;
  }
}

}  // namespace

Result<Rle> MakeRle(int height, int width, std::vector<uint32_t> counts, const std::string& what) {
  if (height < 0 || width < 0) {
    return Status::InvalidArgument(what + ": size [" + std::to_string(height) + ", " + std::to_string(width) +
                                   "] is negative");
  }
  uint64_t sum = 0;
  for (uint32_t c : counts) sum += c;
  const uint64_t want = static_cast<uint64_t>(height) * static_cast<uint64_t>(width);
  if (sum != want) {
    return Status::InvalidArgument(what + ": counts sum to " + std::to_string(sum) + ", not height x width = " +
                                   std::to_string(want));
  }
  return Rle{height, width, std::move(counts)};
}

Rle EncodeMask(int height, int width, const std::vector<uint8_t>& mask) {
  Rle r{height, width, {}};
  bool value = false;
  uint32_t run = 0;
  for (int x = 0; x < width; ++x) {
    for (int y = 0; y < height; ++y) {
      const bool v = mask[static_cast<size_t>(y) * static_cast<size_t>(width) + static_cast<size_t>(x)] != 0;
      if (v != value) {
        r.counts.push_back(run);
        run = 0;
        value = v;
      }
      ++run;
    }
  }
  r.counts.push_back(run);
  return r;
}

std::vector<uint8_t> DecodeMask(const Rle& rle) {
  const size_t h = static_cast<size_t>(rle.height), w = static_cast<size_t>(rle.width);
  std::vector<uint8_t> mask(h * w, 0);
  size_t p = 0;  // column-major position
  for (size_t i = 0; i < rle.counts.size(); ++i) {
    for (uint32_t k = 0; k < rle.counts[i] && p < h * w; ++k, ++p) {
      if (i % 2 == 1) mask[(p % h) * w + p / h] = 1;
    }
  }
  return mask;
}

uint64_t MaskArea(const Rle& rle) {
  uint64_t a = 0;
  for (size_t i = 1; i < rle.counts.size(); i += 2) a += rle.counts[i];
  return a;
}

std::array<double, 4> MaskBox(const Rle& rle) {
  const size_t pairs = rle.counts.size() / 2 * 2;
  if (pairs == 0 || rle.height == 0) return {0, 0, 0, 0};
  const uint64_t h = static_cast<uint64_t>(rle.height);
  uint64_t xs = static_cast<uint64_t>(rle.width), ys = h, xe = 0, ye = 0, pos = 0, x_start = 0;
  for (size_t j = 0; j < pairs; ++j) {
    pos += rle.counts[j];
    // The first set pixel of a run of 1s (j even), or its last (j odd).
    const uint64_t at = pos - (j % 2);
    const uint64_t y = at % h, x = at / h;
    if (j % 2 == 0) {
      x_start = x;
    } else if (x_start < x) {  // the run crosses a column: every row is covered
      ys = 0;
      ye = h - 1;
    }
    xs = std::min(xs, x);
    xe = std::max(xe, x);
    ys = std::min(ys, y);
    ye = std::max(ye, y);
  }
  return {static_cast<double>(xs), static_cast<double>(ys), static_cast<double>(xe - xs + 1),
          static_cast<double>(ye - ys + 1)};
}

Result<Rle> MergeMasks(const std::vector<Rle>& masks, bool intersect) {
  if (masks.empty()) return Status::InvalidArgument("mask merge: no masks given");
  Rle out = masks[0];
  for (size_t i = 1; i < masks.size(); ++i) {
    const Rle& m = masks[i];
    if (m.height != out.height || m.width != out.width) {
      return Status::InvalidArgument("mask merge: mask #" + std::to_string(i) + " is " + std::to_string(m.height) +
                                     "x" + std::to_string(m.width) + ", mask #0 " + std::to_string(out.height) +
                                     "x" + std::to_string(out.width));
    }
    Rle next{out.height, out.width, {}};
    bool value = false;
    uint64_t run = 0;
    WalkRuns(out, m, [&](uint64_t n, bool a, bool b) {
      const bool v = intersect ? (a && b) : (a || b);
      if (v != value) {
        next.counts.push_back(static_cast<uint32_t>(run));
        run = 0;
        value = v;
      }
      run += n;
    });
    next.counts.push_back(static_cast<uint32_t>(run));
    out = std::move(next);
  }
  return out;
}

uint64_t MaskIntersection(const Rle& a, const Rle& b) {
  uint64_t both = 0;
  WalkRuns(a, b, [&](uint64_t n, bool x, bool y) { both += (x && y) ? n : 0; });
  return both;
}

double MaskIou(const Rle& d, const Rle& g, bool crowd) {
  const uint64_t i = MaskIntersection(d, g);
  if (i == 0) return 0;
  const uint64_t u = crowd ? MaskArea(d) : MaskArea(d) + MaskArea(g) - i;
  return static_cast<double>(i) / static_cast<double>(u);
}

}  // namespace podbench::detection
