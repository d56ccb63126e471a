// The functional ResNet trains for real: its backward matches finite
// differences, and data-parallel training on 8 emulated cores with the 2-D
// all-reduce and distributed batch norm matches one core at the same global
// batch.
#include <algorithm>
#include <cmath>
#include <iostream>
#include <map>
#include <string>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "kernels/dispatch/dispatch.h"
#include "workloads/resnet/resnet_functional.h"

namespace podbench::resnet {
namespace {

ResNetConfig Tiny() {
  ResNetConfig c;
  c.image_size = 32;
  c.num_classes = 3;
  c.width = 2;
  c.expansion = 2;
  c.blocks = {1, 1, 1, 1};
  return c;
}

void Data(int64_t n, int size, int classes, std::vector<float>* x, std::vector<int32_t>* y) {
  std::mt19937 rng(7);
  std::normal_distribution<float> d;
  x->resize(static_cast<size_t>(n * size * size * 3));
  for (float& v : *x) v = d(rng);
  y->resize(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) (*y)[static_cast<size_t>(i)] = static_cast<int32_t>(i % classes);
}

TEST(FunctionalResNetTest, BackwardMatchesFiniteDifferences) {
  FunctionalConfig cfg;
  cfg.net = Tiny();
  cfg.global_batch = 4;
  cfg.precision = kernels::Precision::kF32;
  auto net = FunctionalResNet::Create(cfg);
  ASSERT_TRUE(net.ok()) << net.status().ToString();
  FunctionalResNet& m = **net;
  // Non-zero residual-branch scales so every path carries gradient.
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> u(0.5f, 1.5f);
  for (float& p : m.parameters()) {
    if (p == 0.f) p = u(rng) - 1.f;
  }
  std::vector<float> x;
  std::vector<int32_t> y;
  Data(4, 32, 3, &x, &y);
  ASSERT_TRUE(m.ComputeGradients(x.data(), y.data()).ok());
  std::vector<float> g(m.gradient(), m.gradient() + m.num_parameters());
  // Check the largest gradients of a spread of parameters.
  std::vector<int64_t> idx;
  for (int64_t i = 0; i < m.num_parameters(); i += 37) idx.push_back(i);
  std::sort(idx.begin(), idx.end(), [&](int64_t a, int64_t b) { return std::abs(g[size_t(a)]) > std::abs(g[size_t(b)]); });
  idx.resize(12);
  for (int64_t i : idx) {
    float& p = m.parameters()[static_cast<size_t>(i)];
    const float saved = p, h = 5e-4f * std::max(1.f, std::abs(saved));
    p = saved + h;
    double lp = *m.ComputeGradients(x.data(), y.data());
    p = saved - h;
    double lm = *m.ComputeGradients(x.data(), y.data());
    p = saved;
    double fd = (lp - lm) / (2 * h);
    EXPECT_NEAR(g[static_cast<size_t>(i)], fd, 0.05 * std::abs(fd) + 2e-4) << "parameter " << i;
  }
}

FunctionalConfig Config(int cores, int bn_group, const std::string& allreduce) {
  FunctionalConfig cfg;
  cfg.net = Tiny();
  cfg.cores = cores;
  cfg.slice = cores > 1 ? "tpu-v3-8" : "";
  cfg.bn_group = bn_group;
  cfg.allreduce = allreduce;
  cfg.global_batch = 16;
  cfg.precision = kernels::Precision::kF32;
  return cfg;
}

// Trains `steps` steps of 16 images; returns the weights (empty on error).
std::vector<float> Train(const FunctionalConfig& cfg, std::vector<double>* losses, int steps = 3,
                         std::unique_ptr<FunctionalResNet>* keep = nullptr) {
  auto net = FunctionalResNet::Create(cfg);
  EXPECT_TRUE(net.ok()) << net.status().ToString();
  if (!net.ok()) return {};
  std::vector<float> x;
  std::vector<int32_t> y;
  Data(16 * steps, 32, 3, &x, &y);
  for (int s = 0; s < steps; ++s) {
    auto loss = (*net)->ComputeGradients(x.data() + s * 16 * 32 * 32 * 3, y.data() + s * 16);
    EXPECT_TRUE(loss.ok());
    if (!loss.ok()) return {};
    losses->push_back(*loss);
    Status st = (*net)->Update({.lr = 2.f});
    EXPECT_TRUE(st.ok()) << st.ToString();
  }
  std::vector<float> w = (*net)->parameters();
  if (keep) *keep = std::move(*net);
  return w;
}

std::vector<float> Train(int cores, int bn_group, const std::string& allreduce, std::vector<double>* losses) {
  return Train(Config(cores, bn_group, allreduce), losses);
}

double RelativeDifference(const std::vector<float>& a, const std::vector<float>& b) {
  double diff = 0, norm = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    diff += (a[i] - b[i]) * double(a[i] - b[i]);
    norm += a[i] * double(a[i]);
  }
  return std::sqrt(diff / norm);
}

TEST(FunctionalResNetTest, EightCoresWithTorus2dMatchOneCore) {
  std::vector<double> l1, l8;
  std::vector<float> w1 = Train(1, 1, "torus2d", &l1);
  std::vector<float> w8 = Train(8, 8, "torus2d", &l8);
  ASSERT_EQ(w1.size(), w8.size());
  ASSERT_FALSE(w1.empty());
  for (size_t s = 0; s < l1.size(); ++s) EXPECT_NEAR(l1[s], l8[s], 1e-6 * std::abs(l1[s])) << "step " << s;
  double diff = 0, norm = 0;
  for (size_t i = 0; i < w1.size(); ++i) {
    diff += (w1[i] - w8[i]) * double(w1[i] - w8[i]);
    norm += w1[i] * double(w1[i]);
  }
  EXPECT_LT(std::sqrt(diff / norm), 1e-6);
  std::cout << "8-core vs 1-core: relative weight difference " << std::sqrt(diff / norm) << ", losses "
            << l1.back() << " vs " << l8.back() << "\n";
  // The weights moved: the comparison is not of two untouched copies.
  std::vector<double> l0;
  FunctionalConfig cfg;
  cfg.net = Tiny();
  cfg.global_batch = 16;
  auto fresh = FunctionalResNet::Create(cfg);
  ASSERT_TRUE(fresh.ok());
  double moved = 0;
  for (size_t i = 0; i < w1.size(); ++i) moved += std::abs(w1[i] - (*fresh)->parameters()[i]);
  EXPECT_GT(moved, 1e-3);
}

// Weight-update sharding: reduce-scatter, LARS on each core's shard with
// all-reduced layer norms, all-gather. It computes the replicated update up
// to the order of fp32 sums, so several steps on 8 cores land on the same
// weights; every replica ends with all of them.
TEST(FunctionalResNetTest, WeightUpdateShardingMatchesTheReplicatedUpdate) {
  std::vector<double> lr, ls;
  FunctionalConfig plain = Config(8, 8, "torus2d");
  FunctionalConfig sharded = plain;
  sharded.weight_update_sharding = true;
  std::unique_ptr<FunctionalResNet> net;
  const int steps = 5;
  std::vector<float> wr = Train(plain, &lr, steps);
  std::vector<float> ws = Train(sharded, &ls, steps, &net);
  ASSERT_EQ(wr.size(), ws.size());
  ASSERT_FALSE(wr.empty());
  for (int s = 0; s < steps; ++s) EXPECT_NEAR(lr[s], ls[s], 1e-6 * std::abs(lr[s])) << "step " << s;
  const double rel = RelativeDifference(wr, ws);
  EXPECT_LT(rel, 1e-6);
  std::cout << "sharded vs replicated update after " << steps << " steps: relative weight difference " << rel
            << "\n";
  // Eight proper shards that tile the parameters ...
  int64_t covered = 0;
  for (int c = 0; c < 8; ++c) {
    auto [b, e] = net->shard(c);
    EXPECT_LT(e - b, net->num_parameters() / 4) << "core " << c;
    covered += e - b;
  }
  EXPECT_EQ(covered, net->num_parameters());
  // ... and after the all-gather every replica holds every updated shard.
  for (int c = 0; c < 8; ++c) {
    const float* r = net->replica_parameters(c);
    ASSERT_NE(r, nullptr);
    EXPECT_TRUE(std::equal(ws.begin(), ws.end(), r)) << "replica " << c;
  }
  // The weights moved.
  auto fresh = FunctionalResNet::Create(plain);
  ASSERT_TRUE(fresh.ok());
  EXPECT_GT(RelativeDifference((*fresh)->parameters(), ws), 1e-3);
  // The 2-D torus pair (what a run with allreduce=torus2d uses) shards the
  // same way and lands on the same weights.
  FunctionalConfig torus = sharded;
  torus.reduce_scatter = "torus2d_reduce_scatter";
  torus.all_gather = "torus2d_all_gather";
  std::vector<double> lt;
  std::vector<float> wt = Train(torus, &lt, steps);
  EXPECT_LT(RelativeDifference(wr, wt), 1e-6);
}

TEST(FunctionalResNetTest, WeightUpdateShardingRefusesAlgorithmsOfTheWrongKind) {
  FunctionalConfig cfg = Config(8, 8, "torus2d");
  cfg.weight_update_sharding = true;
  cfg.reduce_scatter = "all_gather";
  auto net = FunctionalResNet::Create(cfg);
  ASSERT_FALSE(net.ok());
  EXPECT_NE(net.status().message().find("'all_gather' is of kind all-gather, expected reduce-scatter"), std::string::npos)
      << net.status().ToString();
  cfg.reduce_scatter = "no_such_algorithm";
  net = FunctionalResNet::Create(cfg);
  ASSERT_FALSE(net.ok());
  EXPECT_NE(net.status().message().find("no_such_algorithm"), std::string::npos) << net.status().ToString();
}

TEST(FunctionalResNetTest, LocalBatchNormGroupsDifferFromGlobal) {
  std::vector<double> lg, ll;
  Train(8, 8, "ring", &lg);
  Train(8, 2, "ring", &ll);
  ASSERT_EQ(lg.size(), 3u);
  // Same first-step data but statistics over 4 instead of 16 images.
  EXPECT_GT(std::abs(lg[0] - ll[0]), 1e-6);
}

// In bf16 mode the activations are bf16 values (the images, the ReLU
// outputs, the convolutions' output gradients) and so are the weights the
// forward and data-gradient passes read (the per-step bf16 copy), and every
// convolution pass takes them as they are: its dispatch classes are the
// ".bf16in.bf16w" ones (".bf16in" for the filter gradient, whose filter is
// its output). (In builds with assertions, a pass told so checks a sample of
// its operands.) The dense layer's input, an average, is not one, so it
// rounds it; its weights are in the bf16 copy too.
TEST(FunctionalResNetTest, Bf16ModeKeepsItsActivationsInBf16) {
  int weights_rounded = 0;  // forward or data-gradient bf16 classes without ".bf16w"
  auto classes = [&] {
    std::map<std::string, int> seen;  // pass -> classes on bf16 operands; "rounding": bf16 classes without ".bf16in"
    weights_rounded = 0;
    for (const auto& [pc, ranking] : kernels::dispatch::Dispatcher::Global().Decisions()) {
      if (pc.family != kernels::dispatch::Family::kConvBf16) continue;
      const std::string& t = pc.text;
      const std::string pass = t.substr(0, t.find('.'));
      const bool bf16in = t.find(".bf16in") != std::string::npos;
      const bool bf16w = t.size() > 6 && t.compare(t.size() - 6, 6, ".bf16w") == 0;
      if (pass != "bwd_filter" && !bf16w) ++weights_rounded;
      ++seen[bf16in ? pass : "rounding"];
    }
    return seen;
  };
  const auto before = classes();
  FunctionalConfig cfg = Config(1, 1, "ring");
  cfg.precision = kernels::Precision::kBf16;
  std::vector<double> bf16_losses, f32_losses;
  Train(cfg, &bf16_losses, 2);
  const auto after = classes();
  for (const char* pass : {"fwd", "bwd_data", "bwd_filter"}) {
    const int grew = (after.count(pass) ? after.at(pass) : 0) - (before.count(pass) ? before.at(pass) : 0);
    EXPECT_GE(grew, 3) << pass << ": the convolutions were not told their operands are bf16 values";
  }
  // Only the dense layer (forward, data and filter gradients: 1x1 classes) rounds its operands.
  const int rounding = (after.count("rounding") ? after.at("rounding") : 0) -
                       (before.count("rounding") ? before.at("rounding") : 0);
  EXPECT_LE(rounding, 3);
  EXPECT_EQ(weights_rounded, 0) << "a forward or data-gradient pass was not told its filter holds bf16 values";
  Train(Config(1, 1, "ring"), &f32_losses, 2);
  ASSERT_EQ(bf16_losses.size(), 2u);
  ASSERT_EQ(f32_losses.size(), 2u);
  for (size_t s = 0; s < 2; ++s) {
    EXPECT_TRUE(std::isfinite(bf16_losses[s]));
    EXPECT_NEAR(bf16_losses[s], f32_losses[s], 0.05 * f32_losses[s]) << "step " << s;
    EXPECT_NE(bf16_losses[s], f32_losses[s]) << "step " << s << ": bf16 mode computed in fp32";
  }
}

// The network keeps no private copy of the data-parallel machinery: the
// weights it reads and updates, its gradient and its replicas are
// functional::DataParallel's.
TEST(FunctionalResNetTest, TrainsOnTheSharedDataParallelMachinery) {
  for (const bool sharded : {false, true}) {
    FunctionalConfig cfg = Config(8, 2, "torus2d");
    cfg.weight_update_sharding = sharded;
    std::unique_ptr<FunctionalResNet> net;
    std::vector<double> losses;
    ASSERT_FALSE(Train(cfg, &losses, 1, &net).empty());
    const functional::DataParallel& dp = net->parallel();
    EXPECT_EQ(dp.cores(), 8);
    EXPECT_EQ(dp.sharded(), sharded);
    EXPECT_EQ(dp.parameters(), net->num_parameters());
    EXPECT_EQ(net->gradient(), dp.summed_gradient(0));
    for (int c = 0; c < 8; ++c) {
      if (sharded) {
        EXPECT_EQ(net->replica_parameters(c), dp.weights(c)) << "core " << c;
        EXPECT_EQ(net->shard(c), dp.shard(c)) << "core " << c;
      } else {
        EXPECT_EQ(dp.weights(c), net->parameters().data()) << "core " << c;
      }
    }
  }
}

TEST(FunctionalResNetTest, RefusesABatchThatDoesNotSplit) {
  FunctionalConfig cfg;
  cfg.net = Tiny();
  cfg.cores = 8;
  cfg.slice = "tpu-v3-8";
  cfg.global_batch = 12;
  auto net = FunctionalResNet::Create(cfg);
  ASSERT_FALSE(net.ok());
  EXPECT_NE(net.status().message().find("global_batch 12"), std::string::npos);
}

}  // namespace
}  // namespace podbench::resnet
