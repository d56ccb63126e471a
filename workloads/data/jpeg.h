// JPEG encode and decode (TurboJPEG), for ImageNet-format folders.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "workloads/data/image.h"

namespace podbench::data {

// Decodes a JPEG held in memory to 8-bit RGB. `name` is used in errors.
Result<Image> DecodeJpeg(const std::vector<uint8_t>& bytes, const std::string& name);

// Encodes an RGB image. REQUIRES: image.channels == 3. quality in 1..100.
Result<std::vector<uint8_t>> EncodeJpeg(const Image& image, int quality = 90);

}  // namespace podbench::data
