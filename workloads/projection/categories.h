// The categories the projection layer splits an emulated step into. They
// partition the step's wall time: every emulated second of a step is in
// exactly one category, so the categories of a step sum to its time.
//
//   mxu, vector, hbm  an op's time, charged to the unit that bounds it (the
//                     largest of its MXU, vector-unit and HBM times; its
//                     fixed overhead goes with it)
//   gradients         gradient summation over the replicas (all-reduce, or
//                     reduce-scatter + all-gather with weight-update
//                     sharding, and sharded LARS's norm all-reduce)
//   halo              halo exchanges between a replica's spatial partitions
//   bn_sync           distributed batch-norm statistics all-reduces
//   optimizer         the weight update
//   input             host I/O the device waits for: the part of the host's
//                     input work a training step does not hide, the
//                     cross-replica sum that hands out a few infeed hosts'
//                     batches (GNMT), and the outfeed of an evaluation
//                     step's results
//   idle              cores waiting while an op pinned to a replica's first
//                     core runs there ((k - 1) / k of its time)
#pragma once

#include <array>
#include <cstddef>

namespace podbench::projection {

enum class Category { kMxu, kVector, kHbm, kGradients, kHalo, kBnSync, kOptimizer, kInput, kIdle };
inline constexpr std::size_t kNumCategories = 9;
const char* CategoryName(Category c);  // "mxu", "vector", "hbm", "gradients", "halo", ...
// Every category, in the order above.
const std::array<Category, kNumCategories>& AllCategories();

// Seconds per category.
struct CategoryTimes {
  std::array<double, kNumCategories> s{};

  double& operator[](Category c) { return s[static_cast<std::size_t>(c)]; }
  double operator[](Category c) const { return s[static_cast<std::size_t>(c)]; }
  double total_s() const;
  // The device's part: everything but input.
  double device_s() const { return total_s() - (*this)[Category::kInput]; }
  // mxu + vector + hbm.
  double compute_s() const;
  CategoryTimes& operator+=(const CategoryTimes& o);
  CategoryTimes Scaled(double f) const;
};

}  // namespace podbench::projection
