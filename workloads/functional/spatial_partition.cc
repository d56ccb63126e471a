#include "workloads/functional/spatial_partition.h"

#include <algorithm>
#include <cstring>

#include "kernels/ops/elementwise.h"

namespace podbench::functional {

RowRange RowsOfCore(int height, int k, int i) {
  const int r = (height + k - 1) / k;
  return {std::min(height, i * r), std::min(height, (i + 1) * r)};
}

namespace {

// The plan of an op whose output rows [o0, o1) read input rows
// [lo_of(o0), hi_of(o1)).
template <typename Lo, typename Hi>
WindowPlan PlanReads(int in_h, int out_h, int k, Lo lo_of, Hi hi_of) {
  WindowPlan p;
  for (int i = 0; i < k; ++i) {
    const RowRange out = RowsOfCore(out_h, k, i);
    const int lo = lo_of(out.begin), hi = hi_of(out.end);
    p.out.push_back(out);
    p.lo.push_back(lo);
    p.hi.push_back(hi);
    if (out.empty() || !p.partitionable) continue;  // every core's rows are still listed
    const RowRange own = RowsOfCore(in_h, k, i);
    const int need_lo = std::max(0, lo), need_hi = std::min(in_h, hi);
    for (int r = need_lo; r < need_hi; ++r) {
      if (own.Contains(r)) continue;
      // From the neighbour above or below, which must hold the row.
      const bool above = r < own.begin || own.empty();
      const int n = above ? i - 1 : i + 1;
      if (n < 0 || n >= k || !RowsOfCore(in_h, k, n).Contains(r)) {
        p.partitionable = false;
        break;
      }
      const int depth = above ? RowsOfCore(in_h, k, n).end - r : r - RowsOfCore(in_h, k, n).begin + 1;
      p.halo = std::max(p.halo, depth);
    }
  }
  if (!p.partitionable) p.halo = 0;
  return p;
}

size_t At(int64_t img, int rows, int r, size_t row_elems) {
  return (static_cast<size_t>(img) * static_cast<size_t>(rows) + static_cast<size_t>(r)) * row_elems;
}

}  // namespace

WindowPlan PlanWindow(int in_h, int out_h, int k, int kernel, int stride, int pad) {
  return PlanReads(
      in_h, out_h, k, [&](int o0) { return o0 * stride - pad; },
      [&](int o1) { return (o1 - 1) * stride - pad + kernel; });
}

WindowPlan PlanUpsample(int in_h, int factor, int k) {
  return PlanReads(
      in_h, factor * in_h, k, [&](int o0) { return o0 / factor; },
      [&](int o1) { return o1 <= 0 ? 0 : (o1 - 1) / factor + 1; });
}

size_t HaloElements(int64_t n, int halo, size_t row_elems) {
  return 4 * static_cast<size_t>(n) * static_cast<size_t>(halo) * row_elems;
}

void PackHalo(const float* x, const RowRange& own, int halo, int64_t n, size_t row_elems, float* buf) {
  const size_t region = static_cast<size_t>(n) * static_cast<size_t>(halo) * row_elems;
  std::fill(buf, buf + 4 * region, 0.f);
  for (int64_t img = 0; img < n; ++img) {
    for (int r = 0; r < halo; ++r) {
      const int first = own.begin + r, last = own.end - halo + r;
      if (first < own.end) {
        std::memcpy(buf + region + At(img, halo, r, row_elems), x + At(img, own.size(), first - own.begin, row_elems),
                    row_elems * sizeof(float));
      }
      if (last >= own.begin) {
        std::memcpy(buf + 2 * region + At(img, halo, r, row_elems), x + At(img, own.size(), last - own.begin, row_elems),
                    row_elems * sizeof(float));
      }
    }
  }
}

void BuildWindowInput(const float* x, const RowRange& own, const float* halo_buf, int halo, int H, int W, int C,
                      int pad, int lo, int hi, int64_t n, float fill, std::vector<float>& ext) {
  const int rows = hi - lo, We = W + 2 * pad;
  const size_t row = static_cast<size_t>(W) * C, region = static_cast<size_t>(n) * halo * row;
  ext.assign(static_cast<size_t>(n) * rows * We * C, fill);
  for (int64_t img = 0; img < n; ++img) {
    for (int g = std::max(lo, 0); g < std::min(hi, H); ++g) {
      const float* src;
      if (own.Contains(g)) {
        src = x + (static_cast<size_t>(img) * own.size() + static_cast<size_t>(g - own.begin)) * row;
      } else if (g < own.begin) {
        src = halo_buf + (static_cast<size_t>(img) * halo + static_cast<size_t>(g - (own.begin - halo))) * row;
      } else {
        src = halo_buf + 3 * region + (static_cast<size_t>(img) * halo + static_cast<size_t>(g - own.end)) * row;
      }
      std::memcpy(ext.data() + ((static_cast<size_t>(img) * rows + static_cast<size_t>(g - lo)) * We + pad) * C, src,
                  row * sizeof(float));
    }
  }
}

void ScatterWindowGradient(const float* dext, const RowRange& own, int H, int W, int C, int pad, int lo, int hi,
                           int64_t n, int halo, float* dx, float* buf) {
  const size_t row = static_cast<size_t>(W) * C, region = static_cast<size_t>(n) * halo * row;
  if (halo > 0) std::fill(buf, buf + 4 * region, 0.f);
  if (dext == nullptr) return;
  const int rows = hi - lo, We = W + 2 * pad;
  for (int64_t img = 0; img < n; ++img) {
    for (int g = std::max(lo, 0); g < std::min(hi, H); ++g) {
      const float* src = dext + ((static_cast<size_t>(img) * rows + static_cast<size_t>(g - lo)) * We + pad) * C;
      float* dst;
      if (own.Contains(g)) {
        dst = dx + (static_cast<size_t>(img) * own.size() + static_cast<size_t>(g - own.begin)) * row;
      } else if (g < own.begin) {  // sent up: arrives in the row above's bottom region
        dst = buf + region + (static_cast<size_t>(img) * halo + static_cast<size_t>(g - (own.begin - halo))) * row;
      } else {  // sent down: arrives in the row below's top region
        dst = buf + 2 * region + (static_cast<size_t>(img) * halo + static_cast<size_t>(g - own.end)) * row;
      }
      kernels::Axpy(1.f, src, dst, static_cast<int64_t>(row));
    }
  }
}

void AddReturnedHaloGradient(const float* buf, const RowRange& own, int halo, int64_t n, size_t row_elems, float* dx) {
  const size_t region = static_cast<size_t>(n) * static_cast<size_t>(halo) * row_elems;
  for (int64_t img = 0; img < n; ++img) {
    for (int r = 0; r < halo; ++r) {
      const int last = own.end - halo + r, first = own.begin + r;
      if (last >= own.begin) {  // from the core below, for my last rows
        kernels::Axpy(1.f, buf + 3 * region + At(img, halo, r, row_elems), dx + At(img, own.size(), last - own.begin, row_elems),
                      static_cast<int64_t>(row_elems));
      }
      if (first < own.end) {  // from the core above, for my first rows
        kernels::Axpy(1.f, buf + At(img, halo, r, row_elems), dx + At(img, own.size(), first - own.begin, row_elems),
                      static_cast<int64_t>(row_elems));
      }
    }
  }
}

void PlaceStrip(const float* x, const RowRange& own, int H, size_t row_elems, int64_t n, float* whole) {
  if (own.empty()) return;
  for (int64_t img = 0; img < n; ++img) {
    std::memcpy(whole + At(img, H, own.begin, row_elems), x + At(img, own.size(), 0, row_elems),
                static_cast<size_t>(own.size()) * row_elems * sizeof(float));
  }
}

void CopyStrip(const float* whole, const RowRange& own, int H, size_t row_elems, int64_t n, float* x) {
  if (own.empty()) return;
  for (int64_t img = 0; img < n; ++img) {
    std::memcpy(x + At(img, own.size(), 0, row_elems), whole + At(img, H, own.begin, row_elems),
                static_cast<size_t>(own.size()) * row_elems * sizeof(float));
  }
}

void AddStrip(const float* whole, const RowRange& own, int H, size_t row_elems, int64_t n, float* x) {
  if (own.empty()) return;
  for (int64_t img = 0; img < n; ++img) {
    kernels::Axpy(1.f, whole + At(img, H, own.begin, row_elems), x + At(img, own.size(), 0, row_elems),
                  static_cast<int64_t>(own.size() * row_elems));
  }
}

}  // namespace podbench::functional
