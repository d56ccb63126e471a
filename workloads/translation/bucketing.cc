#include "workloads/translation/bucketing.h"

#include <algorithm>
#include <string>

namespace podbench::translation {

int BucketSpec::BucketOf(int64_t source_length, int64_t target_length) const {
  const int64_t w = width();
  return static_cast<int>(std::min<int64_t>(buckets, std::max(source_length / w, target_length / w)));
}

Result<BucketedBatches> BucketedBatches::Create(const std::vector<TokenPair>& examples, const BucketSpec& spec,
                                                int64_t batch, uint64_t seed) {
  if (spec.max_length < 1 || spec.buckets < 1) {
    return Status::InvalidArgument("bucketing: max_length and buckets must be >= 1");
  }
  if (batch < 1) return Status::InvalidArgument("bucketing: batch must be >= 1");
  if (examples.empty()) return Status::InvalidArgument("bucketing: no examples");
  BucketedBatches b;
  b.batch_ = batch;
  for (size_t i = 0; i < examples.size(); ++i) {
    const auto s = static_cast<int64_t>(examples[i].source.size()), t = static_cast<int64_t>(examples[i].target.size());
    if (s > spec.max_length || t > spec.max_length) {
      return Status::InvalidArgument("bucketing: example " + std::to_string(i) + " (" + std::to_string(s) + ", " +
                                     std::to_string(t) + " tokens) is longer than max_length " +
                                     std::to_string(spec.max_length));
    }
    b.bucket_.push_back(spec.BucketOf(s, t));
  }
  b.order_.resize(examples.size());
  for (size_t i = 0; i < b.order_.size(); ++i) b.order_[i] = static_cast<int64_t>(i);
  b.cursor_ = b.order_.size();  // the first Next() shuffles
  b.waiting_.resize(static_cast<size_t>(spec.buckets) + 1);
  b.rng_.seed(seed);
  return b;
}

std::vector<int64_t> BucketedBatches::Next() {
  for (;;) {
    if (cursor_ == order_.size()) {
      std::shuffle(order_.begin(), order_.end(), rng_);
      cursor_ = 0;
    }
    const int64_t e = order_[cursor_++];
    std::vector<int64_t>& w = waiting_[static_cast<size_t>(bucket_[static_cast<size_t>(e)])];
    w.push_back(e);
    if (static_cast<int64_t>(w.size()) == batch_) {
      std::vector<int64_t> out;
      out.swap(w);
      return out;
    }
  }
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
