#include "workloads/resnet/resnet_input.h"

#include <algorithm>
#include <string>

#include "base/flags.h"
#include "workloads/data/augment.h"
#include "workloads/data/image_source.h"

namespace podbench::resnet {

Result<std::unique_ptr<FunctionalData>> FunctionalData::Create(const FunctionalDataConfig& config) {
  std::unique_ptr<FunctionalData> d(new FunctionalData());
  d->cfg_ = config;
  d->steps_per_epoch_ = std::max<int64_t>(1, config.train_examples / config.global_batch);
  d->rng_.seed(config.seed);
  if (config.jpeg) {
    PODBENCH_RETURN_IF_ERROR(d->OpenJpeg(config.images).WithContext("input=jpeg"));
  } else {
    // Training images are generated when a batch first needs them (Batch),
    // held-out ones now; each only where this process needs it.
    const size_t img = d->ImageFloats();
    const auto train_n = static_cast<size_t>(config.train_examples), eval_n = static_cast<size_t>(config.eval_examples);
    d->train_x_.assign(img * train_n, 0.f);
    d->train_y_.assign(train_n, 0);
    d->train_made_.assign(train_n, 0);
    d->eval_x_.assign(img * eval_n, 0.f);
    d->eval_y_.assign(eval_n, 0);
    d->eval_made_.assign(eval_n, 0);
    for (size_t i = 0; i < eval_n; ++i) {
      if (config.eval_image_needed && !config.eval_image_needed(static_cast<int64_t>(i))) continue;
      d->eval_y_[i] = Generate(config.images, train_n + i, d->eval_x_.data() + img * i);
      d->eval_made_[i] = 1;
    }
  }
  d->order_.resize(static_cast<size_t>(config.train_examples));
  for (size_t i = 0; i < d->order_.size(); ++i) d->order_[i] = static_cast<int64_t>(i);
  return d;
}

size_t FunctionalData::ImageFloats() const {
  return static_cast<size_t>(cfg_.images.height) * static_cast<size_t>(cfg_.images.width) * 3;
}

int32_t FunctionalData::Generate(const data::SyntheticImageSpec& spec, uint64_t index, float* dst) {
  const size_t img = static_cast<size_t>(spec.height) * static_cast<size_t>(spec.width) * 3;
  data::LabeledImage li = data::MakeSyntheticImage(spec, index);
  for (size_t k = 0; k < img; ++k) dst[k] = (static_cast<float>(li.image.pixels[k]) / 255.f - 0.5f) * 4.f;
  return li.label;
}

std::vector<int64_t> FunctionalData::GeneratedTrainImages() const { return IndicesOf(train_made_); }
std::vector<int64_t> FunctionalData::GeneratedEvalImages() const { return IndicesOf(eval_made_); }

// The generated set as an ImageNet-format JPEG tree (written once into the
// cache folder) at 9/8 of the network's side. Training reads it through the
// host input pipeline: parallel decode, a random crop of 64-100% of the area
// at aspect 0.9-1.1 (scale within +-12%, inside the dataset's frequency
// jitter, so crops keep their class) resized to the network's side, a
// random flip, prefetched global batches that the emulated cores split.
// Evaluation takes the central 8/9 (the network's side, unscaled) of the
// held-out images, decoded once.
Status FunctionalData::OpenJpeg(data::SyntheticImageSpec spec) {
  const int side = spec.height;
  const int64_t train_n = cfg_.train_examples, eval_n = cfg_.eval_examples;
  spec.height = spec.width = side * 9 / 8;
  std::filesystem::path cache = cfg_.cache_dir;
  if (cache.empty()) cache = std::filesystem::temp_directory_path() / "podbench-data";
  PODBENCH_ASSIGN_OR_RETURN(std::filesystem::path root,
                            data::CachedSyntheticImageNet(cache, spec, static_cast<size_t>(train_n),
                                                          static_cast<size_t>(eval_n)));
  data::PipelineOptions o;
  o.batch_size = static_cast<int>(cfg_.global_batch);
  o.out_height = o.out_width = side;
  o.min_area = 0.64;
  o.max_area = 1.0;
  o.min_aspect = 0.9;
  o.max_aspect = 1.0 / 0.9;
  o.eval_crop_fraction = static_cast<double>(side) / spec.height;
  for (int c = 0; c < 3; ++c) {  // the in-memory scaling: (pixel / 255 - 0.5) * 4
    o.mean[c] = 0.5f;
    o.stddev[c] = 0.25f;
  }
  o.flip = cfg_.flip;
  o.threads = cfg_.input_threads;
  o.prefetch = 4;
  o.seed = cfg_.seed;
  o.row_needed = cfg_.train_row_needed;
  PODBENCH_ASSIGN_OR_RETURN(auto train_src, data::ImageFolderSource::Open(root / "train"));
  PODBENCH_ASSIGN_OR_RETURN(auto val_src, data::ImageFolderSource::Open(root / "val"));
  if (static_cast<int64_t>(train_src->size()) != train_n || static_cast<int64_t>(val_src->size()) != eval_n) {
    return Status::Corruption(root.string() + ": expected " + std::to_string(train_n) + " training and " +
                              std::to_string(eval_n) + " held-out JPEGs; delete the folder to rewrite it");
  }
  const size_t img = static_cast<size_t>(side) * static_cast<size_t>(side) * 3;
  eval_x_.assign(img * static_cast<size_t>(eval_n), 0.f);
  eval_y_.assign(static_cast<size_t>(eval_n), 0);
  for (size_t i = 0; i < val_src->size(); ++i) {
    if (cfg_.eval_image_needed && !cfg_.eval_image_needed(static_cast<int64_t>(i))) continue;
    PODBENCH_ASSIGN_OR_RETURN(data::LabeledImage li, val_src->Get(i));
    const data::CropWindow win = data::CenterCropWindow(li.image.height, li.image.width, o.eval_crop_fraction);
    data::ResizeNormalize(li.image, win, side, side, false, o.mean, o.stddev, eval_x_.data() + img * i);
    eval_y_[i] = li.label;
  }
  PODBENCH_ASSIGN_OR_RETURN(pipeline_, data::InputPipeline::Create(train_src, o));
  if (pipeline_->batches_per_epoch() != steps_per_epoch_) {
    return Status::Internal("input pipeline has " + std::to_string(pipeline_->batches_per_epoch()) +
                            " batches per epoch, training expects " + std::to_string(steps_per_epoch_));
  }
  return Status::Ok();
}

void FunctionalData::StartEpoch() {
  if (!pipeline_) std::shuffle(order_.begin(), order_.end(), rng_);
}

Status FunctionalData::Batch(int64_t s, std::vector<float>* x, std::vector<int32_t>* y) {
  if (pipeline_) {
    PODBENCH_ASSIGN_OR_RETURN(data::Batch b, pipeline_->Next());
    *x = std::move(b.images);
    *y = std::move(b.labels);
    return Status::Ok();
  }
  const int64_t batch = cfg_.global_batch;
  const size_t img = ImageFloats();
  x->resize(img * static_cast<size_t>(batch));
  y->resize(static_cast<size_t>(batch));
  const int side = cfg_.images.height;
  for (int64_t k = 0; k < batch; ++k) {
    const auto i = static_cast<size_t>(order_[static_cast<size_t>(s * batch + k)]);
    float* dst = x->data() + img * static_cast<size_t>(k);
    // Every row draws its flip, needed or not, so all ranks' draws agree.
    const bool flip = cfg_.flip && (rng_() & 1);
    if (cfg_.train_row_needed && !cfg_.train_row_needed(k)) {
      std::fill_n(dst, img, 0.f);
      (*y)[static_cast<size_t>(k)] = 0;
      continue;
    }
    if (!train_made_[i]) {
      train_y_[i] = Generate(cfg_.images, i, train_x_.data() + img * i);
      train_made_[i] = 1;
    }
    const float* src = train_x_.data() + img * i;
    (*y)[static_cast<size_t>(k)] = train_y_[i];
    if (flip) {  // mild augmentation: horizontal flip
      for (int row = 0; row < side; ++row) {
        for (int col = 0; col < side; ++col) {
          std::copy_n(src + (row * side + col) * 3, 3, dst + (row * side + side - 1 - col) * 3);
        }
      }
    } else {
      std::copy_n(src, img, dst);
    }
  }
  return Status::Ok();
}

}  // namespace podbench::resnet
