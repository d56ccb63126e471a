#include "workloads/toy/toy_data.h"

#include <random>
#include <tuple>

#include "base/flags.h"
#include "base/hash.h"

namespace podbench::workloads {

namespace {
// The dataset's independent streams: MixSeed(seed, stream).
constexpr uint64_t kTrainStream = 0, kEvalStream = 1, kTeacherStream = 2;
}  // namespace

ToyData::ToyData(uint64_t seed, int64_t train_examples, int64_t eval_examples) {
  std::mt19937_64 rng(MixSeed(seed, kTeacherStream));
  std::normal_distribution<double> normal;
  teacher_.resize(kToyFeatures);
  for (double& w : teacher_) w = normal(rng);
  for (auto [set, stream, n] : {std::tuple{&train_, kTrainStream, train_examples},
                                std::tuple{&eval_, kEvalStream, eval_examples}}) {
    set->seed = MixSeed(seed, stream);
    set->x.assign(static_cast<size_t>(n) * kToyFeatures, 0.0);
    set->y.assign(static_cast<size_t>(n), 0);
    set->made.assign(static_cast<size_t>(n), 0);
  }
}

std::pair<const double*, int> ToyData::Get(Set& set, int64_t i) const {
  const auto at = static_cast<size_t>(i);
  double* x = set.x.data() + at * kToyFeatures;
  if (!set.made[at]) {
    std::mt19937_64 rng(MixSeed(set.seed, static_cast<uint64_t>(i)));
    std::normal_distribution<double> normal;
    std::bernoulli_distribution flip(0.05);
    double dot = 0;
    for (int f = 0; f < kToyFeatures; ++f) {
      x[f] = normal(rng);
      dot += x[f] * teacher_[static_cast<size_t>(f)];
    }
    const int label = dot > 0 ? 1 : 0;
    set.y[at] = flip(rng) ? 1 - label : label;
    set.made[at] = 1;
  }
  return {x, set.y[at]};
}

std::pair<int64_t, int64_t> PartOfCores(int64_t n, topology::CoreBlock block, int cores) {
  return {n * block.begin / cores, n * block.end / cores};
}

}  // namespace podbench::workloads
