#include "workloads/translation/bucketing.h"

#include <algorithm>
#include <numeric>
#include <string>

#include "base/hash.h"

namespace podbench::translation {

int BucketSpec::BucketOf(int64_t source_length, int64_t target_length) const {
  const int64_t w = width();
  return static_cast<int>(std::min<int64_t>(buckets, std::max(source_length / w, target_length / w)));
}

namespace {
// The generators' streams: MixSeed(seed, stream), per core chained with the core.
constexpr uint64_t kScheduleStream = 0, kCoreStream = 1;

Status CheckSpec(const BucketSpec& spec) {
  if (spec.max_length < 1 || spec.buckets < 1) {
    return Status::InvalidArgument("bucketing: max_length and buckets must be >= 1");
  }
  return Status::Ok();
}
}  // namespace

Result<std::vector<int>> BucketsOf(const std::vector<TokenPair>& examples, const BucketSpec& spec) {
  PODBENCH_RETURN_IF_ERROR(CheckSpec(spec));
  std::vector<int> out;
  out.reserve(examples.size());
  for (size_t i = 0; i < examples.size(); ++i) {
    const auto s = static_cast<int64_t>(examples[i].source.size()), t = static_cast<int64_t>(examples[i].target.size());
    if (s > spec.max_length || t > spec.max_length) {
      return Status::InvalidArgument("bucketing: example " + std::to_string(i) + " (" + std::to_string(s) + ", " +
                                     std::to_string(t) + " tokens) is longer than max_length " +
                                     std::to_string(spec.max_length));
    }
    out.push_back(spec.BucketOf(s, t));
  }
  return out;
}

Result<BucketedBatches> BucketedBatches::Create(const BucketSpec& spec, int64_t per_core,
                                                std::vector<std::vector<int64_t>> counts, int first_core,
                                                std::vector<std::vector<int>> buckets_of, uint64_t seed) {
  PODBENCH_RETURN_IF_ERROR(CheckSpec(spec));
  if (per_core < 1) return Status::InvalidArgument("bucketing: per_core must be >= 1");
  const auto ids = static_cast<size_t>(spec.buckets) + 1;
  const int cores = static_cast<int>(counts.size());
  if (cores < 1 || first_core < 0 || first_core + static_cast<int>(buckets_of.size()) > cores) {
    return Status::InvalidArgument("bucketing: cores [" + std::to_string(first_core) + ", " +
                                   std::to_string(first_core + static_cast<int>(buckets_of.size())) +
                                   ") are not inside the " + std::to_string(cores) + " cores counted");
  }
  int64_t total = 0;
  for (int c = 0; c < cores; ++c) {
    const std::vector<int64_t>& n = counts[static_cast<size_t>(c)];
    if (n.size() != ids) {
      return Status::InvalidArgument("bucketing: core " + std::to_string(c) + " has " + std::to_string(n.size()) +
                                     " bucket counts, not " + std::to_string(ids));
    }
    for (int64_t v : n) total += v;
  }
  for (size_t k = 0; k < buckets_of.size(); ++k) {
    std::vector<int64_t> n(ids, 0);
    for (int b : buckets_of[k]) {
      if (b < 0 || static_cast<size_t>(b) >= ids) return Status::InvalidArgument("bucketing: bucket id " + std::to_string(b) + " out of range");
      ++n[static_cast<size_t>(b)];
    }
    if (n != counts[static_cast<size_t>(first_core) + k]) {
      return Status::InvalidArgument("bucketing: core " + std::to_string(first_core + static_cast<int>(k)) +
                                     "'s examples do not match its bucket counts");
    }
  }
  // Every pass gives at least one batch only if some bucket fills a share on every core.
  int64_t best = 0;
  for (size_t b = 0; b < ids; ++b) {
    int64_t fewest = counts[0][b];
    for (int c = 1; c < cores; ++c) fewest = std::min(fewest, counts[static_cast<size_t>(c)][b]);
    best = std::max(best, fewest);
  }
  if (best < per_core) {
    return Status::InvalidArgument("bucketing: no length bucket has " + std::to_string(per_core) +
                                   " examples (a core's share of a batch) on every core; the best has " +
                                   std::to_string(best));
  }
  BucketedBatches r;
  r.per_core_ = per_core;
  r.batches_per_pass_ = total / (per_core * cores);
  r.counts_ = std::move(counts);
  r.waiting_count_.assign(static_cast<size_t>(cores), std::vector<int64_t>(ids, 0));
  r.buckets_of_ = std::move(buckets_of);
  r.queue_.assign(r.buckets_of_.size(), std::vector<std::vector<int64_t>>(ids));
  r.head_.assign(r.buckets_of_.size(), std::vector<size_t>(ids, 0));
  for (size_t k = 0; k < r.buckets_of_.size(); ++k) {
    r.core_rng_.emplace_back(MixSeed(MixSeed(seed, kCoreStream), static_cast<uint64_t>(first_core) + k));
  }
  r.schedule_rng_.seed(MixSeed(seed, kScheduleStream));
  return r;
}

void BucketedBatches::StartPass() {
  for (size_t k = 0; k < buckets_of_.size(); ++k) {
    std::vector<int64_t> order(buckets_of_[k].size());
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), core_rng_[k]);
    for (size_t b = 0; b < queue_[k].size(); ++b) {
      // Drop what earlier passes gave before appending.
      std::vector<int64_t>& q = queue_[k][b];
      q.erase(q.begin(), q.begin() + static_cast<std::ptrdiff_t>(head_[k][b]));
      head_[k][b] = 0;
    }
    for (int64_t e : order) queue_[k][static_cast<size_t>(buckets_of_[k][static_cast<size_t>(e)])].push_back(e);
  }
  const size_t ids = counts_[0].size();
  for (size_t c = 0; c < counts_.size(); ++c) {
    for (size_t b = 0; b < ids; ++b) waiting_count_[c][b] += counts_[c][b];
  }
  for (size_t b = 0; b < ids; ++b) {
    int64_t batches = waiting_count_[0][b] / per_core_;
    for (size_t c = 1; c < counts_.size(); ++c) batches = std::min(batches, waiting_count_[c][b] / per_core_);
    for (size_t c = 0; c < counts_.size(); ++c) waiting_count_[c][b] -= batches * per_core_;
    schedule_.insert(schedule_.end(), static_cast<size_t>(batches), static_cast<int>(b));
  }
  std::shuffle(schedule_.begin(), schedule_.end(), schedule_rng_);
}

BucketedBatches::Batch BucketedBatches::Next() {
  if (schedule_.empty()) StartPass();  // never empty after: Create checked a bucket fills every pass
  Batch out;
  out.bucket = schedule_.back();
  schedule_.pop_back();
  const auto b = static_cast<size_t>(out.bucket);
  out.examples.resize(buckets_of_.size());
  for (size_t k = 0; k < buckets_of_.size(); ++k) {
    const std::vector<int64_t>& q = queue_[k][b];
    const auto first = q.begin() + static_cast<std::ptrdiff_t>(head_[k][b]);
    out.examples[k].assign(first, first + per_core_);
    head_[k][b] += static_cast<size_t>(per_core_);
  }
  return out;
}

PackedRows PadBatch(const std::vector<TokenPair>& examples, const std::vector<int64_t>& indices) {
  PackedRows r;
  r.rows = static_cast<int64_t>(indices.size());
  for (int64_t i : indices) {
    const TokenPair& p = examples[static_cast<size_t>(i)];
    r.length = std::max({r.length, static_cast<int64_t>(p.source.size()), static_cast<int64_t>(p.target.size())});
  }
  const auto n = static_cast<size_t>(r.rows * r.length);
  for (auto* v : {&r.inputs, &r.inputs_segmentation, &r.inputs_position, &r.targets, &r.targets_segmentation,
                  &r.targets_position}) {
    v->assign(n, 0);
  }
  for (size_t k = 0; k < indices.size(); ++k) {
    const TokenPair& p = examples[static_cast<size_t>(indices[k])];
    const size_t row = k * static_cast<size_t>(r.length);
    for (size_t t = 0; t < p.source.size(); ++t) {
      r.inputs[row + t] = p.source[t];
      r.inputs_segmentation[row + t] = 1;
      r.inputs_position[row + t] = static_cast<int32_t>(t);
    }
    for (size_t t = 0; t < p.target.size(); ++t) {
      r.targets[row + t] = p.target[t];
      r.targets_segmentation[row + t] = 1;
      r.targets_position[row + t] = static_cast<int32_t>(t);
    }
  }
  r.examples = r.rows;
  return r;
}

}  // namespace podbench::translation
