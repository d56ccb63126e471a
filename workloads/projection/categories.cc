#include "workloads/projection/categories.h"

namespace podbench::projection {

const char* CategoryName(Category c) {
  switch (c) {
    case Category::kMxu: return "mxu";
    case Category::kVector: return "vector";
    case Category::kHbm: return "hbm";
    case Category::kGradients: return "gradients";
    case Category::kHalo: return "halo";
    case Category::kBnSync: return "bn_sync";
    case Category::kOptimizer: return "optimizer";
    case Category::kInput: return "input";
    case Category::kIdle: return "idle";
  }
  return "?";
}

const std::array<Category, kNumCategories>& AllCategories() {
  static const std::array<Category, kNumCategories> all = {
      Category::kMxu,    Category::kVector,    Category::kHbm,   Category::kGradients, Category::kHalo,
      Category::kBnSync, Category::kOptimizer, Category::kInput, Category::kIdle};
  return all;
}

double CategoryTimes::total_s() const {
  double t = 0;
  for (double v : s) t += v;
  return t;
}

double CategoryTimes::compute_s() const {
  return (*this)[Category::kMxu] + (*this)[Category::kVector] + (*this)[Category::kHbm];
}

CategoryTimes& CategoryTimes::operator+=(const CategoryTimes& o) {
  for (std::size_t i = 0; i < kNumCategories; ++i) s[i] += o.s[i];
  return *this;
}

CategoryTimes CategoryTimes::Scaled(double f) const {
  CategoryTimes c = *this;
  for (double& v : c.s) v *= f;
  return c;
}

}  // namespace podbench::projection
