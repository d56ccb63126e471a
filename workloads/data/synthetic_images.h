// A generated image-classification dataset with learnable structure.
//
// Each class is a combination of three features that survive the usual
// augmentations (random crops of moderate scale, horizontal flips):
//   - a grating orientation: horizontal, vertical or diagonal (either
//     diagonal at random, so a mirror image keeps its class);
//   - a spatial frequency band (cycles per image width);
//   - a colour palette (the two colours the grating alternates between).
// Each sample draws a random phase, a +/-15% frequency jitter, a random
// contrast, a random brightness offset and per-pixel Gaussian noise, so no
// two images are alike and a classifier must learn the features, not
// memorise pixels. Class = orientation + 3 * (band + bands * palette).
// Samples are a pure function of (seed, index): any host can make any shard.
#pragma once

#include <cstdint>

#include "workloads/data/image.h"

namespace podbench::data {

struct SyntheticImageSpec {
  int num_classes = 12;  // REQUIRES: 1 <= num_classes <= 3 * bands * palettes
  int height = 32;
  int width = 32;
  int bands = 4;         // frequency bands
  int palettes = 4;      // colour palettes
  double noise_stddev = 18.0;  // per pixel, in 0..255 units
  uint64_t seed = 1;
};

// The maximum number of distinct classes `spec` can describe.
int MaxSyntheticClasses(const SyntheticImageSpec& spec);

// Sample `index` of the dataset: label = index % num_classes, pixels from
// a generator seeded by (spec.seed, index).
LabeledImage MakeSyntheticImage(const SyntheticImageSpec& spec, uint64_t index);

}  // namespace podbench::data
