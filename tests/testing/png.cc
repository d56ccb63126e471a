#include "tests/testing/png.h"

#include <zlib.h>

#include <cstdlib>
#include <map>

namespace podbench::testing {
namespace {

uint32_t Be32(const std::string& b, size_t at) {
  return (uint32_t{static_cast<uint8_t>(b[at])} << 24) | (uint32_t{static_cast<uint8_t>(b[at + 1])} << 16) |
         (uint32_t{static_cast<uint8_t>(b[at + 2])} << 8) | uint32_t{static_cast<uint8_t>(b[at + 3])};
}

uint8_t Paeth(int a, int b, int c) {
  const int p = a + b - c, pa = std::abs(p - a), pb = std::abs(p - b), pc = std::abs(p - c);
  if (pa <= pb && pa <= pc) return static_cast<uint8_t>(a);
  return static_cast<uint8_t>(pb <= pc ? b : c);
}

}  // namespace

std::optional<Image> DecodePng(const std::string& bytes, std::string* error) {
  static const char kSignature[] = "\x89PNG\r\n\x1a\n";
  if (bytes.size() < 8 || bytes.compare(0, 8, kSignature, 8) != 0) {
    *error = "not a PNG (bad signature)";
    return std::nullopt;
  }
  Image img;
  int bit_depth = 0, color_type = -1, interlace = 0;
  std::string idat;
  for (size_t at = 8; at + 12 <= bytes.size();) {
    const uint32_t len = Be32(bytes, at);
    const std::string type = bytes.substr(at + 4, 4);
    if (at + 12 + len > bytes.size()) {
      *error = "truncated " + type + " chunk";
      return std::nullopt;
    }
    if (type == "IHDR") {
      img.width = static_cast<int>(Be32(bytes, at + 8));
      img.height = static_cast<int>(Be32(bytes, at + 12));
      bit_depth = static_cast<uint8_t>(bytes[at + 16]);
      color_type = static_cast<uint8_t>(bytes[at + 17]);
      interlace = static_cast<uint8_t>(bytes[at + 20]);
    } else if (type == "IDAT") {
      idat.append(bytes, at + 8, len);
    } else if (type == "IEND") {
      break;
    }
    at += 12 + len;
  }
  switch (color_type) {
    case 0: img.channels = 1; break;
    case 4: img.channels = 2; break;
    case 2: img.channels = 3; break;
    case 6: img.channels = 4; break;
    default:
      *error = "unsupported PNG colour type " + std::to_string(color_type);
      return std::nullopt;
  }
  if (bit_depth != 8 || interlace != 0 || img.width <= 0 || img.height <= 0) {
    *error = "unsupported PNG: bit depth " + std::to_string(bit_depth) + ", interlace " +
             std::to_string(interlace) + ", " + std::to_string(img.width) + "x" + std::to_string(img.height);
    return std::nullopt;
  }
  const size_t stride = static_cast<size_t>(img.width) * static_cast<size_t>(img.channels);
  std::vector<uint8_t> raw((stride + 1) * static_cast<size_t>(img.height));
  uLongf raw_len = static_cast<uLongf>(raw.size());
  const int rc = uncompress(raw.data(), &raw_len, reinterpret_cast<const Bytef*>(idat.data()),
                            static_cast<uLong>(idat.size()));
  if (rc != Z_OK || raw_len != raw.size()) {
    *error = "corrupt image data (zlib " + std::to_string(rc) + ")";
    return std::nullopt;
  }
  img.pixels.resize(stride * static_cast<size_t>(img.height));
  const size_t bpp = static_cast<size_t>(img.channels);
  for (size_t y = 0; y < static_cast<size_t>(img.height); ++y) {
    const uint8_t filter = raw[y * (stride + 1)];
    const uint8_t* in = &raw[y * (stride + 1) + 1];
    uint8_t* out = &img.pixels[y * stride];
    const uint8_t* up = y > 0 ? &img.pixels[(y - 1) * stride] : nullptr;
    for (size_t x = 0; x < stride; ++x) {
      const int a = x >= bpp ? out[x - bpp] : 0;
      const int b = up ? up[x] : 0;
      const int c = up && x >= bpp ? up[x - bpp] : 0;
      int v = in[x];
      switch (filter) {
        case 0: break;
        case 1: v += a; break;
        case 2: v += b; break;
        case 3: v += (a + b) / 2; break;
        case 4: v += Paeth(a, b, c); break;
        default:
          *error = "bad filter type " + std::to_string(filter) + " in row " + std::to_string(y);
          return std::nullopt;
      }
      out[x] = static_cast<uint8_t>(v & 0xff);
    }
  }
  return img;
}

PixelStats Stats(const Image& img) {
  PixelStats s;
  const size_t n = static_cast<size_t>(img.width) * static_cast<size_t>(img.height);
  if (n == 0) return s;
  double sum = 0, sum2 = 0;
  std::map<uint32_t, size_t> colours;
  for (size_t i = 0; i < n; ++i) {
    const uint8_t* p = &img.pixels[i * static_cast<size_t>(img.channels)];
    const bool rgb = img.channels >= 3;
    const double r = p[0], g = rgb ? p[1] : p[0], b = rgb ? p[2] : p[0];
    const double luma = 0.299 * r + 0.587 * g + 0.114 * b;
    sum += luma;
    sum2 += luma * luma;
    ++colours[(uint32_t{p[0]} << 16) | (uint32_t{static_cast<uint8_t>(g)} << 8) | uint32_t{static_cast<uint8_t>(b)}];
  }
  const double mean = sum / static_cast<double>(n);
  s.luma_variance = sum2 / static_cast<double>(n) - mean * mean;
  size_t most = 0;
  for (const auto& [c, count] : colours) most = std::max(most, count);
  s.non_background_fraction = 1 - static_cast<double>(most) / static_cast<double>(n);
  return s;
}

}  // namespace podbench::testing
