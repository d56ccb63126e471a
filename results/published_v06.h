// Google's published MLPerf Training v0.6 results on TPU-v3 (closed division).
//
// Source: MLPerf Training v0.6 results, Google's TPU-v3 submission (result
// logs under Google/results/tpu-v3-N/, MLCommons training_results_v0.6),
// as summarised by Kumar et al. 2019, "Scale MLPerf-0.6 models on Google
// TPU-v3 Pods". Score = the v0.6 score in minutes (olympic mean of the runs).
// Platform tpu-v3-N = N cores = N/2 chips. Google submitted no MiniGo.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace podbench::results {

// The preset that stands for Google's v0.6 configuration in every workload:
// only its runs are compared with the published rows.
inline constexpr const char* kPublishedPreset = "google-v0.6";

struct PublishedResult {
  std::string_view benchmark;  // podbench workload name: resnet, ssd, maskrcnn, transformer, gnmt
  std::string_view slice;      // "tpu-v3-32"
  int64_t chips;
  int64_t global_batch;
  double score_min;
  // Median seconds between consecutive evaluations before run_stop, median
  // over the runs: one training block plus its evaluation (4 epochs for
  // ResNet, 1 for Mask R-CNN, Transformer and GNMT; an SSD block is 625 steps
  // at batch 1024, 313 at 2048). 0 where the logs do not give one.
  double block_s = 0;
};

// Every published row, in table order.
const std::vector<PublishedResult>& PublishedV06();

// The row for `workload` ("mask" is accepted for maskrcnn) on `slice`, if any.
std::optional<PublishedResult> FindPublishedV06(std::string_view workload, std::string_view slice);

// For a v0.6 benchmark Google did not submit (MiniGo), the sentence every
// output that shows its score states: there is no TPU-v3 score to match.
// Empty for the others.
std::string_view UnpublishedNote(std::string_view workload);

}  // namespace podbench::results
