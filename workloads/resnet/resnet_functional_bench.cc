// Full-size functional ResNet-50 v1.5 (224x224, 1000 classes) on one
// emulated core: times a few real training steps (forward, backward, LARS)
// on random images and prints host images/s.
//
//   resnet_functional_bench [steps=2] [batch=4] [fp32|bf16=bf16]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "workloads/resnet/resnet_functional.h"

int main(int argc, char** argv) {
  using namespace podbench;
  const int steps = argc > 1 ? std::atoi(argv[1]) : 2;
  const int batch = argc > 2 ? std::atoi(argv[2]) : 4;
  const bool fp32 = argc > 3 && std::string(argv[3]) == "fp32";
  if (steps < 1 || batch < 1) {
    std::fprintf(stderr, "usage: resnet_functional_bench [steps>=1] [batch>=1] [fp32|bf16]\n");
    return 2;
  }
  resnet::FunctionalConfig cfg;
  cfg.net = resnet::ResNetConfig::ResNet50();
  cfg.global_batch = batch;
  cfg.precision = fp32 ? kernels::Precision::kF32 : kernels::Precision::kBf16;
  cfg.threads_per_core = 0;
  auto net = resnet::FunctionalResNet::Create(cfg);
  if (!net.ok()) {
    std::fprintf(stderr, "%s\n", net.status().ToString().c_str());
    return 1;
  }
  const int64_t img = 224 * 224 * 3;
  std::vector<float> x(static_cast<size_t>(batch * img));
  std::vector<int32_t> y(static_cast<size_t>(batch));
  std::mt19937 rng(1);
  std::normal_distribution<float> d;
  for (float& v : x) v = d(rng);
  for (int i = 0; i < batch; ++i) y[static_cast<size_t>(i)] = i % 1000;
  std::printf("resnet50_v1.5 functional: %lld parameters, batch %d, %s, 1 emulated core\n",
              static_cast<long long>((*net)->num_parameters()), batch, fp32 ? "fp32" : "bf16");
  for (int s = 0; s < steps; ++s) {
    auto t0 = std::chrono::steady_clock::now();
    auto loss = (*net)->ComputeGradients(x.data(), y.data());
    if (!loss.ok()) {
      std::fprintf(stderr, "%s\n", loss.status().ToString().c_str());
      return 1;
    }
    if (Status st = (*net)->Update({}); !st.ok()) {
      std::fprintf(stderr, "%s\n", st.ToString().c_str());
      return 1;
    }
    double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("step %d: loss %.4f, %.2f s, %.2f images/s\n", s + 1, *loss, sec, batch / sec);
  }
  return 0;
}
