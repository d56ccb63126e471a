// Length bucketing of translation examples, as Google's v0.6 GNMT input
// pipeline does it (../shared/reference/gnmt-v0.6.md section 3,
// G/utils/iterator_utils.py):
//   - bucket width = (max_length + buckets - 1) / buckets, and an example's
//     bucket id = min(buckets, max(source_length / width, target_length /
//     width)) (Google: 48 and 5 buckets, width 10; lengths <= 48 give ids
//     0 to 4);
//   - the examples, shuffled, are grouped by bucket id and every global
//     batch is taken from one bucket only (group_by_window with window =
//     the global batch, then batch with drop_remainder): a bucket emits a
//     batch when it has collected that many examples;
//   - the stream repeats: a new pass reshuffles, and examples still waiting
//     in a bucket at the end of a pass stay there for the next;
//   - a batch is padded to its own longest source and target only, so the
//     LSTM loops run to the batch's longest sequence.
// Lengths are token counts as the model sees them (end-of-sentence
// included).
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "base/status.h"
#include "workloads/translation/packing.h"

namespace podbench::translation {

struct BucketSpec {
  int64_t max_length = 48;  // the training length filter; REQUIRES: >= 1
  int buckets = 5;          // REQUIRES: >= 1
  int64_t width() const { return (max_length + buckets - 1) / buckets; }
  // The bucket of an example with these lengths.
  int BucketOf(int64_t source_length, int64_t target_length) const;
};

class BucketedBatches {
 public:
  // InvalidArgument for a bad spec, batch < 1, no examples, or an example
  // longer than spec.max_length.
  static Result<BucketedBatches> Create(const std::vector<TokenPair>& examples, const BucketSpec& spec,
                                        int64_t batch, uint64_t seed);

  // The indices (into the examples) of the next global batch: `batch`
  // examples of one bucket.
  std::vector<int64_t> Next();
  int bucket_of(int64_t example) const { return bucket_[static_cast<size_t>(example)]; }
  // Batches in one pass over the examples, int(examples / batch) as Google
  // counts steps per epoch (G/estimator.py).
  int64_t batches_per_pass() const { return static_cast<int64_t>(bucket_.size()) / batch_; }

 private:
  BucketedBatches() = default;
  std::vector<int> bucket_;
  int64_t batch_ = 0;
  std::vector<int64_t> order_;
  size_t cursor_ = 0;
  std::vector<std::vector<int64_t>> waiting_;  // per bucket id
  std::mt19937_64 rng_;
};

// Rows of one example each (segment 1 on its tokens, positions from 0,
// padding id 0 elsewhere), padded to the longest source or target of
// `indices` (PackedRows::length), in the layout translation::PackExamples
// gives its rows, so a model reads both forms the same way.
// REQUIRES: indices valid and non-empty.
PackedRows PadBatch(const std::vector<TokenPair>& examples, const std::vector<int64_t>& indices);

}  // namespace podbench::translation
