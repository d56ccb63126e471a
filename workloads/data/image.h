// Images as the host input pipeline sees them: 8-bit, interleaved (HWC).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace podbench::data {

struct Image {
  int height = 0;
  int width = 0;
  int channels = 3;
  std::vector<uint8_t> pixels;  // height * width * channels, row-major HWC

  uint8_t* row(int y) { return pixels.data() + static_cast<size_t>(y) * width * channels; }
  const uint8_t* row(int y) const { return pixels.data() + static_cast<size_t>(y) * width * channels; }
};

struct LabeledImage {
  Image image;
  int32_t label = 0;
};

}  // namespace podbench::data
