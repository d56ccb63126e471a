// The Transformer computed on one core: its backward matches finite
// differences, packed examples do not see each other, and the incremental
// decoder computes what the training forward computes.
#include <algorithm>
#include <cmath>
#include <numeric>

#include <gtest/gtest.h>

#include "workloads/transformer/transformer_model.h"

namespace podbench::transformer {
namespace {

using translation::PackedRows;
using translation::TokenPair;

TransformerConfig Tiny(kernels::Precision prec = kernels::Precision::kF32) {
  TransformerConfig c;
  c.vocab = 13;
  c.hidden = 8;
  c.heads = 2;
  c.filter = 12;
  c.encoder_layers = 2;
  c.decoder_layers = 2;
  c.dropout = 0;
  c.label_smoothing = 0.1f;
  c.precision = prec;
  return c;
}

std::vector<TokenPair> Examples() {
  return {{{3, 4, 5, 1}, {6, 7, 1}}, {{8, 9, 1}, {10, 11, 12, 1}}, {{5, 5, 7, 8, 1}, {4, 1}}};
}

PackedRows Pack(const std::vector<TokenPair>& ex, int64_t length) {
  auto p = translation::PackExamples(ex, length);
  EXPECT_TRUE(p.ok()) << p.status().ToString();
  return *p;
}

double Loss(TransformerCore& core, const std::vector<float>& w, const PackedRows& rows) {
  StepContext ctx;
  ctx.training = false;
  auto r = core.TrainStep(w.data(), rows, ctx, nullptr);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? r->first : 0;
}

TEST(TransformerModelTest, LayoutCountsEveryTensor) {
  TransformerConfig c = Tiny();
  ParameterLayout l(c);
  const int64_t d = 8, f = 12;
  const int64_t enc = 2 * (4 * d + 3 * d * d + d * d + d * f + f + f * d + d);
  const int64_t dec = 2 * (6 * d + 3 * d * d + d * d + d * d + 2 * d * d + d * d + d * f + f + f * d + d);
  EXPECT_EQ(l.total, 13 * d + enc + dec + 4 * d);
  // Transformer big: ~210 M parameters with the 32k shared vocabulary
  // (Vaswani et al. 2017, Table 3: 213 M).
  ParameterLayout big(TransformerConfig::Big());
  EXPECT_GT(big.total, 200'000'000);
  EXPECT_LT(big.total, 215'000'000);
}

TEST(TransformerModelTest, BackwardMatchesFiniteDifferences) {
  TransformerConfig c = Tiny();
  ParameterLayout layout(c);
  std::vector<float> w = InitialParameters(c, 5);
  // Non-trivial norms and biases, so their gradients are exercised too.
  for (size_t i = 0; i < w.size(); ++i) w[i] += 0.05f * std::sin(static_cast<float>(i));
  TransformerCore core(c, layout);
  PackedRows rows = Pack(Examples(), 12);
  std::vector<float> grad(w.size());
  StepContext ctx;
  ctx.training = false;
  auto r = core.TrainStep(w.data(), rows, ctx, grad.data());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->second, 9);  // target tokens
  // The largest gradients of every 29th parameter, and a few of each kind.
  std::vector<int64_t> idx;
  for (int64_t i = 0; i < layout.total; i += 29) idx.push_back(i);
  std::sort(idx.begin(), idx.end(), [&](int64_t a, int64_t b) {
    return std::abs(grad[static_cast<size_t>(a)]) > std::abs(grad[static_cast<size_t>(b)]);
  });
  idx.resize(30);
  const auto& e = layout.encoder[0];
  const auto& dl = layout.decoder[1];
  for (int64_t i : {e.norm1.gamma + 1, e.self.q + 5, e.self.out + 3, e.ffn.b1 + 2, dl.cross.kv + 9,
                    dl.cross.q + 4, dl.norm3.beta, layout.decoder_norm.gamma + 2, layout.embedding + 8 * 6 + 1}) {
    idx.push_back(i);
  }
  int checked = 0;
  for (int64_t i : idx) {
    float& p = w[static_cast<size_t>(i)];
    const float saved = p, h = 1e-2f;
    p = saved + h;
    const double lp = Loss(core, w, rows);
    p = saved - h;
    const double lm = Loss(core, w, rows);
    p = saved;
    const double fd = (lp - lm) / (2 * h);
    EXPECT_NEAR(grad[static_cast<size_t>(i)], fd, 0.03 * std::abs(fd) + 2e-3) << "parameter " << i;
    ++checked;
  }
  EXPECT_EQ(checked, 39);
}

TEST(TransformerModelTest, PackedExamplesDoNotSeeEachOther) {
  for (auto prec : {kernels::Precision::kF32, kernels::Precision::kBf16}) {
    TransformerConfig c = Tiny(prec);
    ParameterLayout layout(c);
    std::vector<float> w = InitialParameters(c, 9);
    TransformerCore core(c, layout);
    const auto ex = Examples();
    const double packed = Loss(core, w, Pack(ex, 16));
    double separate = 0;
    for (const auto& e : ex) separate += Loss(core, w, Pack({e}, 16));
    EXPECT_NEAR(packed, separate, 1e-5 * std::abs(separate)) << "bf16 " << (prec == kernels::Precision::kBf16);
  }
}

TEST(TransformerModelTest, DropoutChangesTheLossAndIsReproducible) {
  TransformerConfig c = Tiny();
  c.dropout = 0.3f;
  ParameterLayout layout(c);
  std::vector<float> w = InitialParameters(c, 2);
  TransformerCore core(c, layout);
  PackedRows rows = Pack(Examples(), 16);
  std::vector<float> g(w.size());
  auto run = [&](int64_t step) {
    StepContext ctx;
    ctx.seed = 4;
    ctx.step = step;
    return core.TrainStep(w.data(), rows, ctx, g.data())->first;
  };
  EXPECT_EQ(run(1), run(1));
  EXPECT_NE(run(1), run(2));
  EXPECT_NE(run(1), Loss(core, w, rows));
}

// Teacher forcing through the incremental decoder gives the training
// forward's loss (no label smoothing: the loss is -sum log p(target)).
TEST(TransformerModelTest, IncrementalDecoderMatchesTheTrainingForward) {
  for (auto prec : {kernels::Precision::kF32, kernels::Precision::kBf16}) {
    TransformerConfig c = Tiny(prec);
    c.label_smoothing = 0;
    ParameterLayout layout(c);
    std::vector<float> w = InitialParameters(c, 21);
    TransformerCore core(c, layout);
    const auto ex = Examples();
    double want = 0;
    for (const auto& e : ex) want += Loss(core, w, Pack({e}, 8));
    std::vector<std::span<const int32_t>> sources;
    for (const auto& e : ex) sources.emplace_back(e.source);
    ASSERT_TRUE(core.StartDecoding(w.data(), sources).ok());
    // All sentences decode together; row r = sentence r throughout.
    double got = 0;
    std::vector<int32_t> parents(ex.size()), sentences(ex.size()), tokens(ex.size(), 0);
    std::iota(sentences.begin(), sentences.end(), 0);
    std::vector<float> lp(ex.size() * static_cast<size_t>(c.vocab));
    for (int step = 0; step < 4; ++step) {
      for (size_t r = 0; r < ex.size(); ++r) parents[r] = step == 0 ? -1 : static_cast<int32_t>(r);
      ASSERT_TRUE(core.DecodeStep(step, parents, sentences, tokens, lp).ok());
      for (size_t r = 0; r < ex.size(); ++r) {
        const auto& t = ex[r].target;
        if (static_cast<size_t>(step) < t.size()) {
          got -= lp[r * static_cast<size_t>(c.vocab) + static_cast<size_t>(t[static_cast<size_t>(step)])];
          tokens[r] = t[static_cast<size_t>(step)];
        } else {
          tokens[r] = 1;
        }
      }
    }
    EXPECT_NEAR(got, want, 2e-4 * std::abs(want)) << "bf16 " << (prec == kernels::Precision::kBf16);
  }
}

TEST(TransformerModelTest, RefusesBadInputs) {
  TransformerConfig c = Tiny();
  c.heads = 3;
  EXPECT_FALSE(c.Validate().ok());
  c = Tiny();
  ParameterLayout layout(c);
  TransformerCore core(c, layout);
  std::vector<float> w = InitialParameters(c, 1);
  PackedRows rows = Pack({{{3, 99, 1}, {4, 1}}}, 8);
  StepContext ctx;
  EXPECT_FALSE(core.TrainStep(w.data(), rows, ctx, nullptr).ok());
  EXPECT_FALSE(core.StartDecoding(w.data(), {}).ok());
  std::vector<float> lp(13);
  std::vector<int32_t> one = {0}, parent = {-1};
  TransformerCore fresh(c, layout);
  EXPECT_FALSE(fresh.DecodeStep(0, parent, one, one, lp).ok());
}

}  // namespace
}  // namespace podbench::transformer
