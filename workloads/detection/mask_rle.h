// Binary masks as COCO (pycocotools' maskApi) stores them: run-length
// encoded in column-major order (x outer, y inner), the runs alternating
// 0s and 1s and starting with 0s, so counts[0] is 0 when pixel (0, 0) is set.
// Canonical counts (what EncodeMask and Merge produce) have no empty run
// after the first; counts read from elsewhere may have some, and every
// function here accepts them with pycocotools' meaning.
//
// The compressed string form is in mask_rle_string.h, polygons in
// mask_polygon.h, and the COCO annotation forms in coco_segmentation.h.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"

namespace podbench::detection {

struct Rle {
  int height = 0, width = 0;
  std::vector<uint32_t> counts;  // sums to height * width (MakeRle checks it)
  bool operator==(const Rle&) const = default;
};

// An RLE from COCO's uncompressed form ({"size": [h, w], "counts": [...]}).
// InvalidArgument naming `what` when h or w is negative or the counts do not
// sum to h * w.
Result<Rle> MakeRle(int height, int width, std::vector<uint32_t> counts, const std::string& what);

// Encodes a height x width mask given row-major (mask[y * width + x], nonzero
// = set), as pycocotools' encode does for a Fortran-order array.
// REQUIRES: mask.size() == height * width.
Rle EncodeMask(int height, int width, const std::vector<uint8_t>& mask);

// The mask, row-major, 1 = set. REQUIRES: rle sums to height * width.
std::vector<uint8_t> DecodeMask(const Rle& rle);

// The number of set pixels (pycocotools' area).
uint64_t MaskArea(const Rle& rle);

// [x, y, width, height] of the set pixels, pycocotools' toBbox: [0, 0, 0, 0]
// when none is set; when a run of 1s crosses a column boundary the box spans
// the whole height. Only complete (0s, 1s) pairs of counts are read.
std::array<double, 4> MaskBox(const Rle& rle);

// The union (or intersection) of `masks`, in canonical counts; one mask is
// returned unchanged. InvalidArgument when `masks` is empty or their sizes
// differ.
Result<Rle> MergeMasks(const std::vector<Rle>& masks, bool intersect);

// The number of pixels set in both. REQUIRES: the same size.
uint64_t MaskIntersection(const Rle& a, const Rle& b);

// pycocotools' maskUtils.iou for one pair: |d & g| / |d | g|, or |d & g| / |d|
// when `crowd` (g is a crowd region); 0 when the masks share no pixel (so two
// empty masks have IoU 0). REQUIRES: the same size.
double MaskIou(const Rle& d, const Rle& g, bool crowd);

}  // namespace podbench::detection
