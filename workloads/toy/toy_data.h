// The toy's generated dataset (workloads/toy/toy.cc): a linearly separable
// problem of kToyFeatures standard-normal features, labelled by a fixed
// random teacher and flipped with probability 0.05 (so the best reachable
// accuracy is about 0.95).
//
// Every example is a pure function of (the dataset seed, its set, its
// index): its generator is seeded MixSeed(MixSeed(seed, set), index)
// (base/hash.h). Examples are made when first asked for, so a process makes
// only the examples it reads; under mpirun each rank reads only its cores'
// part of every batch and of the held-out set (PartOfCores), and never
// makes another rank's examples.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "base/flags.h"
#include "topology/rank_group.h"

namespace podbench::workloads {

inline constexpr int kToyFeatures = 16;

class ToyData {
 public:
  // REQUIRES: train_examples >= 0, eval_examples >= 0.
  ToyData(uint64_t seed, int64_t train_examples, int64_t eval_examples);

  // Training or held-out example `i`'s kToyFeatures features and its label,
  // made on first use. REQUIRES: 0 <= i < the set's size.
  const double* TrainFeatures(int64_t i) { return Get(train_, i).first; }
  int TrainLabel(int64_t i) { return Get(train_, i).second; }
  const double* EvalFeatures(int64_t i) { return Get(eval_, i).first; }
  int EvalLabel(int64_t i) { return Get(eval_, i).second; }

  // The examples made so far, ascending. For the data-sharding tests.
  std::vector<int64_t> MadeTrain() const { return IndicesOf(train_.made); }
  std::vector<int64_t> MadeEval() const { return IndicesOf(eval_.made); }

 private:
  struct Set {
    uint64_t seed = 0;
    std::vector<double> x;
    std::vector<int> y;
    std::vector<char> made;
  };
  std::pair<const double*, int> Get(Set& set, int64_t i) const;

  std::vector<double> teacher_;
  Set train_, eval_;
};

// [begin, end) of `n` items split over `cores` cores in equal consecutive
// shares (core c takes [n c / cores, n (c + 1) / cores)): the part of
// `block`'s cores.
std::pair<int64_t, int64_t> PartOfCores(int64_t n, topology::CoreBlock block, int cores);

}  // namespace podbench::workloads
