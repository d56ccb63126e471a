#include "results/published_v06.h"

namespace podbench::results {

const std::vector<PublishedResult>& PublishedV06() {
  // Scores, and median eval gaps read from Google's result logs
  // (Google/results/tpu-v3-N/<benchmark>/result_*.txt).
  static const std::vector<PublishedResult> kRows = {
      {"resnet", "tpu-v3-32", 16, 4096, 42.19, 164.1},
      {"resnet", "tpu-v3-128", 64, 16384, 11.22, 41.0},
      {"resnet", "tpu-v3-256", 128, 32768, 6.86, 21.3},
      {"resnet", "tpu-v3-512", 256, 32768, 3.85, 12.4},
      {"resnet", "tpu-v3-1024", 512, 32768, 2.27, 6.9},
      {"resnet", "tpu-v3-2048", 1024, 32768, 1.28, 3.95},
      {"ssd", "tpu-v3-32", 16, 1024, 12.61, 68.9},
      {"ssd", "tpu-v3-128", 64, 1024, 3.89, 21.7},
      {"ssd", "tpu-v3-256", 128, 1024, 2.76, 15.5},
      {"ssd", "tpu-v3-512", 256, 2048, 1.79, 7.2},
      {"ssd", "tpu-v3-1024", 512, 2048, 1.34, 5.0},
      {"ssd", "tpu-v3-2048", 1024, 2048, 1.21, 4.2},
      {"maskrcnn", "tpu-v3-32", 16, 128, 107.03, 418},
      {"maskrcnn", "tpu-v3-128", 64, 128, 57.46, 226},
      {"maskrcnn", "tpu-v3-256", 128, 128, 35.60, 137},
      {"transformer", "tpu-v3-32", 16, 512, 10.20, 193.6},
      {"transformer", "tpu-v3-128", 64, 512, 3.85, 66.7},
      {"transformer", "tpu-v3-256", 128, 512, 2.81, 50.4},
      {"transformer", "tpu-v3-512", 256, 2048, 1.58, 16.8},
      {"transformer", "tpu-v3-1024", 512, 2048, 1.05, 10.9},
      {"transformer", "tpu-v3-2048", 1024, 2048, 0.85, 8.3},
      {"gnmt", "tpu-v3-32", 16, 4096, 12.25, 120.3},
      {"gnmt", "tpu-v3-128", 64, 8192, 4.62, 37.6},
      {"gnmt", "tpu-v3-256", 128, 8192, 3.53, 27.7},
      {"gnmt", "tpu-v3-512", 256, 8192, 2.51, 19.4},
      {"gnmt", "tpu-v3-1024", 512, 8192, 2.11, 15.7},
  };
  return kRows;
}

std::optional<PublishedResult> FindPublishedV06(std::string_view workload, std::string_view slice) {
  if (workload == "mask") workload = "maskrcnn";
  for (const PublishedResult& r : PublishedV06()) {
    if (r.benchmark == workload && r.slice == slice) return r;
  }
  return std::nullopt;
}

std::string_view UnpublishedNote(std::string_view workload) {
  if (workload == "minigo") {
    return "Google ran no MiniGo in MLPerf v0.6 (NVIDIA and Intel did, on GPUs and CPUs): there is no published "
           "TPU-v3 score to match";
  }
  return {};
}

}  // namespace podbench::results
