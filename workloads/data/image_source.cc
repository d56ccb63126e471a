#include "workloads/data/image_source.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <random>
#include <system_error>

#include "workloads/data/jpeg.h"

namespace podbench::data {

namespace fs = std::filesystem;

namespace {

class SyntheticSource : public ImageSource {
 public:
  SyntheticSource(const SyntheticImageSpec& spec, size_t count) : spec_(spec), count_(count) {}
  size_t size() const override { return count_; }
  int num_classes() const override { return spec_.num_classes; }
  Result<LabeledImage> Get(size_t index) const override { return MakeSyntheticImage(spec_, index); }

 private:
  SyntheticImageSpec spec_;
  size_t count_;
};

bool IsJpegName(const fs::path& p) {
  std::string ext = p.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  return ext == ".jpeg" || ext == ".jpg";
}

Result<std::vector<uint8_t>> ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::IOError(path.string() + ": cannot open (" + std::strerror(errno) + ")");
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) return Status::IOError(path.string() + ": read failed");
  return bytes;
}

}  // namespace

std::shared_ptr<const ImageSource> MakeSyntheticSource(const SyntheticImageSpec& spec, size_t count) {
  return std::make_shared<SyntheticSource>(spec, count);
}

Result<std::shared_ptr<const ImageFolderSource>> ImageFolderSource::Open(const fs::path& root) {
  std::error_code ec;
  if (!fs::is_directory(root, ec)) {
    return Status::NotFound(root.string() + ": not a folder of class sub-folders");
  }
  auto src = std::shared_ptr<ImageFolderSource>(new ImageFolderSource());
  for (const auto& e : fs::directory_iterator(root, ec)) {
    if (e.is_directory()) src->classes_.push_back(e.path().filename().string());
  }
  if (ec) return Status::IOError(root.string() + ": " + ec.message());
  std::sort(src->classes_.begin(), src->classes_.end());
  if (src->classes_.empty()) return Status::NotFound(root.string() + ": no class sub-folders");
  for (size_t c = 0; c < src->classes_.size(); ++c) {
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(root / src->classes_[c], ec)) {
      if (e.is_regular_file() && IsJpegName(e.path())) files.push_back(e.path());
    }
    if (ec) return Status::IOError((root / src->classes_[c]).string() + ": " + ec.message());
    std::sort(files.begin(), files.end());
    for (auto& f : files) {
      src->files_.push_back(std::move(f));
      src->labels_.push_back(static_cast<int32_t>(c));
    }
  }
  if (src->files_.empty()) return Status::NotFound(root.string() + ": no JPEG files");
  return std::shared_ptr<const ImageFolderSource>(std::move(src));
}

Result<LabeledImage> ImageFolderSource::Get(size_t index) const {
  PODBENCH_ASSIGN_OR_RETURN(auto bytes, ReadFile(files_[index]));
  PODBENCH_ASSIGN_OR_RETURN(Image img, DecodeJpeg(bytes, files_[index].string()));
  return LabeledImage{std::move(img), labels_[index]};
}

Status WriteSyntheticImageFolder(const fs::path& root, const SyntheticImageSpec& spec, size_t count,
                                 int jpeg_quality, uint64_t first) {
  if (spec.num_classes < 1 || spec.num_classes > MaxSyntheticClasses(spec)) {
    return Status::InvalidArgument("synthetic dataset: num_classes must be 1.." +
                                   std::to_string(MaxSyntheticClasses(spec)));
  }
  std::error_code ec;
  for (int c = 0; c < spec.num_classes; ++c) {
    char name[16];
    std::snprintf(name, sizeof name, "c%03d", c);
    fs::create_directories(root / name, ec);
    if (ec) return Status::IOError((root / name).string() + ": " + ec.message());
  }
  for (uint64_t i = first; i < first + count; ++i) {
    LabeledImage li = MakeSyntheticImage(spec, i);
    PODBENCH_ASSIGN_OR_RETURN(auto bytes, EncodeJpeg(li.image, jpeg_quality));
    char name[48];
    std::snprintf(name, sizeof name, "c%03d/img_%08llu.JPEG", li.label, static_cast<unsigned long long>(i));
    fs::path path = root / name;
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    out.close();
    if (!out) return Status::IOError(path.string() + ": write failed (disk full?)");
  }
  return Status::Ok();
}

Result<fs::path> CachedSyntheticImageNet(const fs::path& cache_dir, const SyntheticImageSpec& spec, size_t train,
                                         size_t val, int jpeg_quality) {
  // Bump the version when the generator or the layout changes.
  char key[192];
  std::snprintf(key, sizeof key, "gratings-v1-c%d-%dx%d-b%d-p%d-n%g-s%llu-t%zu-v%zu-q%d", spec.num_classes,
                spec.height, spec.width, spec.bands, spec.palettes, spec.noise_stddev,
                static_cast<unsigned long long>(spec.seed), train, val, jpeg_quality);
  const fs::path final_dir = cache_dir / key;
  std::error_code ec;
  if (fs::is_directory(final_dir, ec)) return final_dir;
  fs::create_directories(cache_dir, ec);
  if (ec) return Status::IOError(cache_dir.string() + ": " + ec.message());
  std::random_device rd;
  const fs::path tmp = cache_dir / (std::string(key) + ".tmp-" + std::to_string(rd()));
  Status st = WriteSyntheticImageFolder(tmp / "train", spec, train, jpeg_quality, 0);
  if (st.ok()) st = WriteSyntheticImageFolder(tmp / "val", spec, val, jpeg_quality, train);
  if (!st.ok()) {
    fs::remove_all(tmp, ec);
    return st;
  }
  fs::rename(tmp, final_dir, ec);
  if (ec) {
    // Another writer won the race: its copy is complete and identical.
    std::error_code ignored;
    fs::remove_all(tmp, ignored);
    if (!fs::is_directory(final_dir, ignored)) {
      return Status::IOError(final_dir.string() + ": cannot move the written copy into place (" + ec.message() + ")");
    }
  }
  return final_dir;
}

}  // namespace podbench::data
