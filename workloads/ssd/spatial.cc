#include "workloads/ssd/spatial.h"

#include <algorithm>

namespace podbench::ssd {

RowRange RowsOfCore(int height, int k, int i) {
  const int r = (height + k - 1) / k;
  return {std::min(height, i * r), std::min(height, (i + 1) * r)};
}

WindowPlan PlanWindow(int in_h, int out_h, int k, int kernel, int stride, int pad) {
  WindowPlan p;
  for (int i = 0; i < k; ++i) {
    const RowRange out = RowsOfCore(out_h, k, i);
    const int lo = out.begin * stride - pad, hi = (out.end - 1) * stride - pad + kernel;
    p.out.push_back(out);
    p.lo.push_back(lo);
    p.hi.push_back(hi);
    if (out.empty()) continue;
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
    if (!p.partitionable) break;
  }
  if (!p.partitionable) p.halo = 0;
  return p;
}

}  // namespace podbench::ssd
