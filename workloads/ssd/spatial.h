// Spatial partitioning of a convolutional network along the image height:
// which rows each of a replica's k cores holds, which rows a windowed op
// (convolution, pooling) needs from its neighbours, and whether that fits a
// neighbour-to-neighbour halo exchange. Nothing here is specific to SSD.
//
// Rows are split as XLA's spatial partitioner splits a dimension: core i of
// k holds rows [i r, (i + 1) r) with r = ceil(H / k), clipped to H (the last
// cores may hold fewer rows, or none). A windowed op (kernel kh, stride s,
// padding p) computes output rows [o0, o1) of that split on core i; they read
// input rows [o0 s - p, (o1 - 1) s - p + kh), rows outside [0, H) being the
// padding. Rows the core does not hold must come from core i - 1 (above) or
// i + 1 (below) through a halo exchange of depth `halo` rows each way, the
// topology's "halo_exchange" layout: core i sends its first `halo` rows up
// and its last `halo` rows down. An op whose needs reach further (a core two
// away, or rows a neighbour does not hold) cannot be partitioned: it runs
// replicated on every core of the replica on the gathered tensor, as XLA
// falls back to replication.
#pragma once

#include <vector>

namespace podbench::ssd {

struct RowRange {
  int begin = 0, end = 0;
  int size() const { return end - begin; }
  bool empty() const { return end <= begin; }
  bool Contains(int r) const { return r >= begin && r < end; }
};

// Rows of core i of k for a tensor of `height` rows. REQUIRES: 0 <= i < k.
RowRange RowsOfCore(int height, int k, int i);

struct WindowPlan {
  bool partitionable = true;
  int halo = 0;  // rows exchanged each way (0: no exchange)
  // Per core: output rows computed, and input rows read [lo, hi) (may
  // extend past [0, H): padding).
  std::vector<RowRange> out;
  std::vector<int> lo, hi;
};

// The plan of a windowed op from `in_h` to `out_h` rows over k cores.
WindowPlan PlanWindow(int in_h, int out_h, int k, int kernel, int stride, int pad);

}  // namespace podbench::ssd
