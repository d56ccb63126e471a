// Image preprocessing of the ResNet-50 v1.5 reference: random-resized crop
// and horizontal flip for training, central crop for evaluation, bilinear
// resize, per-channel normalisation.
#pragma once

#include <random>

#include "workloads/data/image.h"

namespace podbench::data {

struct CropWindow {
  int y = 0, x = 0, height = 0, width = 0;
};

// The Inception-style crop: area fraction uniform in [min_area, max_area],
// aspect ratio log-uniform in [min_aspect, max_aspect], up to 10 attempts to
// fit, then the central crop of the whole image.
// REQUIRES: height, width > 0; 0 < min_area <= max_area <= 1; 0 < min_aspect <= max_aspect.
CropWindow SampleRandomResizedCrop(int height, int width, double min_area, double max_area,
                                   double min_aspect, double max_aspect, std::mt19937_64& rng);

// A centred square of `fraction` of the shorter side (0.875 = 224/256).
CropWindow CenterCropWindow(int height, int width, double fraction);

// Bilinear-resizes window `win` of `src` to out_height x out_width, mirrors
// it when `flip`, and writes (pixel/255 - mean[c]) / stddev[c] as HWC floats
// to `out` (out_height * out_width * 3 values).
// REQUIRES: src.channels == 3; win inside src.
void ResizeNormalize(const Image& src, const CropWindow& win, int out_height, int out_width,
                     bool flip, const float mean[3], const float stddev[3], float* out);

}  // namespace podbench::data
