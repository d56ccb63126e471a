#include "results/published_v06.h"

namespace podbench::results {

const std::vector<PublishedResult>& PublishedV06() {
  static const std::vector<PublishedResult> kRows = {
      {"resnet", "tpu-v3-32", 16, 4096, 42.19},
      {"resnet", "tpu-v3-128", 64, 16384, 11.22},
      {"resnet", "tpu-v3-256", 128, 32768, 6.86},
      {"resnet", "tpu-v3-512", 256, 32768, 3.85},
      {"resnet", "tpu-v3-1024", 512, 32768, 2.27},
      {"resnet", "tpu-v3-2048", 1024, 32768, 1.28},
      {"ssd", "tpu-v3-32", 16, 1024, 12.61},
      {"ssd", "tpu-v3-128", 64, 1024, 3.89},
      {"ssd", "tpu-v3-256", 128, 1024, 2.76},
      {"ssd", "tpu-v3-512", 256, 2048, 1.79},
      {"ssd", "tpu-v3-1024", 512, 2048, 1.34},
      {"ssd", "tpu-v3-2048", 1024, 2048, 1.21},
      {"maskrcnn", "tpu-v3-32", 16, 128, 107.03},
      {"maskrcnn", "tpu-v3-128", 64, 128, 57.46},
      {"maskrcnn", "tpu-v3-256", 128, 128, 35.60},
      {"transformer", "tpu-v3-32", 16, 512, 10.20},
      {"transformer", "tpu-v3-128", 64, 512, 3.85},
      {"transformer", "tpu-v3-256", 128, 512, 2.81},
      {"transformer", "tpu-v3-512", 256, 2048, 1.58},
      {"transformer", "tpu-v3-1024", 512, 2048, 1.05},
      {"transformer", "tpu-v3-2048", 1024, 2048, 0.85},
      {"gnmt", "tpu-v3-32", 16, 4096, 12.25},
      {"gnmt", "tpu-v3-128", 64, 8192, 4.62},
      {"gnmt", "tpu-v3-256", 128, 8192, 3.53},
      {"gnmt", "tpu-v3-512", 256, 8192, 2.51},
      {"gnmt", "tpu-v3-1024", 512, 8192, 2.11},
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

}  // namespace podbench::results
