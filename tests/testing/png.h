// A PNG decoder for tests that look at screenshots: 8-bit greyscale, grey +
// alpha, RGB and RGBA, not interlaced (what Chromium writes), decompressed
// with zlib and unfiltered as the PNG specification (ISO/IEC 15948) says.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace podbench::testing {

struct Image {
  int width = 0, height = 0;
  int channels = 0;             // 1 grey, 2 grey+alpha, 3 RGB, 4 RGBA
  std::vector<uint8_t> pixels;  // row-major, `channels` bytes per pixel
};

// nullopt, with the reason in *error, for anything else or a corrupt file.
std::optional<Image> DecodePng(const std::string& bytes, std::string* error);

struct PixelStats {
  double luma_variance = 0;          // of 0.299 R + 0.587 G + 0.114 B, over all pixels
  double non_background_fraction = 0;  // pixels that differ from the most common colour
};
PixelStats Stats(const Image& image);

}  // namespace podbench::testing
