// The host input pipeline: shuffles, decodes (for JPEG folders), augments and
// batches images in worker threads, prefetching ahead of the consumer, as a
// TPU host feeds its cores.
//
// Determinism: batch b of epoch e holds the same images, cropped and flipped
// the same way, for a given seed whatever the thread count. Epoch e's order is
// a permutation seeded by (seed, e); this host's shard is every num_shards-th
// image of it, starting at shard_index.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "base/status.h"
#include "workloads/data/image_source.h"

namespace podbench::data {

struct PipelineOptions {
  int batch_size = 32;           // images per batch (this host's share)
  int out_height = 224;
  int out_width = 224;
  bool train = true;             // random-resized crop + flip; else central crop
  bool flip = true;              // train: random horizontal flips
  double min_area = 0.08;        // random-resized crop (train)
  double max_area = 1.0;
  double min_aspect = 3.0 / 4.0;
  double max_aspect = 4.0 / 3.0;
  double eval_crop_fraction = 0.875;  // central crop (eval): 224 of 256
  float mean[3] = {0.485f, 0.456f, 0.406f};  // ImageNet statistics
  float stddev[3] = {0.229f, 0.224f, 0.225f};
  int threads = 0;               // decode/augment workers; 0 = hardware threads
  int prefetch = 4;              // batches prepared ahead of Next()
  bool shuffle = true;
  uint64_t seed = 0;
  int shard_index = 0;           // this host, of num_shards
  int num_shards = 1;
  // Which rows of each batch this process needs (null = all): a row it does
  // not need is never read or decoded; its pixels and label are zeros. The
  // rows it needs are bitwise those of a pipeline without the filter, since
  // the order and each image's augmentation depend only on (seed, epoch,
  // image). Called from the worker threads: it must be thread-safe.
  std::function<bool(int64_t row)> row_needed;
};

struct Batch {
  int64_t epoch = 0;
  int64_t index = 0;             // batch number within the epoch
  int size = 0, height = 0, width = 0, channels = 3;
  std::vector<float> images;     // size * height * width * 3, NHWC
  std::vector<int32_t> labels;   // size
};

class InputPipeline {
 public:
  // Validates the options and starts the workers.
  static Result<std::unique_ptr<InputPipeline>> Create(std::shared_ptr<const ImageSource> source,
                                                       const PipelineOptions& options);
  ~InputPipeline();  // stops and joins the workers
  InputPipeline(const InputPipeline&) = delete;
  InputPipeline& operator=(const InputPipeline&) = delete;

  // The next batch, in order; epochs follow each other (the last partial
  // batch of an epoch is dropped). Blocks until it is ready. A source error
  // (a corrupt JPEG) is returned here, naming the file.
  Result<Batch> Next();

  // Batches in one epoch of this shard.
  int64_t batches_per_epoch() const { return batches_per_epoch_; }

 private:
  InputPipeline(std::shared_ptr<const ImageSource> source, const PipelineOptions& options);
  void Worker();
  Result<Batch> Build(int64_t global_batch, const std::vector<uint32_t>& order) const;
  // REQUIRES: mu_ held. The shard's image order for `epoch`, made on first use.
  std::shared_ptr<const std::vector<uint32_t>> OrderLocked(int64_t epoch);

  std::shared_ptr<const ImageSource> source_;
  PipelineOptions opt_;
  int64_t shard_size_ = 0;
  int64_t batches_per_epoch_ = 0;

  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  int64_t next_to_build_ = 0;   // global batch number handed to the next worker
  int64_t next_to_return_ = 0;  // global batch number Next() returns
  std::map<int64_t, Result<Batch>> ready_;
  std::map<int64_t, std::shared_ptr<const std::vector<uint32_t>>> orders_;  // epoch -> order
  std::vector<std::thread> workers_;
};

}  // namespace podbench::data
