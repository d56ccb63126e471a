// Where the input pipeline gets labelled images from.
#pragma once

#include <cstddef>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "workloads/data/image.h"
#include "workloads/data/synthetic_images.h"

namespace podbench::data {

// A random-access set of labelled images. Get() must be safe to call from
// several threads at once.
class ImageSource {
 public:
  virtual ~ImageSource() = default;
  virtual size_t size() const = 0;
  virtual int num_classes() const = 0;
  // REQUIRES: index < size().
  virtual Result<LabeledImage> Get(size_t index) const = 0;
};

// Generated images (see synthetic_images.h), `count` of them.
std::shared_ptr<const ImageSource> MakeSyntheticSource(const SyntheticImageSpec& spec, size_t count);

// An ImageNet-format folder: ROOT/<class>/<image>.JPEG (also .jpg/.jpeg, any
// case). Classes are the sub-folder names in sorted order (label 0..C-1);
// files are listed in sorted order. Images are decoded on every Get().
class ImageFolderSource : public ImageSource {
 public:
  static Result<std::shared_ptr<const ImageFolderSource>> Open(const std::filesystem::path& root);

  size_t size() const override { return files_.size(); }
  int num_classes() const override { return static_cast<int>(classes_.size()); }
  Result<LabeledImage> Get(size_t index) const override;
  const std::vector<std::string>& classes() const { return classes_; }
  const std::filesystem::path& file(size_t index) const { return files_[index]; }

 private:
  std::vector<std::string> classes_;
  std::vector<std::filesystem::path> files_;
  std::vector<int32_t> labels_;
};

// Writes synthetic images [first, first + count) as an ImageNet-format
// folder under `root` (class folders "c000", "c001", ...; files
// "img_<index>.JPEG" with the image's index in the dataset).
Status WriteSyntheticImageFolder(const std::filesystem::path& root, const SyntheticImageSpec& spec,
                                 size_t count, int jpeg_quality = 90, uint64_t first = 0);

// An ImageNet-format copy of a generated dataset, written once and reused:
// `cache_dir`/<a name that encodes spec, counts and quality>/ holds train/
// (images [0, train)) and val/ (images [train, train + val)). Returns that
// folder. The copy is written to a temporary sibling and renamed into place,
// so a folder that exists is complete, and concurrent callers each end with
// one complete copy. IOError naming the path when it cannot be written.
Result<std::filesystem::path> CachedSyntheticImageNet(const std::filesystem::path& cache_dir,
                                                      const SyntheticImageSpec& spec, size_t train, size_t val,
                                                      int jpeg_quality = 90);

}  // namespace podbench::data
