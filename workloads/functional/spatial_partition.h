// Spatial partitioning of a convolutional network along the image height,
// shared by the functional workloads that partition (SSD, Mask R-CNN's first
// stage): which rows each of a replica's k cores holds, which rows a
// windowed op (convolution, pooling, nearest upsampling) needs from its
// neighbours, whether that fits a neighbour-to-neighbour halo exchange, and
// the buffers of that exchange and of gathering a partitioned tensor.
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
// away, or rows a neighbour does not hold) cannot be partitioned: the model
// runs it on the gathered tensor instead, as XLA falls back to replication.
//
// Tensors are [n, rows, W, C] row-major; a core's part of a partitioned
// tensor holds its rows of each of the n images, image after image.
//
// The halo exchange buffer of one op on one core has four regions of
// n x halo rows each: 0 = rows received from the core above, 1 = rows sent
// up, 2 = rows sent down, 3 = rows received from the core below (the
// topology's halo_exchange moves region 1 to the core above's region 3 and
// region 2 to the core below's region 0). The backward pass sends gradients
// of halo rows back the same way, to the cores that own the rows.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace podbench::functional {

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
  // Per core (all k, partitionable or not): output rows computed, and input
  // rows read [lo, hi) (may extend past [0, H): padding).
  std::vector<RowRange> out;
  std::vector<int> lo, hi;
};

// The plan of a windowed op from `in_h` to `out_h` rows over k cores.
WindowPlan PlanWindow(int in_h, int out_h, int k, int kernel, int stride, int pad);
// The plan of nearest upsampling by `factor` (output row o reads input row
// o / factor) from `in_h` to factor x in_h rows over k cores.
WindowPlan PlanUpsample(int in_h, int factor, int k);

// How a network runs over the k cores of a replica: per tensor whether
// each core holds a strip of its rows or every core the whole tensor
// (replicated), and the steps in order, a gather being a step that makes a
// replicated copy of a partitioned tensor (an all-reduce of the replica's
// disjoint strips). A model's plan derives from it with its own Step, which
// must have the members kind, in, out and replicated, and decides which
// ops run replicated; TensorShape has members h, w and c.
enum class StripStepKind { kOp, kGather };

template <typename TensorShape, typename Step>
struct StripPlan {
  int k = 1;
  std::vector<TensorShape> shape;
  std::vector<char> replicated;
  std::vector<Step> steps;

  // The rows of tensor t core `pos` holds.
  RowRange Rows(int t, int pos) const {
    const int h = shape[static_cast<size_t>(t)].h;
    return replicated[static_cast<size_t>(t)] ? RowRange{0, h} : RowsOfCore(h, k, pos);
  }
  // Floats of tensor t on core `pos` for n images.
  size_t Local(int t, int pos, int64_t n) const {
    const TensorShape& s = shape[static_cast<size_t>(t)];
    return static_cast<size_t>(n * Rows(t, pos).size() * s.w * s.c);
  }
  // A new tensor.
  int Add(TensorShape s, bool rep) {
    shape.push_back(s);
    replicated.push_back(rep);
    return static_cast<int>(shape.size()) - 1;
  }
  // The whole copy of tensor t: t itself when replicated or k = 1, else the
  // gather of t, appended as the next step on first use (`gathered`, -1
  // until then, remembers it).
  int Whole(int t, int& gathered) {
    if (k == 1 || replicated[static_cast<size_t>(t)]) return t;
    if (gathered < 0) {
      Step s;
      s.kind = StripStepKind::kGather;
      s.in = t;
      s.replicated = true;
      s.out = gathered = Add(shape[static_cast<size_t>(t)], true);
      steps.push_back(s);
    }
    return gathered;
  }
};

// Floats of one op's halo exchange buffer on one core.
size_t HaloElements(int64_t n, int halo, size_t row_elems);

// Forward: zeroes `buf` (HaloElements) and writes the rows this core sends:
// its first `halo` rows of `own` (region 1) and its last (region 2), as far
// as it holds them. `x` holds rows `own` of n images, `row_elems` floats a
// row.
void PackHalo(const float* x, const RowRange& own, int halo, int64_t n, size_t row_elems, float* buf);

// The rows [lo, hi) of a windowed op's input that one core reads, in `ext`
// as [n, hi - lo, W + 2 pad, C] with `pad` columns of padding either side:
// its own rows from x (rows `own`), halo rows from the exchange buffer
// (regions 0 and 3), `fill` outside the image.
void BuildWindowInput(const float* x, const RowRange& own, const float* halo_buf, int halo, int H, int W, int C,
                      int pad, int lo, int hi, int64_t n, float fill, std::vector<float>& ext);

// Backward of BuildWindowInput: zeroes `buf` (when halo > 0) and, when dext
// is not null, adds the gradient of the window input `dext` (laid out as
// BuildWindowInput's ext) to dx for the rows the core owns and writes the
// halo rows' gradients into the regions sent back to their owners (rows
// above `own` into region 1, rows below into region 2). Padding is dropped.
void ScatterWindowGradient(const float* dext, const RowRange& own, int H, int W, int C, int pad, int lo, int hi,
                           int64_t n, int halo, float* dx, float* buf);
// After the exchange: adds the halo gradients returned by the neighbours
// (region 3 from below for the core's last rows, region 0 from above for its
// first rows) to dx.
void AddReturnedHaloGradient(const float* buf, const RowRange& own, int halo, int64_t n, size_t row_elems, float* dx);

// Gathering a partitioned tensor of H rows: copies this core's rows `own`
// from x into `whole` ([n, H, ...], rows it does not hold untouched), for an
// all-reduce of the replica's disjoint parts.
void PlaceStrip(const float* x, const RowRange& own, int H, size_t row_elems, int64_t n, float* whole);
// Copies rows `own` of `whole` into x (e.g. a core's part of the input).
void CopyStrip(const float* whole, const RowRange& own, int H, size_t row_elems, int64_t n, float* x);
// Adds rows `own` of `whole` to x (the backward of a gather).
void AddStrip(const float* whole, const RowRange& own, int H, size_t row_elems, int64_t n, float* x);

}  // namespace podbench::functional
