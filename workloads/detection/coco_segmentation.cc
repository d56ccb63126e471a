#include "workloads/detection/coco_segmentation.h"

#include "workloads/detection/mask_polygon.h"
#include "workloads/detection/mask_rle_string.h"

namespace podbench::detection {

Result<Rle> SegmentationToRle(const CocoSegmentation& segm, int image_height, int image_width,
                              const std::string& what) {
  if (segm.form == CocoSegmentation::Form::kPolygons) {
    return RasterisePolygons(segm.polygons, image_height, image_width, what);
  }
  if (segm.height != image_height || segm.width != image_width) {
    return Status::InvalidArgument(what + ": RLE size [" + std::to_string(segm.height) + ", " +
                                   std::to_string(segm.width) + "] differs from the image's [" +
                                   std::to_string(image_height) + ", " + std::to_string(image_width) + "]");
  }
  if (segm.form == CocoSegmentation::Form::kCounts) return MakeRle(segm.height, segm.width, segm.counts, what);
  return DecodeRleString(segm.height, segm.width, segm.counts_string, what);
}

}  // namespace podbench::detection
