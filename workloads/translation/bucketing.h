// Length bucketing of translation examples, as Google's v0.6 GNMT input
// pipeline does it (../shared/reference/gnmt-v0.6.md section 3,
// G/utils/iterator_utils.py), with each core's examples its own, as each
// host of a TF job reads its own input:
//   - bucket width = (max_length + buckets - 1) / buckets, and an example's
//     bucket id = min(buckets, max(source_length / width, target_length /
//     width)) (Google: 48 and 5 buckets, width 10; lengths <= 48 give ids
//     0 to 4);
//   - every global batch is taken from one bucket only (group_by_window,
//     then batch with drop_remainder): `per_core` examples of that bucket
//     from every core;
//   - the stream repeats in passes. In each pass every core shuffles its own
//     examples (a generator per core) and appends them in that order to its
//     per-bucket queues; bucket b then gives k_b = min over the cores of
//     (that core's bucket-b queue / per_core) batches, in an order shuffled
//     by a generator every process seeds alike. Examples a queue does not
//     give this pass wait (first in, first out) for the next;
//   - a core's share of a batch is padded to its own longest source and
//     target only, so the LSTM loops run to the share's longest sequence.
// The batches' buckets depend only on every core's count of examples per
// bucket, so a process holding some of the cores (an `mpirun` rank) gets the
// same sequence of buckets, and the same examples for its cores, as one
// process holding them all, without the other cores' examples.
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

// The bucket ids of `examples`. InvalidArgument for a bad spec or an
// example longer than spec.max_length.
Result<std::vector<int>> BucketsOf(const std::vector<TokenPair>& examples, const BucketSpec& spec);

class BucketedBatches {
 public:
  // counts[c][b]: core c's examples in bucket b, for every core c and every
  // id b in [0, spec.buckets]; buckets_of[k]: the bucket ids (BucketsOf) of
  // core first_core + k's examples, for the cores this process holds.
  // InvalidArgument for a bad spec, per_core < 1, counts not of that shape
  // or not matching buckets_of, or no bucket with per_core examples on every
  // core (the message gives the smallest core's count).
  static Result<BucketedBatches> Create(const BucketSpec& spec, int64_t per_core,
                                        std::vector<std::vector<int64_t>> counts, int first_core,
                                        std::vector<std::vector<int>> buckets_of, uint64_t seed);

  struct Batch {
    int bucket = 0;
    // examples[k]: per_core indices into core first_core + k's examples.
    std::vector<std::vector<int64_t>> examples;
  };
  // The next global batch.
  Batch Next();
  // Batches in one pass, int(every core's examples / (cores * per_core)),
  // as Google counts steps per epoch (G/estimator.py).
  int64_t batches_per_pass() const { return batches_per_pass_; }

 private:
  BucketedBatches() = default;
  void StartPass();

  int64_t per_core_ = 0;
  int64_t batches_per_pass_ = 0;
  std::vector<std::vector<int64_t>> waiting_count_;  // [core][bucket]: every core's queue lengths
  std::vector<std::vector<int64_t>> counts_;         // [core][bucket]: examples per pass
  std::vector<std::vector<int>> buckets_of_;         // [local core][example]
  std::vector<std::vector<std::vector<int64_t>>> queue_;  // [local core][bucket]: waiting examples, oldest first
  std::vector<std::vector<size_t>> head_;                 // [local core][bucket]: first not yet given
  std::vector<std::mt19937_64> core_rng_;                 // per local core
  std::mt19937_64 schedule_rng_;
  std::vector<int> schedule_;  // this pass's remaining batches' buckets, next last
};

// Rows of one example each (segment 1 on its tokens, positions from 0,
// padding id 0 elsewhere), padded to the longest source or target of
// `indices` (PackedRows::length), in the layout translation::PackExamples
// gives its rows, so a model reads both forms the same way.
// REQUIRES: indices valid and non-empty.
PackedRows PadBatch(const std::vector<TokenPair>& examples, const std::vector<int64_t>& indices);

}  // namespace podbench::translation
