// The non-GEMM kernels: hand computations, and backward passes against
// finite differences of their forward passes.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "kernels/ops/attention.h"
#include "kernels/ops/bahdanau_attention.h"
#include "kernels/ops/batch_norm.h"
#include "kernels/ops/elementwise.h"
#include "kernels/ops/embedding.h"
#include "kernels/ops/layer_norm.h"
#include "kernels/ops/lstm_cell.h"
#include "kernels/ops/optimizers.h"
#include "kernels/ops/pooling.h"
#include "kernels/ops/softmax_xent.h"
#include "kernels/ops/vector_ops.h"
#include "kernels/cpu_features.h"
#include "tests/kernels/grad_check.h"

namespace podbench::kernels {
namespace {

using testing::Dot;
using testing::ExpectGradientMatches;
using testing::RandomVec;

TEST(ElementwiseTest, HandComputed) {
  const float a[] = {1, -2, 3}, b[] = {4, 5, -6};
  float y[3];
  Add(a, b, y, 3);
  EXPECT_EQ(y[2], -3);
  Mul(a, b, y, 3);
  EXPECT_EQ(y[1], -10);
  Axpy(2, a, y, 3);
  EXPECT_EQ(y[0], 6);
  Scale(-1, a, y, 3);
  EXPECT_EQ(y[1], 2);
  Relu(a, y, 3);
  EXPECT_EQ(y[1], 0);
  EXPECT_EQ(y[2], 3);
  ReluGrad(a, b, y, 3);
  EXPECT_EQ(y[0], 4);
  EXPECT_EQ(y[1], 0);
  float m[] = {1, 2, 3, 4}, bias[] = {10, 20}, db[2];
  AddBias(bias, m, 2, 2);
  EXPECT_EQ(m[3], 24);
  BiasGrad(m, db, 2, 2);
  EXPECT_EQ(db[0], 11 + 13);
}

// Emulates a group of replicas in one process: replica r's partials are
// replaced by the sum over all replicas' partials, given in advance.
class FixedSumReducer : public BatchNormStatsReducer {
 public:
  explicit FixedSumReducer(std::vector<double> others) : others_(std::move(others)) {}
  void AllReduceSum(std::span<double> partials) override {
    ++calls;
    ASSERT_EQ(partials.size(), others_.size());
    for (std::size_t i = 0; i < partials.size(); ++i) partials[i] += others_[i];
  }
  int calls = 0;

 private:
  std::vector<double> others_;
};

TEST(BatchNormTest, TrainingForwardNormalisesAndTracksRunningStats) {
  const float x[] = {1, 10, 3, 30};  // 2 rows x 2 channels
  const float gamma[] = {1, 2}, beta[] = {0, 1};
  float y[4], mean[2], inv_std[2], rm[2] = {0, 0}, rv[2] = {1, 1};
  BatchNormParams p;
  p.epsilon = 0;
  BatchNormForwardTraining(x, 2, 2, gamma, beta, p, y, mean, inv_std, rm, rv);
  EXPECT_FLOAT_EQ(mean[0], 2);
  EXPECT_FLOAT_EQ(inv_std[0], 1);  // var 1
  EXPECT_FLOAT_EQ(y[0], -1);
  EXPECT_FLOAT_EQ(y[3], 2 * 1 + 1);
  EXPECT_FLOAT_EQ(rm[1], 0.1f * 20);
  EXPECT_FLOAT_EQ(rv[0], 0.9f + 0.1f * 2);  // unbiased variance 2
}

TEST(BatchNormTest, CrossReplicaStatisticsEqualOneBigBatch) {
  const std::int64_t c = 3, rows = 4;
  auto x = RandomVec(std::size_t(2 * rows * c), 11);
  auto dy = RandomVec(std::size_t(2 * rows * c), 12);
  const std::vector<float> gamma{1, 2, 0.5f}, beta{0, 1, -1};
  BatchNormParams p;
  // One replica with the whole batch.
  std::vector<float> y(x.size()), mean(3), is(3), rm(3), rv(3, 1.0f), dx(x.size()), dg(3), db(3);
  BatchNormForwardTraining(x.data(), 2 * rows, c, gamma.data(), beta.data(), p, y.data(), mean.data(),
                           is.data(), rm.data(), rv.data());
  BatchNormBackward(x.data(), dy.data(), 2 * rows, c, gamma.data(), mean.data(), is.data(), dx.data(),
                    dg.data(), db.data());
  // Replica 0 holds the first half; the reducer adds replica 1's partials.
  std::vector<double> fwd_other(2 * c + 1, 0.0), bwd_other(2 * c + 1, 0.0);
  for (std::int64_t r = rows; r < 2 * rows; ++r)
    for (std::int64_t j = 0; j < c; ++j) {
      const double v = x[std::size_t(r * c + j)];
      fwd_other[std::size_t(j)] += v;
      fwd_other[std::size_t(c + j)] += v * v;
      const double xhat = (v - mean[std::size_t(j)]) * is[std::size_t(j)];
      bwd_other[std::size_t(j)] += dy[std::size_t(r * c + j)];
      bwd_other[std::size_t(c + j)] += dy[std::size_t(r * c + j)] * xhat;
    }
  fwd_other[std::size_t(2 * c)] = bwd_other[std::size_t(2 * c)] = double(rows);
  FixedSumReducer fwd(fwd_other), bwd(bwd_other);
  std::vector<float> y0(std::size_t(rows * c)), mean0(3), is0(3), rm0(3), rv0(3, 1.0f),
      dx0(std::size_t(rows * c)), dg0(3), db0(3);
  BatchNormForwardTraining(x.data(), rows, c, gamma.data(), beta.data(), p, y0.data(), mean0.data(),
                           is0.data(), rm0.data(), rv0.data(), &fwd);
  BatchNormBackward(x.data(), dy.data(), rows, c, gamma.data(), mean0.data(), is0.data(), dx0.data(),
                    dg0.data(), db0.data(), &bwd);
  EXPECT_EQ(fwd.calls, 1);
  EXPECT_EQ(bwd.calls, 1);
  for (std::size_t i = 0; i < y0.size(); ++i) {
    EXPECT_NEAR(y0[i], y[i], 1e-5);
    EXPECT_NEAR(dx0[i], dx[i], 1e-5);
  }
  for (std::size_t j = 0; j < 3; ++j) {
    EXPECT_NEAR(mean0[j], mean[j], 1e-6);
    EXPECT_NEAR(rv0[j], rv[j], 1e-5);
    EXPECT_NEAR(dg0[j], dg[j], 1e-4);
    EXPECT_NEAR(db0[j], db[j], 1e-4);
  }
}

TEST(BatchNormTest, BackwardIsTheGradient) {
  const std::int64_t rows = 5, c = 3;
  auto x = RandomVec(std::size_t(rows * c), 21);
  auto r = RandomVec(x.size(), 22);
  auto gamma = RandomVec(3, 23, 0.5f, 1.5f), beta = RandomVec(3, 24);
  std::vector<float> y(x.size()), mean(3), is(3), rm(3), rv(3), dx(x.size()), dg(3), db(3);
  BatchNormParams p;
  auto loss = [&] {
    BatchNormForwardTraining(x.data(), rows, c, gamma.data(), beta.data(), p, y.data(), mean.data(),
                             is.data(), rm.data(), rv.data());
    return Dot(y, r);
  };
  loss();
  BatchNormBackward(x.data(), r.data(), rows, c, gamma.data(), mean.data(), is.data(), dx.data(),
                    dg.data(), db.data());
  ExpectGradientMatches(x, dx, loss, "dx", 1e-3, 3e-2);
  ExpectGradientMatches(gamma, dg, loss, "dgamma", 1e-3);
  ExpectGradientMatches(beta, db, loss, "dbeta", 1e-3);
  float yi[15];
  BatchNormForwardInference(x.data(), rows, c, gamma.data(), beta.data(), mean.data(), rv.data(), 0, yi);
  EXPECT_NEAR(yi[0], gamma[0] * (x[0] - mean[0]) / std::sqrt(rv[0]) + beta[0], 1e-5);
}

// A channel whose mean is far from zero against its spread (a convolution's
// output before BN often is): the forward output and the input gradient keep
// fp32 precision, as when computed from (x - mean) in double.
TEST(BatchNormTest, LargeMeanKeepsPrecision) {
  const std::int64_t rows = 64, c = 2;
  std::mt19937 rng(5);
  std::normal_distribution<float> d(0.f, 1.f);
  std::vector<float> x(std::size_t(rows * c)), dy(x.size());
  for (std::int64_t r = 0; r < rows; ++r) {
    x[std::size_t(r * c)] = 3000.f + 0.01f * d(rng);  // mean / std = 3e5
    x[std::size_t(r * c + 1)] = -40.f + 0.001f * d(rng);
  }
  for (float& e : dy) e = d(rng);
  const std::vector<float> gamma = {1.3f, 0.7f}, beta = {0.2f, -0.1f};
  std::vector<float> y(x.size()), mean(2), is(2), rm(2, 0.f), rv(2, 1.f), dx(x.size()), dg(2), db(2);
  BatchNormParams p;
  p.epsilon = 0;
  BatchNormForwardTraining(x.data(), rows, c, gamma.data(), beta.data(), p, y.data(), mean.data(), is.data(),
                           rm.data(), rv.data());
  BatchNormBackward(x.data(), dy.data(), rows, c, gamma.data(), mean.data(), is.data(), dx.data(), dg.data(),
                    db.data());
  for (std::int64_t j = 0; j < c; ++j) {
    // The reference in double, centred on the same float mean the kernel uses.
    double ss = 0, sdy = 0, sdyxh = 0, ymax = 0, dxmax = 0;
    for (std::int64_t r = 0; r < rows; ++r) {
      const double v = double(x[std::size_t(r * c + j)]) - mean[std::size_t(j)];
      ss += v * v;
    }
    const double inv = 1.0 / std::sqrt(ss / rows);
    std::vector<double> xh(static_cast<std::size_t>(rows));
    for (std::int64_t r = 0; r < rows; ++r) {
      xh[std::size_t(r)] = (double(x[std::size_t(r * c + j)]) - mean[std::size_t(j)]) * inv;
      sdy += dy[std::size_t(r * c + j)];
      sdyxh += dy[std::size_t(r * c + j)] * xh[std::size_t(r)];
    }
    const double g = gamma[std::size_t(j)];
    for (std::int64_t r = 0; r < rows; ++r) {
      const double want_y = g * xh[std::size_t(r)] + beta[std::size_t(j)];
      const double want_dx = g * inv * (dy[std::size_t(r * c + j)] - (sdy + xh[std::size_t(r)] * sdyxh) / rows);
      ymax = std::max(ymax, std::abs(y[std::size_t(r * c + j)] - want_y));
      dxmax = std::max(dxmax, std::abs(dx[std::size_t(r * c + j)] - want_dx) / (std::abs(want_dx) + g * inv * 1e-3));
    }
    EXPECT_LT(ymax, 1e-3) << "channel " << j;
    EXPECT_LT(dxmax, 1e-2) << "channel " << j;
  }
}

TEST(PoolingTest, MaxAndAverageHandComputed) {
  Pool2dShape s;
  s.h = s.w = 3;
  s.kh = s.kw = 2;
  s.stride = 1;
  const float x[] = {1, 5, 2, 4, 3, 9, 0, 8, 7};
  float y[4];
  MaxPoolForward(s, x, y);
  EXPECT_EQ(y[0], 5);
  EXPECT_EQ(y[1], 9);
  EXPECT_EQ(y[2], 8);
  AvgPoolForward(s, x, y);
  EXPECT_FLOAT_EQ(y[0], 13.0f / 4);
  s.pad = 1;
  s.stride = 2;  // 2x2 output; the corner window sees one element
  AvgPoolForward(s, x, y);
  EXPECT_FLOAT_EQ(y[0], 1);
  float g[] = {1, 1, 1, 1}, dx[9];
  AvgPoolBackward(s, g, dx);
  EXPECT_FLOAT_EQ(dx[0], 1);
  EXPECT_FLOAT_EQ(dx[1], 0.5f);
}

TEST(PoolingTest, BackwardIsTheGradient) {
  Pool2dShape s;
  s.n = 2;
  s.h = 7;
  s.w = 6;
  s.c = 3;
  s.kh = s.kw = 3;
  s.stride = 2;
  s.pad = 1;
  const std::size_t ny = std::size_t(s.n * s.OutH() * s.OutW() * s.c);
  auto x = RandomVec(std::size_t(s.n * s.h * s.w * s.c), 31);
  auto r = RandomVec(ny, 32);
  std::vector<float> y(ny), dx(x.size());
  auto max_loss = [&] {
    MaxPoolForward(s, x.data(), y.data());
    return Dot(y, r);
  };
  MaxPoolBackward(s, x.data(), r.data(), dx.data());
  ExpectGradientMatches(x, dx, max_loss, "max pool", 1e-4);
  auto avg_loss = [&] {
    AvgPoolForward(s, x.data(), y.data());
    return Dot(y, r);
  };
  AvgPoolBackward(s, r.data(), dx.data());
  ExpectGradientMatches(x, dx, avg_loss, "avg pool");
  std::vector<float> gy(6), gdx(x.size());
  auto gr = RandomVec(6, 33);
  auto gap_loss = [&] {
    GlobalAvgPoolForward(x.data(), 2, 42, 3, gy.data());
    return Dot(gy, gr);
  };
  GlobalAvgPoolBackward(gr.data(), 2, 42, 3, gdx.data());
  ExpectGradientMatches(x, gdx, gap_loss, "global avg pool");
}

// Max pooling's gradient goes to the first maximum of each window, ties and
// NaN included, exactly as a direct per-channel loop over the window decides.
TEST(PoolingTest, MaxBackwardPicksTheFirstMaximumLikeADirectLoop) {
  Pool2dShape s;
  s.n = 2;
  s.h = 9;
  s.w = 8;
  s.c = 37;  // vector bodies and tails on every ISA
  s.kh = s.kw = 3;
  s.stride = 2;
  s.pad = 1;
  std::vector<float> x(std::size_t(s.n * s.h * s.w * s.c));
  std::mt19937 rng(5);
  std::uniform_int_distribution<int> level(0, 3);  // few distinct values: many ties
  for (float& v : x) v = float(level(rng));
  x[100] = std::numeric_limits<float>::quiet_NaN();
  x[s.c * 5 + 3] = std::numeric_limits<float>::quiet_NaN();
  const std::int64_t oh = s.OutH(), ow = s.OutW();
  std::vector<float> dy(std::size_t(s.n * oh * ow * s.c));
  for (std::size_t i = 0; i < dy.size(); ++i) dy[i] = float(i % 13) + 0.25f;
  std::vector<float> want(x.size(), 0.0f), got(x.size(), 7.0f), y(dy.size());
  for (std::int64_t b = 0; b < s.n; ++b)
    for (std::int64_t i = 0; i < oh; ++i)
      for (std::int64_t j = 0; j < ow; ++j)
        for (std::int64_t ch = 0; ch < s.c; ++ch) {
          std::int64_t best = -1;
          for (std::int64_t r = 0; r < s.kh; ++r)
            for (std::int64_t q = 0; q < s.kw; ++q) {
              const std::int64_t hi = i * s.stride + r - s.pad, wi = j * s.stride + q - s.pad;
              if (hi < 0 || hi >= s.h || wi < 0 || wi >= s.w) continue;
              const std::int64_t at = ((b * s.h + hi) * s.w + wi) * s.c + ch;
              if (best < 0 || x[std::size_t(at)] > x[std::size_t(best)]) best = at;
            }
          want[std::size_t(best)] += dy[std::size_t(((b * oh + i) * ow + j) * s.c + ch)];
        }
  MaxPoolBackward(s, x.data(), dy.data(), got.data());
  for (std::size_t i = 0; i < x.size(); ++i) {
    ASSERT_EQ(std::bit_cast<std::uint32_t>(got[i]), std::bit_cast<std::uint32_t>(want[i])) << "at " << i;
  }
  MaxPoolForward(s, x.data(), y.data());
  EXPECT_EQ(y[0], std::max({x[0], x[std::size_t(s.c)], x[std::size_t(s.w * s.c)], x[std::size_t((s.w + 1) * s.c)]}));
}

TEST(SoftmaxXentTest, HandComputedWithLabelSmoothing) {
  const float logits[] = {0, 0, 0, 0};  // uniform softmax over 4 classes
  const std::int32_t label = 2;
  float d[4];
  EXPECT_NEAR(SoftmaxCrossEntropy(logits, &label, 1, 4, 0.0f, d), std::log(4.0), 1e-9);
  EXPECT_FLOAT_EQ(d[2], 0.25f - 1);
  EXPECT_FLOAT_EQ(d[0], 0.25f);
  // smoothing 0.4: target 0.7 on the label, 0.1 elsewhere; the loss is still log 4.
  EXPECT_NEAR(SoftmaxCrossEntropy(logits, &label, 1, 4, 0.4f, d), std::log(4.0), 1e-6);
  EXPECT_FLOAT_EQ(d[2], 0.25f - 0.7f);
  EXPECT_FLOAT_EQ(d[1], 0.25f - 0.1f);
}

TEST(SoftmaxXentTest, GradientMatches) {
  auto z = RandomVec(3 * 7, 41, -3, 3);
  const std::int32_t labels[] = {0, 6, 3};
  std::vector<float> d(z.size());
  SoftmaxCrossEntropy(z.data(), labels, 3, 7, 0.1f, d.data());
  ExpectGradientMatches(z, d, [&] { return SoftmaxCrossEntropy(z.data(), labels, 3, 7, 0.1f, nullptr); },
                        "dlogits", 1e-3);
}

TEST(SoftmaxTest, MaskAndBackward) {
  float x[] = {1, 2, 3, 4, 5, 6};
  const std::uint8_t mask[] = {1, 1, 0, 0, 0, 0};
  MaskedSoftmax(x, mask, 2, 3);
  EXPECT_NEAR(x[0], 1 / (1 + std::exp(1.0)), 1e-6);
  EXPECT_EQ(x[2], 0);
  EXPECT_EQ(x[4], 0);  // a fully masked row is zeros
  auto z = RandomVec(8, 42), r = RandomVec(8, 43);
  std::vector<float> y(8), dz(8);
  auto loss = [&] {
    y = z;
    MaskedSoftmax(y.data(), nullptr, 2, 4);
    return Dot(y, r);
  };
  loss();
  SoftmaxBackward(y.data(), r.data(), dz.data(), 2, 4);
  ExpectGradientMatches(z, dz, loss, "softmax", 1e-3);
}

TEST(LayerNormTest, ForwardAndGradient) {
  const std::int64_t rows = 3, cols = 5;
  auto x = RandomVec(std::size_t(rows * cols), 51), r = RandomVec(x.size(), 52);
  auto gamma = RandomVec(5, 53, 0.5f, 1.5f), beta = RandomVec(5, 54);
  std::vector<float> y(x.size()), mean(3), is(3), dx(x.size()), dg(5), db(5);
  auto loss = [&] {
    LayerNormForward(x.data(), rows, cols, gamma.data(), beta.data(), 1e-5f, y.data(), mean.data(), is.data());
    return Dot(y, r);
  };
  loss();
  double row_mean = 0;
  for (int j = 0; j < 5; ++j) row_mean += (y[std::size_t(j)] - beta[std::size_t(j)]) / gamma[std::size_t(j)];
  EXPECT_NEAR(row_mean, 0, 1e-5);
  LayerNormBackward(x.data(), r.data(), rows, cols, gamma.data(), mean.data(), is.data(), dx.data(),
                    dg.data(), db.data());
  ExpectGradientMatches(x, dx, loss, "dx", 1e-3, 3e-2);
  ExpectGradientMatches(gamma, dg, loss, "dgamma", 1e-3);
  ExpectGradientMatches(beta, db, loss, "dbeta", 1e-3);
}

TEST(EmbeddingTest, LookupAndRepeatedIdsAccumulate) {
  const float table[] = {0, 1, 10, 11, 20, 21};  // vocab 3, dim 2
  const std::int32_t ids[] = {2, 0, 2};
  float y[6];
  EmbeddingLookup(table, 3, 2, ids, 3, y);
  EXPECT_EQ(y[0], 20);
  EXPECT_EQ(y[3], 1);
  const float dy[] = {1, 2, 3, 4, 5, 6};
  float dt[6] = {};
  EmbeddingGrad(dy, ids, 3, 3, 2, dt);
  EXPECT_EQ(dt[4], 1 + 5);
  EXPECT_EQ(dt[5], 2 + 6);
  EXPECT_EQ(dt[0], 3);
  EXPECT_EQ(dt[2], 0);
}

TEST(AttentionTest, MaskedForwardAndGradient) {
  AttentionShape s;
  s.batch = 2;
  s.tq = 3;
  s.tk = 5;
  s.d = 4;
  s.dv = 6;
  auto q = RandomVec(std::size_t(s.batch * s.tq * s.d), 61), k = RandomVec(std::size_t(s.batch * s.tk * s.d), 62),
       v = RandomVec(std::size_t(s.batch * s.tk * s.dv), 63), r = RandomVec(std::size_t(s.batch * s.tq * s.dv), 64);
  std::vector<std::uint8_t> mask(std::size_t(s.batch * s.tq * s.tk), 1);
  for (std::int64_t i = 0; i < s.tq; ++i) mask[std::size_t(i * s.tk + 4)] = 0;  // batch 0 ignores key 4
  std::vector<float> p(std::size_t(s.batch * s.tq * s.tk)), o(r.size());
  const float scale = 0.5f;
  auto loss = [&] {
    AttentionForward(s, q.data(), k.data(), v.data(), mask.data(), scale, p.data(), o.data(), 1);
    return Dot(o, r);
  };
  loss();
  EXPECT_EQ(p[4], 0);
  double row = 0;
  for (int j = 0; j < 5; ++j) row += p[std::size_t(j)];
  EXPECT_NEAR(row, 1, 1e-6);
  std::vector<float> dq(q.size()), dk(k.size()), dv(v.size());
  AttentionBackward(s, q.data(), k.data(), v.data(), p.data(), r.data(), scale, dq.data(), dk.data(),
                    dv.data(), 2);
  ExpectGradientMatches(q, dq, loss, "dq", 1e-3);
  ExpectGradientMatches(k, dk, loss, "dk", 1e-3);
  ExpectGradientMatches(v, dv, loss, "dv", 1e-3);
}

TEST(LstmCellTest, GradientMatches) {
  LstmShape s;
  s.batch = 2;
  s.input = 3;
  s.hidden = 4;
  const std::size_t nh = std::size_t(s.batch * s.hidden);
  auto x = RandomVec(std::size_t(s.batch * s.input), 71), h = RandomVec(nh, 72), c = RandomVec(nh, 73);
  auto w = RandomVec(std::size_t((s.input + s.hidden) * 4 * s.hidden), 74), b = RandomVec(16, 75);
  auto rh = RandomVec(nh, 76), rc = RandomVec(nh, 77);
  std::vector<float> gates(std::size_t(s.batch * 4 * s.hidden)), co(nh), ho(nh);
  auto loss = [&] {
    LstmCellForward(s, x.data(), h.data(), c.data(), w.data(), b.data(), gates.data(), co.data(), ho.data(), 1);
    return Dot(ho, rh) + Dot(co, rc);
  };
  loss();
  std::vector<float> dx(x.size()), dh(nh), dc(nh), dw(w.size(), 0.0f), db(16, 0.0f);
  LstmCellBackward(s, x.data(), h.data(), c.data(), w.data(), gates.data(), co.data(), rh.data(), rc.data(),
                   dx.data(), dh.data(), dc.data(), dw.data(), db.data(), 1);
  ExpectGradientMatches(x, dx, loss, "dx", 1e-3);
  ExpectGradientMatches(h, dh, loss, "dh", 1e-3);
  ExpectGradientMatches(c, dc, loss, "dc", 1e-3);
  ExpectGradientMatches(w, dw, loss, "dw", 1e-3);
  ExpectGradientMatches(b, db, loss, "db", 1e-3);
}

// The gate activations against the C library's: the polynomial sigmoid and
// tanh stay within a few float ulps, saturating cleanly far out.
TEST(LstmCellTest, GatesMatchTheLibraryFunctions) {
  LstmShape s;
  s.batch = 3;
  s.input = 1;
  s.hidden = 5;
  std::vector<float> x(3, 0.0f), h(15, 0.0f), c = RandomVec(15, 5), w(6 * 20, 0.0f);
  auto b = RandomVec(20, 6, -30, 30);
  b[0] = -200;
  b[5] = 200;
  b[10] = 1e-6f;
  std::vector<float> gates(60), co(15), ho(15);
  LstmCellForward(s, x.data(), h.data(), c.data(), w.data(), b.data(), gates.data(), co.data(), ho.data(), 1);
  auto sig = [](double z) { return 1 / (1 + std::exp(-z)); };
  for (int r = 0; r < 3; ++r) {
    for (int j = 0; j < 5; ++j) {
      const double i = sig(b[std::size_t(j)]), f = sig(b[std::size_t(5 + j)]), g = std::tanh(b[std::size_t(10 + j)]),
                   o = sig(b[std::size_t(15 + j)]);
      const std::size_t at = std::size_t(r * 20 + j);
      EXPECT_NEAR(gates[at], i, 1e-6) << j;
      EXPECT_NEAR(gates[at + 5], f, 1e-6) << j;
      EXPECT_NEAR(gates[at + 10], g, 1e-6) << j;
      EXPECT_NEAR(gates[at + 15], o, 1e-6) << j;
      const double cn = f * c[std::size_t(r * 5 + j)] + i * g;
      EXPECT_NEAR(co[std::size_t(r * 5 + j)], cn, 1e-6);
      EXPECT_NEAR(ho[std::size_t(r * 5 + j)], o * std::tanh(cn), 1e-6);
    }
  }
  EXPECT_LT(gates[0], 1e-37f) << "sigmoid(-200) saturates to 0 (the exponent is clamped at 88.3)";
  EXPECT_GE(gates[0], 0.0f);
  EXPECT_EQ(gates[5], 1.0f) << "sigmoid(200) saturates to 1";
}

// The MXU contract: the gate matmuls on bf16-rounded operands. Equal to the
// fp32 cell run on operands rounded first, and near the unrounded one.
TEST(LstmCellTest, Bf16GateMatmulsRoundTheOperands) {
  LstmShape s;
  s.batch = 4;
  s.input = 6;
  s.hidden = 8;
  auto x = RandomVec(24, 81), h = RandomVec(32, 82), c = RandomVec(32, 83), w = RandomVec(14 * 32, 84),
       b = RandomVec(32, 85);
  std::vector<float> g1(128), c1(32), h1(32), g2(128), c2(32), h2(32), g3(128), c3(32), h3(32);
  LstmCellForward(s, x.data(), h.data(), c.data(), w.data(), b.data(), g1.data(), c1.data(), h1.data(), 1,
                  Precision::kBf16);
  auto round = [](std::vector<float> v) {
    for (float& e : v) e = RoundToBf16(e);
    return v;
  };
  const auto xr = round(x), hr = round(h), wr = round(w);
  LstmCellForward(s, xr.data(), hr.data(), c.data(), wr.data(), b.data(), g2.data(), c2.data(), h2.data(), 1,
                  Precision::kF32);
  LstmCellForward(s, x.data(), h.data(), c.data(), w.data(), b.data(), g3.data(), c3.data(), h3.data(), 1,
                  Precision::kF32);
  for (std::size_t i = 0; i < 32; ++i) {
    EXPECT_NEAR(h1[i], h2[i], 1e-5) << i;
    EXPECT_NEAR(h1[i], h3[i], 2e-2) << i;
  }
}

// Normalized Bahdanau attention against finite differences: keys, values,
// the query, v, g and the bias; a short row leaves its padding untouched.
TEST(BahdanauAttentionTest, MaskedForwardAndGradient) {
  BahdanauShape s;
  s.batch = 2;
  s.time = 4;
  s.units = 3;
  s.depth = 5;
  const std::int32_t lengths[] = {4, 2};
  auto keys = RandomVec(24, 91), values = RandomVec(40, 92), q = RandomVec(6, 93), v = RandomVec(3, 94),
       bias = RandomVec(3, 95), r = RandomVec(10, 96);
  std::vector<float> g = {0.7f};
  std::vector<float> th(24), p(8), ctx(10);
  auto loss = [&] {
    BahdanauForward(s, keys.data(), values.data(), q.data(), v.data(), g[0], bias.data(), lengths, th.data(),
                    p.data(), ctx.data());
    return Dot(ctx, r);
  };
  loss();
  EXPECT_EQ(p[6], 0.0f);
  EXPECT_EQ(p[7], 0.0f);
  EXPECT_NEAR(p[4] + p[5], 1.0, 1e-6);
  std::vector<float> dk(24, 0.0f), dval(40, 0.0f), dq(6), dv(3, 0.0f), dg(1, 0.0f), db(3, 0.0f);
  BahdanauBackward(s, values.data(), v.data(), g[0], lengths, th.data(), p.data(), r.data(), dk.data(),
                   dval.data(), dq.data(), dv.data(), dg.data(), db.data());
  for (std::size_t i = 6 * 3; i < 24; ++i) EXPECT_EQ(dk[i], 0.0f) << "padding key " << i;
  ExpectGradientMatches(keys, dk, loss, "dkeys", 1e-3);
  ExpectGradientMatches(values, dval, loss, "dvalues", 1e-3);
  ExpectGradientMatches(q, dq, loss, "dq", 1e-3);
  ExpectGradientMatches(v, dv, loss, "dv", 1e-3);
  ExpectGradientMatches(g, dg, loss, "dg", 1e-3);
  ExpectGradientMatches(bias, db, loss, "dbias", 1e-3);
}

TEST(OptimizerTest, SgdMomentumHandComputed) {
  float w[] = {1}, g[] = {0.5f}, v[] = {2};
  SgdMomentumUpdate(w, g, v, 1, 0.1f, 0.9f, 0.1f);
  EXPECT_FLOAT_EQ(v[0], 0.9f * 2 + 0.5f + 0.1f);
  EXPECT_FLOAT_EQ(w[0], 1 - 0.1f * v[0]);
}

TEST(OptimizerTest, LarsTrustRatio) {
  float w[] = {3, 4}, g[] = {0, 1}, v[] = {0, 0};  // ||w|| = 5, ||g|| = 1
  const float trust = LarsUpdate(w, g, v, 2, 1.0f, 0.9f, 0.0f, 0.001f, 0.0f);
  EXPECT_FLOAT_EQ(trust, 0.001f * 5);
  EXPECT_FLOAT_EQ(w[1], 4 - 0.005f);
  float z[] = {0, 0}, zv[] = {0, 0};
  EXPECT_EQ(LarsUpdate(z, g, zv, 2, 1.0f, 0.9f, 0.0f, 0.001f, 0.0f), 1.0f);  // ||w|| = 0
}

TEST(OptimizerTest, LarsEpsilonEntersTheTrustRatioDenominator) {
  // eta * ||w|| / (||g|| + wd * ||w|| + eps) = 0.001 * 5 / (1 + 0.1 * 5 + 0.5) = 0.0025.
  float w[] = {3, 4}, g[] = {0, 1}, v[] = {0, 0};
  EXPECT_FLOAT_EQ(LarsUpdate(w, g, v, 2, 1.0f, 0.9f, 0.1f, 0.001f, 0.5f), 0.0025f);
  EXPECT_FLOAT_EQ(LarsTrustRatio(5, 1, 0.1f, 0.001f, 0.0f), 0.001f * 5 / 1.5f);
  EXPECT_EQ(LarsTrustRatio(5, 0, 0.1f, 0.001f, 0.5f), 1.0f);  // ||g|| = 0
}

TEST(OptimizerTest, AdamFirstStepMovesByLr) {
  float w[] = {1, 1}, g[] = {0.3f, -2}, m[] = {0, 0}, v[] = {0, 0};
  AdamParams p;
  p.lr = 0.01f;
  AdamUpdate(w, g, m, v, 2, p, 1);
  // With bias correction the first step is lr * sign(g) (up to epsilon).
  EXPECT_NEAR(w[0], 1 - 0.01, 1e-6);
  EXPECT_NEAR(w[1], 1 + 0.01, 1e-6);
}

}  // namespace
}  // namespace podbench::kernels

namespace podbench::kernels {
namespace {

// The producers of bf16 activations write exactly RoundToBf16 of what they
// write in fp32: ReLU (ties, NaNs: 0, infinities, denormals, the largest
// finite value, which rounds to infinity) and the batch-norm input gradient.
TEST(Bf16ValuesTest, ProducersRoundWhatTheyWrite) {
  std::vector<float> x;
  for (std::uint32_t bits : {0x3f808000u, 0x3f818000u, 0x3f807fffu, 0x7f7fffffu, 0x7f800000u, 0xff800000u,
                             0x7fc00000u, 0xffc00001u, 0x7f800001u, 0x00000001u, 0x807fffffu, 0x00000000u}) {
    x.push_back(std::bit_cast<float>(bits));
  }
  std::mt19937 rng(23);
  std::normal_distribution<float> d;
  while (x.size() < 999) x.push_back(d(rng));
  const std::int64_t n = std::int64_t(x.size());
  std::vector<float> plain(x.size()), rounded(x.size());
  Relu(x.data(), plain.data(), n);
  Relu(x.data(), rounded.data(), n, Values::kBf16);
  for (std::size_t i = 0; i < x.size(); ++i) {
    ASSERT_EQ(std::bit_cast<std::uint32_t>(rounded[i]), std::bit_cast<std::uint32_t>(RoundToBf16(plain[i])))
        << "relu of bits " << std::hex << std::bit_cast<std::uint32_t>(x[i]);
  }
  EXPECT_TRUE(SampledBf16Values(rounded.data(), n, n));
  EXPECT_FALSE(SampledBf16Values(plain.data(), n, n));

  // The normal draws past the specials; 27 channels run per row, 8 on flattened blocks.
  for (std::int64_t channels : {std::int64_t{27}, std::int64_t{8}}) {
    const std::int64_t r = (n - 12) / channels;
    std::vector<float> xs(x.begin() + 12, x.begin() + 12 + r * channels), dy(xs.size());
    for (float& e : dy) e = d(rng);
    const std::size_t nc = std::size_t(channels);
    std::vector<float> gamma(nc, 1.3f), beta(nc, 0.2f), y(xs.size()), mean(nc), inv_std(nc), rm(nc), rv(nc, 1.f);
    BatchNormForwardTraining(xs.data(), r, channels, gamma.data(), beta.data(), {}, y.data(), mean.data(),
                             inv_std.data(), rm.data(), rv.data());
    std::vector<float> dx(xs.size()), dx_bf16(xs.size()), dg(2 * std::size_t(channels)), dg_bf16(dg.size());
    BatchNormBackward(xs.data(), dy.data(), r, channels, gamma.data(), mean.data(), inv_std.data(), dx.data(),
                      dg.data(), dg.data() + channels);
    BatchNormBackward(xs.data(), dy.data(), r, channels, gamma.data(), mean.data(), inv_std.data(), dx_bf16.data(),
                      dg_bf16.data(), dg_bf16.data() + channels, nullptr, Values::kBf16);
    EXPECT_EQ(dg_bf16, dg) << "the parameter gradients stay fp32";
    for (std::size_t i = 0; i < dx.size(); ++i) {
      ASSERT_EQ(std::bit_cast<std::uint32_t>(dx_bf16[i]), std::bit_cast<std::uint32_t>(RoundToBf16(dx[i])))
          << "c " << channels << " at " << i;
    }
  }
}

// Every ISA build of the op loops gives the baseline's bits (odd sizes, so
// vector bodies and tails both run; c = 8 and 37 channels).
TEST(VectorOpsTest, EveryIsaMatchesTheBaselineBitForBit) {
  using ops_internal::VectorOps;
  struct Variant {
    const char* name;
    Isa isa;
    VectorOps ops;
  };
  const Variant variants[] = {{"avx2", Isa::kAvx2Fma, ops_internal::VectorOps_Avx2()},
                              {"avx512f", Isa::kAvx512f, ops_internal::VectorOps_Avx512f()}};
  const VectorOps base = ops_internal::VectorOps_Baseline();
  for (std::int64_t c : {8, 37, 80}) {
    const std::int64_t rows = 53, n = rows * c;
    std::mt19937 rng(static_cast<std::uint32_t>(c));
    std::normal_distribution<float> d;
    std::vector<float> x(static_cast<std::size_t>(n)), dy(static_cast<std::size_t>(n)), gamma(static_cast<std::size_t>(c)), beta(static_cast<std::size_t>(c)),
        mean(static_cast<std::size_t>(c)), inv_std(static_cast<std::size_t>(c));
    for (auto* v : {&x, &dy, &gamma, &beta, &mean}) {
      for (float& e : *v) e = d(rng);
    }
    for (float& e : inv_std) e = 0.5f + std::abs(d(rng));
    for (const Variant& v : variants) {
      if (!CpuSupports(v.isa)) continue;
      auto same = [&](auto run, const char* what) {
        std::vector<float> want(static_cast<std::size_t>(n), 1.5f), got(static_cast<std::size_t>(n), 1.5f);
        run(base, want.data());
        run(v.ops, got.data());
        for (std::size_t i = 0; i < want.size(); ++i) {
          ASSERT_EQ(std::bit_cast<std::uint32_t>(got[i]), std::bit_cast<std::uint32_t>(want[i]))
              << v.name << " " << what << " c=" << c << " at " << i;
        }
      };
      same([&](const VectorOps& o, float* y) { o.add(x.data(), dy.data(), y, n); }, "add");
      same([&](const VectorOps& o, float* y) { o.mul(x.data(), dy.data(), y, n); }, "mul");
      same([&](const VectorOps& o, float* y) { o.axpy(0.3f, x.data(), y, n); }, "axpy");
      same([&](const VectorOps& o, float* y) { o.scale(0.3f, x.data(), y, n); }, "scale");
      same([&](const VectorOps& o, float* y) { o.relu(x.data(), y, n); }, "relu");
      same([&](const VectorOps& o, float* y) { o.relu_bf16(x.data(), y, n); }, "relu_bf16");
      same([&](const VectorOps& o, float* y) { o.relu_grad(x.data(), dy.data(), y, n); }, "relu_grad");
      same([&](const VectorOps& o, float* y) { o.add_bias(beta.data(), y, rows, c); }, "add_bias");
      same([&](const VectorOps& o, float* y) {
        o.bn_affine(x.data(), rows, c, mean.data(), gamma.data(), beta.data(), y);
      }, "bn_affine");
      same([&](const VectorOps& o, float* y) {
        o.bn_backward_affine(x.data(), dy.data(), rows, c, mean.data(), gamma.data(), beta.data(), inv_std.data(), y);
      }, "bn_backward_affine");
      same([&](const VectorOps& o, float* y) {
        o.bn_backward_affine_bf16(x.data(), dy.data(), rows, c, mean.data(), gamma.data(), beta.data(),
                                  inv_std.data(), y);
      }, "bn_backward_affine_bf16");
      same([&](const VectorOps& o, float* y) {
        for (std::int64_t r = 0; r < rows; ++r) o.max_into(x.data() + r * c, y, c);
        for (std::int64_t r = 0; r < rows; ++r) o.max_into(dy.data() + r * c, y + c, c);
      }, "max_into");
      same([&](const VectorOps& o, float* y) {
        std::vector<std::int64_t> at(static_cast<std::size_t>(c), -1);
        std::copy_n(x.data(), c, y);
        for (std::int64_t r = 1; r < rows; ++r) o.argmax_into(x.data() + r * c, r, y, at.data(), c);
        for (std::int64_t j = 0; j < c; ++j) y[c + j] = float(at[std::size_t(j)]);
      }, "argmax_into");
      same([&](const VectorOps& o, float* y) { o.tanh(x.data(), y, n); }, "tanh");
      // LSTM gates: lrows x 4c pre-activations (scaled so some saturate),
      // bias x[1..4c]; outputs (at most 6c lrows values) packed into y.
      const std::int64_t lrows = n / (6 * c);
      same([&](const VectorOps& o, float* y) {
        std::vector<float> z(x.begin(), x.begin() + 4 * c * lrows);
        for (float& e : z) e *= 9.0f;
        o.lstm_gates(x.data() + 1, z.data(), dy.data(), y, y + c * lrows, lrows, c);
        std::copy(z.begin(), z.end(), y + 2 * c * lrows);
      }, "lstm_gates");
      same([&](const VectorOps& o, float* y) {
        std::vector<float> z(x.begin(), x.begin() + 4 * c * lrows), co(std::size_t(c * lrows)),
            ho(std::size_t(c * lrows));
        base.lstm_gates(x.data(), z.data(), dy.data(), co.data(), ho.data(), lrows, c);
        o.lstm_gates_grad(z.data(), dy.data(), co.data(), x.data(), dy.data() + 1, y, y + 4 * c * lrows, lrows, c);
      }, "lstm_gates_grad");
      same([&](const VectorOps& o, float* y) {
        std::vector<double> s(static_cast<std::size_t>(2 * c), 0.0);
        o.bn_stats(x.data(), rows, c, s.data());
        o.bn_backward_stats(x.data(), dy.data(), rows, c, s.data());
        for (std::int64_t j = 0; j < 2 * c; ++j) y[j] = float(s[std::size_t(j)] * 1e-3);
      }, "bn sums");
    }
  }
}

}  // namespace
}  // namespace podbench::kernels
