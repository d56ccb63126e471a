#include "workloads/data/input_pipeline.h"

#include <algorithm>
#include <numeric>
#include <random>

#include "workloads/data/augment.h"

namespace podbench::data {

InputPipeline::InputPipeline(std::shared_ptr<const ImageSource> source, const PipelineOptions& options)
    : source_(std::move(source)), opt_(options) {}

Result<std::unique_ptr<InputPipeline>> InputPipeline::Create(std::shared_ptr<const ImageSource> source,
                                                             const PipelineOptions& o) {
  if (!source || source->size() == 0) return Status::InvalidArgument("input pipeline: empty image source");
  if (o.batch_size < 1) return Status::InvalidArgument("input pipeline: batch_size must be >= 1");
  if (o.out_height < 1 || o.out_width < 1) return Status::InvalidArgument("input pipeline: output size must be >= 1");
  if (o.num_shards < 1 || o.shard_index < 0 || o.shard_index >= o.num_shards) {
    return Status::InvalidArgument("input pipeline: shard_index must be in [0, num_shards)");
  }
  if (!(o.min_area > 0 && o.min_area <= o.max_area && o.max_area <= 1)) {
    return Status::InvalidArgument("input pipeline: need 0 < min_area <= max_area <= 1");
  }
  if (!(o.min_aspect > 0 && o.min_aspect <= o.max_aspect)) {
    return Status::InvalidArgument("input pipeline: need 0 < min_aspect <= max_aspect");
  }
  if (!(o.eval_crop_fraction > 0 && o.eval_crop_fraction <= 1)) {
    return Status::InvalidArgument("input pipeline: eval_crop_fraction must be in (0, 1]");
  }
  if (o.prefetch < 1) return Status::InvalidArgument("input pipeline: prefetch must be >= 1");
  std::unique_ptr<InputPipeline> p(new InputPipeline(std::move(source), o));
  int64_t n = static_cast<int64_t>(p->source_->size());
  p->shard_size_ = (n - o.shard_index + o.num_shards - 1) / o.num_shards;
  p->batches_per_epoch_ = p->shard_size_ / o.batch_size;
  if (p->batches_per_epoch_ == 0) {
    return Status::InvalidArgument("input pipeline: shard of " + std::to_string(p->shard_size_) +
                                   " images is smaller than one batch of " + std::to_string(o.batch_size));
  }
  int threads = o.threads > 0 ? o.threads : std::max(1u, std::thread::hardware_concurrency());
  for (int i = 0; i < threads; ++i) p->workers_.emplace_back([raw = p.get()] { raw->Worker(); });
  return p;
}

InputPipeline::~InputPipeline() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  for (auto& t : workers_) t.join();
}

std::shared_ptr<const std::vector<uint32_t>> InputPipeline::OrderLocked(int64_t epoch) {
  auto it = orders_.find(epoch);
  if (it != orders_.end()) return it->second;
  auto order = std::make_shared<std::vector<uint32_t>>(source_->size());
  std::iota(order->begin(), order->end(), 0u);
  if (opt_.shuffle) {
    std::mt19937_64 rng(opt_.seed * 0x2545F4914F6CDD1Dull + static_cast<uint64_t>(epoch) + 1);
    std::shuffle(order->begin(), order->end(), rng);
  }
  // Keep this shard's images only.
  std::vector<uint32_t> shard;
  shard.reserve(static_cast<size_t>(shard_size_));
  for (size_t i = static_cast<size_t>(opt_.shard_index); i < order->size();
       i += static_cast<size_t>(opt_.num_shards)) {
    shard.push_back((*order)[i]);
  }
  *order = std::move(shard);
  orders_.emplace(epoch, order);
  return order;
}

void InputPipeline::Worker() {
  while (true) {
    int64_t b = 0;
    std::shared_ptr<const std::vector<uint32_t>> order;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [&] { return stop_ || next_to_build_ < next_to_return_ + opt_.prefetch; });
      if (stop_) return;
      b = next_to_build_++;
      order = OrderLocked(b / batches_per_epoch_);
    }
    Result<Batch> batch = Build(b, *order);
    {
      std::lock_guard<std::mutex> lock(mu_);
      ready_.emplace(b, std::move(batch));
    }
    cv_.notify_all();
  }
}

Result<Batch> InputPipeline::Build(int64_t global_batch, const std::vector<uint32_t>& order) const {
  Batch batch;
  batch.epoch = global_batch / batches_per_epoch_;
  batch.index = global_batch % batches_per_epoch_;
  batch.size = opt_.batch_size;
  batch.height = opt_.out_height;
  batch.width = opt_.out_width;
  size_t per_image = static_cast<size_t>(opt_.out_height) * opt_.out_width * 3;
  batch.images.resize(per_image * static_cast<size_t>(opt_.batch_size));
  batch.labels.resize(static_cast<size_t>(opt_.batch_size));
  for (int i = 0; i < opt_.batch_size; ++i) {
    if (opt_.row_needed && !opt_.row_needed(i)) continue;  // zeros, as resized above
    size_t pos = static_cast<size_t>(batch.index * opt_.batch_size + i);
    uint32_t id = order[pos];
    PODBENCH_ASSIGN_OR_RETURN(LabeledImage li, source_->Get(id));
    if (li.image.channels != 3 || li.image.height < 1 || li.image.width < 1) {
      return Status::Corruption("input pipeline: image " + std::to_string(id) + " is not RGB");
    }
    // Augmentation randomness depends only on (seed, epoch, image).
    std::mt19937_64 rng(opt_.seed ^ (static_cast<uint64_t>(batch.epoch) << 40) ^ (uint64_t{id} * 0x9E3779B97F4A7C15ull));
    CropWindow win;
    bool flip = false;
    if (opt_.train) {
      win = SampleRandomResizedCrop(li.image.height, li.image.width, opt_.min_area, opt_.max_area,
                                    opt_.min_aspect, opt_.max_aspect, rng);
      flip = (rng() & 1) != 0 && opt_.flip;
    } else {
      win = CenterCropWindow(li.image.height, li.image.width, opt_.eval_crop_fraction);
    }
    ResizeNormalize(li.image, win, opt_.out_height, opt_.out_width, flip, opt_.mean, opt_.stddev,
                    batch.images.data() + per_image * static_cast<size_t>(i));
    batch.labels[static_cast<size_t>(i)] = li.label;
  }
  return batch;
}

Result<Batch> InputPipeline::Next() {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [&] { return ready_.count(next_to_return_) > 0; });
  auto node = ready_.extract(next_to_return_);
  int64_t epoch = next_to_return_ / batches_per_epoch_;
  ++next_to_return_;
  // Orders of finished epochs are no longer needed.
  while (!orders_.empty() && orders_.begin()->first < epoch) orders_.erase(orders_.begin());
  lock.unlock();
  cv_.notify_all();
  return std::move(node.mapped());
}

}  // namespace podbench::data
