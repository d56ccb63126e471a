// A COCO annotation's "segmentation" in any of its three forms, and its mask
// as pycocotools' COCO.annToRLE makes it: polygons are rasterised at the
// image's size and merged (mask_polygon.h); RLE ({"size", "counts"}) is taken
// at its own size, counts given as a list (uncompressed) or as a compressed
// string (mask_rle_string.h). Detections (loadRes) carry the RLE forms.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"
#include "workloads/detection/mask_rle.h"

namespace podbench::detection {

struct CocoSegmentation {
  enum class Form { kPolygons, kCounts, kCountsString };
  Form form = Form::kPolygons;
  std::vector<std::vector<double>> polygons;  // kPolygons
  int height = 0, width = 0;                  // the RLE's "size" (kCounts, kCountsString)
  std::vector<uint32_t> counts;               // kCounts
  std::string counts_string;                  // kCountsString
};

// The mask of `segm` on an image of image_height x image_width. For the RLE
// forms the RLE's size must equal the image's. InvalidArgument naming `what`
// for any malformed form (see RasterisePolygons, MakeRle, DecodeRleString)
// or a size that differs from the image's.
Result<Rle> SegmentationToRle(const CocoSegmentation& segm, int image_height, int image_width,
                              const std::string& what);

}  // namespace podbench::detection
