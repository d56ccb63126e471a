#include "workloads/data/jpeg.h"

#include <turbojpeg.h>

#include <memory>

namespace podbench::data {

namespace {
struct TjDeleter {
  void operator()(void* h) const { tjDestroy(h); }
};
using TjHandle = std::unique_ptr<void, TjDeleter>;
}  // namespace

Result<Image> DecodeJpeg(const std::vector<uint8_t>& bytes, const std::string& name) {
  // One decompressor per thread: TurboJPEG handles are not thread-safe.
  thread_local TjHandle handle(tjInitDecompress());
  if (!handle) return Status::Internal("tjInitDecompress failed");
  int w = 0, h = 0, subsamp = 0, colorspace = 0;
  if (tjDecompressHeader3(handle.get(), bytes.data(), static_cast<unsigned long>(bytes.size()), &w,
                          &h, &subsamp, &colorspace) != 0) {
    return Status::Corruption(name + ": not a JPEG (" + tjGetErrorStr2(handle.get()) + ")");
  }
  if (w <= 0 || h <= 0 || static_cast<int64_t>(w) * h > (int64_t{1} << 28)) {
    return Status::Corruption(name + ": JPEG size " + std::to_string(w) + "x" + std::to_string(h) +
                              " out of range");
  }
  Image img;
  img.width = w;
  img.height = h;
  img.channels = 3;
  img.pixels.resize(static_cast<size_t>(w) * h * 3);
  if (tjDecompress2(handle.get(), bytes.data(), static_cast<unsigned long>(bytes.size()),
                    img.pixels.data(), w, 0, h, TJPF_RGB, TJFLAG_FASTDCT) != 0 &&
      tjGetErrorCode(handle.get()) == TJERR_FATAL) {
    return Status::Corruption(name + ": JPEG decode failed (" + tjGetErrorStr2(handle.get()) + ")");
  }
  return img;
}

Result<std::vector<uint8_t>> EncodeJpeg(const Image& image, int quality) {
  if (image.channels != 3) return Status::InvalidArgument("EncodeJpeg needs an RGB image");
  if (quality < 1 || quality > 100) return Status::InvalidArgument("JPEG quality must be 1..100");
  thread_local TjHandle handle(tjInitCompress());
  if (!handle) return Status::Internal("tjInitCompress failed");
  unsigned char* out = nullptr;
  unsigned long size = 0;
  if (tjCompress2(handle.get(), image.pixels.data(), image.width, 0, image.height, TJPF_RGB, &out,
                  &size, TJSAMP_420, quality, TJFLAG_FASTDCT) != 0) {
    std::string err = tjGetErrorStr2(handle.get());
    tjFree(out);
    return Status::Internal("JPEG encode failed: " + err);
  }
  std::vector<uint8_t> bytes(out, out + size);
  tjFree(out);
  return bytes;
}

}  // namespace podbench::data
