// The v0.6 MiniGo network on the kernels: its size, its gradient against
// finite differences, and the search's evaluator batching leaves without
// changing what each leaf gets.
#include "workloads/minigo/minigo_network.h"

#include <cmath>
#include <memory>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "workloads/minigo/go/random.h"

namespace podbench::minigo {
namespace {

using ::testing::HasSubstr;

struct Batch {
  std::vector<float> features, pi, z;
};

// n positions of random 0/1 planes (the colour plane constant per position),
// random search distributions, and outcomes of +-1.
Batch RandomBatch(int n, uint64_t seed) {
  Rng rng(seed);
  Batch b;
  b.features.resize(static_cast<size_t>(n) * kFeatureSize);
  for (int i = 0; i < n; ++i) {
    const float colour = static_cast<float>(rng.UniformInt(2));
    for (int p = 0; p < kNumPoints; ++p)
      for (int c = 0; c < kNumPlanes; ++c)
        b.features[static_cast<size_t>((i * kNumPoints + p) * kNumPlanes + c)] =
            c == 16 ? colour : static_cast<float>(rng.Uniform() < 0.3f);
  }
  b.pi.resize(static_cast<size_t>(n) * kNumMoves);
  for (int i = 0; i < n; ++i) rng.Dirichlet(0.3, std::span(b.pi).subspan(static_cast<size_t>(i) * kNumMoves, kNumMoves));
  for (int i = 0; i < n; ++i) b.z.push_back(rng.UniformInt(2) ? 1.f : -1.f);
  return b;
}

TEST(MinigoNetworkTest, RealSizeMatchesTheReference) {
  auto net = Network::Create(NetworkConfig{}, 1);
  ASSERT_TRUE(net.ok()) << net.status().ToString();
  // minigo-v0.6-loop.md §2 "Network size": ~0.19 M weights, ~13.9 M MACs.
  EXPECT_EQ((*net)->num_parameters(), 190775);
  EXPECT_NEAR(static_cast<double>((*net)->MacsPerPosition()), 13.9e6, 0.1e6);
}

TEST(MinigoNetworkTest, BadConfigNamesTheField) {
  NetworkConfig c;
  c.conv_width = 0;
  auto net = Network::Create(c, 1);
  ASSERT_FALSE(net.ok());
  EXPECT_THAT(net.status().message(), HasSubstr("conv_width"));
}

TEST(MinigoNetworkTest, GradientMatchesFiniteDifferences) {
  NetworkConfig c;
  c.conv_width = 4;
  c.trunk_layers = 1;  // one residual block: every kind of layer, few ReLUs
  c.fc_width = 8;
  c.l2_strength = 0.01f;  // large enough that the L2 term shows
  auto made = Network::Create(c, 7);
  ASSERT_TRUE(made.ok());
  Network& net = **made;
  const int n = 3;
  const Batch b = RandomBatch(n, 3);
  std::vector<float> grad;
  const Losses l0 = net.ComputeGradients(b.features.data(), b.pi.data(), b.z.data(), n, &grad);
  EXPECT_GT(l0.policy, 0);
  EXPECT_GT(l0.value, 0);
  EXPECT_GT(l0.l2, 0);
  ASSERT_EQ(grad.size(), net.parameters().size());
  // Every fifth parameter of the small network (every layer's), central
  // differences in fp32. A ReLU whose input crosses 0 inside [w - eps,
  // w + eps] makes the loss non-smooth there: the two one-sided differences
  // then disagree, and that parameter is skipped (a few per cent are).
  const float eps = 1e-3f;
  const double l0_total = net.Loss(b.features.data(), b.pi.data(), b.z.data(), n).total();
  int checked = 0, kinks = 0, bad = 0;
  for (size_t i = 0; i < grad.size(); i += 5) {
    float& w = net.parameters()[i];
    const float w0 = w;
    w = w0 + eps;
    const double up = net.Loss(b.features.data(), b.pi.data(), b.z.data(), n).total();
    w = w0 - eps;
    const double down = net.Loss(b.features.data(), b.pi.data(), b.z.data(), n).total();
    w = w0;
    const double numeric = (up - down) / (2.0 * eps);
    const double forward = (up - l0_total) / eps, backward = (l0_total - down) / eps;
    if (std::abs(forward - backward) > 1e-3 + 0.05 * std::abs(numeric)) {
      ++kinks;
      continue;
    }
    ++checked;
    if (std::abs(numeric - grad[i]) > 2e-3 + 0.1 * std::abs(numeric)) {
      ++bad;
      ADD_FAILURE() << "parameter " << i << ": analytic " << grad[i] << ", numeric " << numeric;
      if (bad > 10) break;
    }
  }
  EXPECT_EQ(bad, 0);
  EXPECT_LT(kinks, checked / 10) << "too few smooth parameters to check";
}

TEST(MinigoNetworkTest, BatchedEvaluationEqualsOneByOne) {
  NetworkConfig c;
  c.trunk_layers = 2;  // the real width, fewer blocks: the same code, faster
  auto made = Network::Create(c, 5);
  ASSERT_TRUE(made.ok());
  Network& net = **made;
  // One training step, so the running statistics are not the initial ones.
  const Batch train = RandomBatch(8, 11);
  std::vector<float> grad;
  (void)net.ComputeGradients(train.features.data(), train.pi.data(), train.z.data(), 8, &grad);

  const int n = 13;
  const Batch b = RandomBatch(n, 12);
  NetworkEvaluator whole(&net, 64), chunked(&net, 5);
  std::vector<float> p1(n * kNumMoves), v1(n), p2(n * kNumMoves), v2(n);
  ASSERT_TRUE(whole.Evaluate(b.features, n, p1, v1).ok());
  ASSERT_TRUE(chunked.Evaluate(b.features, n, p2, v2).ok());
  for (int i = 0; i < n; ++i) {
    std::vector<float> p(kNumMoves), v(1);
    ASSERT_TRUE(whole.Evaluate(std::span(b.features).subspan(static_cast<size_t>(i) * kFeatureSize, kFeatureSize), 1,
                               p, v)
                    .ok());
    EXPECT_NEAR(v[0], v1[static_cast<size_t>(i)], 1e-5) << "position " << i;
    EXPECT_NEAR(v[0], v2[static_cast<size_t>(i)], 1e-5) << "position " << i;
    EXPECT_GE(v[0], -1.f);
    EXPECT_LE(v[0], 1.f);
    double sum = 0;
    for (int m = 0; m < kNumMoves; ++m) {
      const size_t at = static_cast<size_t>(i * kNumMoves + m);
      EXPECT_NEAR(p[static_cast<size_t>(m)], p1[at], 1e-5);
      EXPECT_NEAR(p[static_cast<size_t>(m)], p2[at], 1e-5);
      sum += p[static_cast<size_t>(m)];
    }
    EXPECT_NEAR(sum, 1.0, 1e-4);
  }
  EXPECT_EQ(whole.calls(), 1 + n);
  EXPECT_EQ(whole.positions(), 2 * n);
  std::vector<float> p(kNumMoves), v(2);
  EXPECT_THAT(whole.Evaluate(std::span(b.features).first(kFeatureSize), 1, p, v).message(), HasSubstr("batch 1"));
}

}  // namespace
}  // namespace podbench::minigo
