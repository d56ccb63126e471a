#include "workloads/resnet/google_v06.h"

#include <algorithm>

namespace podbench::resnet {

const std::vector<GoogleV06Config>& GoogleV06Configs() {
  // clang-format off
  static const std::vector<GoogleV06Config> kConfigs = {
      // slice        cores  batch  /core spe  train  evbs  evsteps g  lr    warm wd    eps   decay  end   ls   score  block  cache  first+
      {"tpu-v3-32",   32,   4096,  128, 1252, 22536, 4096,  13, 1, 10.0, 5,  2e-4, 0,    20974, 1e-4, 0.1, 42.19, 164.1, true,  68.12},
      {"tpu-v3-128",  128,  16384, 128, 313,  5634,  16384, 4,  1, 25.0, 5,  2e-4, 0,    5245,  1e-4, 0.1, 11.22, 41.0,  true,  17.42},
      {"tpu-v3-256",  256,  32768, 128, 157,  2983,  32768, 2,  1, 33.0, 25, 2e-4, 0,    2007,  1e-4, 0.1, 6.86,  21.3,  false, 4.69},
      {"tpu-v3-512",  512,  32768, 64,  157,  2983,  32768, 2,  1, 31.2, 25, 1e-4, 1e-5, 2007,  1e-4, 0.1, 3.85,  12.4,  false, 3.67},
      {"tpu-v3-1024", 1024, 32768, 32,  157,  2983,  32768, 2,  1, 31.2, 25, 1e-4, 1e-5, 2007,  1e-4, 0.1, 2.27,  6.9,   false, 5.12},
      {"tpu-v3-2048", 2048, 32768, 16,  157,  2983,  32768, 2,  8, 31.2, 25, 1e-4, 1e-5, 2007,  1e-4, 0.1, 1.28,  3.95,  false, 5.33},
  };
  // clang-format on
  return kConfigs;
}

std::optional<GoogleV06Config> GoogleV06ConfigFor(std::string_view slice) {
  for (const auto& c : GoogleV06Configs()) {
    if (c.slice == slice) return c;
  }
  return std::nullopt;
}

double ConvergenceRow::MeanEpochs() const {
  double sum = 0;
  int n = 0;
  for (const auto& p : points) {
    sum += static_cast<double>(p.epochs) * p.runs;
    n += p.runs;
  }
  return n ? sum / n : 0;
}

const std::vector<ConvergenceRow>& ConvergenceTable() {
  static const std::vector<ConvergenceRow> kTable = {
      // tpu-v3-32: 4 runs at the epoch-60 eval, 1 at 64.
      {4096, {{60, 4}, {64, 1}}},
      // tpu-v3-128: 4 at 64, 1 at 68.
      {16384, {{64, 4}, {68, 1}}},
      // tpu-v3-256/512/1024/2048 (19 successful runs): 11 at 72, 8 at 76.
      {32768, {{72, 11}, {76, 8}}},
  };
  return kTable;
}

const ConvergenceRow& ConvergenceFor(int64_t global_batch) {
  const auto& t = ConvergenceTable();
  const ConvergenceRow* best = &t.front();
  for (const auto& row : t) {
    if (row.global_batch <= global_batch) best = &row;
  }
  return *best;
}

const SliceConvergence* SliceConvergenceFor(std::string_view slice, int64_t global_batch) {
  // Google/results/tpu-v3-<N>/resnet/result_{0..4}.txt: the epoch_num of the
  // first eval_accuracy >= 0.759 (../shared/reference/google-v0.6-runs.csv).
  static const std::vector<SliceConvergence> kTable = {
      {"tpu-v3-32", 4096, {{60, 4}, {64, 1}}},     {"tpu-v3-128", 16384, {{64, 4}, {68, 1}}},
      {"tpu-v3-256", 32768, {{72, 2}, {76, 3}}},   {"tpu-v3-512", 32768, {{72, 5}}},
      {"tpu-v3-1024", 32768, {{76, 4}}},           {"tpu-v3-2048", 32768, {{72, 4}, {76, 1}}},
  };
  for (const SliceConvergence& c : kTable) {
    if (c.slice == slice && c.global_batch == global_batch) return &c;
  }
  return nullptr;
}

}  // namespace podbench::resnet
