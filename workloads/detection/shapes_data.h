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
// pixels, its visible pixel count as the area, not crowd.
// Samples are a pure function of (seed, index), with a portable generator
// (SplitMix64, no standard-library distributions): any host can make any
// shard and every host makes the same bytes.
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
