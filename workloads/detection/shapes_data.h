// A generated object-detection dataset: images of several classes of shapes
// with ground-truth boxes, for the functional detection workloads (SSD now,
// Mask R-CNN next, which can also take each object's visible-pixel mask).
//
// Each image has a textured, noisy background (a two-colour gradient, a
// sinusoidal texture of random orientation and frequency, a few distractor
// strokes, per-pixel noise) and 1..max_objects shapes of random class,
// colour, size (log-uniform in [min_size, max_size] pixels) and position.
// Shapes are painted in order, so later ones occlude earlier ones; a
// placement is retried when it would hide more than `max_occlusion` of an
// earlier object or overlap its box by more than IoU 0.5. The classes, by
// label (1-based; 0 is the background), distinct silhouettes first:
//   1 disc, 2 box (filled rectangle), 3 triangle, 4 cross, then the outlined
//   variants 5 ring and 6 frame (outlined rectangle), 7 diamond, 8 x
//   (diagonal cross).
// Ground truth, as COCO annotates it: the tight box of the object's visible
// pixels, its visible pixel count as the area, not crowd; with_masks, the
// visible pixels themselves (the instance mask: masks of one image are
// disjoint, and objects overlap wherever a later one hides part of an
// earlier one; EncodeMask in mask_rle.h makes it the segm evaluator's
// ground truth).
//
// For Mask R-CNN, `spread_area_ranges` spreads the objects over COCO's three
// area ranges: each object first draws small (< 32^2 pixels), medium or
// large (> 96^2) uniformly, and the larger ones are placed first; each then
// takes a size within [min_size, max_size] that paints that many pixels (a
// placement that misses its range is retried like any other), so APs, APm
// and APl all have ground truth. The range holds for the pixels painted at
// placement; later objects may hide up to max_occlusion of them. Large
// objects need max_size > 96 and room: with 8 classes, max_objects 6,
// min_size 8 and max_size the side, about 1 object in 11 ends large at
// 128x128 (discs, boxes, rings, frames and x's only), 1 in 7 at 160x160
// (every class), 1 in 5 at 192x192 and 1 in 4 at 256x256; 2 in 5 end small.
// Off (the default), sizes are log-uniform and every sample is byte for byte
// what it always was (SSD's data).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "workloads/data/image.h"
#include "workloads/detection/box.h"

namespace podbench::detection {

inline constexpr int kMaxShapeClasses = 8;
// "disc", "ring", ... for labels 1..kMaxShapeClasses; "background" for 0.
const char* ShapeName(int label);

struct ShapesSpec {
  int height = 64, width = 64;
  int classes = 6;            // the first `classes` shapes above; 1..kMaxShapeClasses
  int max_objects = 5;        // per image, >= 1 (each image has at least one)
  double min_size = 8;        // object extent in pixels, log-uniform
  double max_size = 36;
  double max_occlusion = 0.4; // fraction of an object later ones may hide
  double noise_stddev = 10;   // per pixel, 0..255 units
  uint64_t seed = 1;
  bool spread_area_ranges = false;  // see above; needs min_size < 32 and max_size > 96

  // InvalidArgument naming the field.
  Status Validate() const;
};

struct ShapeObject {
  int label = 0;           // 1..classes
  Box box;                 // pixels: [x0, x1) x [y0, y1) of the visible pixels
  double area = 0;         // visible pixels
  std::vector<uint8_t> mask;  // height x width, 1 = visible pixel of this object (with_masks only)
};

struct ShapesImage {
  data::Image image;  // RGB, HWC
  std::vector<ShapeObject> objects;
};

// Sample `index`. REQUIRES: spec.Validate().ok().
ShapesImage MakeShapesImage(const ShapesSpec& spec, uint64_t index, bool with_masks = false);

}  // namespace podbench::detection
