// Functional Transformer training: 8 emulated cores match one core at the
// same global batch, weight-update sharding matches the replicated update
// (within 1e-6 relative after several steps), the learning-rate schedule is
// Google's, and beam-search translation runs over the cores.
#include <cmath>
#include <cstdlib>
#include <iostream>

#include <gtest/gtest.h>

#include "tests/kernels/pin_gemm.h"
#include "workloads/transformer/transformer_functional.h"
#include "workloads/translation/dataset.h"

namespace podbench::transformer {
namespace {

struct Data {
  translation::TranslationData d;
  translation::PackedRows rows;
};

const Data& SmallData() {
  static const Data* data = [] {
    translation::TranslationDataSpec spec;
    spec.train_sentences = 400;
    spec.eval_sentences = 20;
    spec.vocab_size = 120;
    spec.max_length = 40;
    auto d = translation::MakeTranslationData(spec);
    EXPECT_TRUE(d.ok()) << d.status().ToString();
    auto rows = translation::PackExamples(d->train[0], 48);
    EXPECT_TRUE(rows.ok());
    return new Data{std::move(d).value(), std::move(rows).value()};
  }();
  return *data;
}

FunctionalConfig Config(int cores, bool sharded, float dropout) {
  FunctionalConfig c;
  c.model.vocab = SmallData().d.vocab.size();
  c.model.hidden = 16;
  c.model.heads = 2;
  c.model.filter = 32;
  c.model.encoder_layers = c.model.decoder_layers = 1;
  c.model.dropout = dropout;
  c.parallel.cores = cores;
  c.parallel.slice = cores > 1 ? "tpu-v3-" + std::to_string(cores) : "";
  c.parallel.weight_update_sharding = sharded;
  c.global_batch = 8;
  c.seed = 3;
  return c;
}

// Trains `steps` steps on consecutive batches; returns the weights.
std::vector<float> Train(const FunctionalConfig& cfg, int steps, std::vector<double>* losses,
                         std::unique_ptr<FunctionalTransformer>* keep = nullptr) {
  auto t = FunctionalTransformer::Create(cfg);
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  if (!t.ok()) return {};
  const auto& rows = SmallData().rows;
  std::vector<int64_t> order(static_cast<size_t>(rows.rows));
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int64_t>(i);
  LearningRateSchedule lr{2.0, 100, cfg.model.hidden};
  translation::PackedRows batch;
  for (int s = 0; s < steps; ++s) {
    rows.Gather(order, s * cfg.global_batch, cfg.global_batch, &batch);
    auto loss = (*t)->ComputeGradients(batch);
    EXPECT_TRUE(loss.ok()) << loss.status().ToString();
    if (!loss.ok()) return {};
    losses->push_back(*loss);
    EXPECT_TRUE((*t)->Update(lr.At(s + 1)).ok());
  }
  std::vector<float> w((*t)->weights(0), (*t)->weights(0) + (*t)->num_parameters());
  if (keep) *keep = std::move(*t);
  return w;
}

// ||a - b|| / ||b|| and max |a - b| / max |b|.
std::pair<double, double> Relative(const std::vector<float>& a, const std::vector<float>& b) {
  double diff = 0, norm = 0, max_diff = 0, max_b = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    const double e = static_cast<double>(a[i]) - b[i];
    diff += e * e;
    norm += static_cast<double>(b[i]) * b[i];
    max_diff = std::max(max_diff, std::abs(e));
    max_b = std::max(max_b, static_cast<double>(std::abs(b[i])));
  }
  return {std::sqrt(diff / norm), max_diff / max_b};
}

// The equivalence tests pin one GEMM variant per family (tests/kernels/
// pin_gemm.h): Adam magnifies the variants' different rounding in near-zero
// gradients past the bounds below.
TEST(FunctionalTransformerTest, EightCoresMatchOneCore) {
  kernels::testing::PinGemmVariants();
  std::vector<double> l1, l8;
  const auto w1 = Train(Config(1, false, 0), 4, &l1);
  const auto w8 = Train(Config(8, false, 0), 4, &l8);
  ASSERT_EQ(w1.size(), w8.size());
  ASSERT_FALSE(w1.empty());
  for (size_t s = 0; s < l1.size(); ++s) EXPECT_NEAR(l1[s], l8[s], 1e-5 * l1[s]) << "step " << s;
  const auto [l2, linf] = Relative(w8, w1);
  EXPECT_LT(l2, 1e-5);
  std::cout << "8 cores vs 1 core after 4 steps: relative weight difference " << l2 << " (L2), " << linf
            << " (max)\n";
  EXPECT_LT(l1.back(), l1.front());  // it learns
}

TEST(FunctionalTransformerTest, WeightUpdateShardingMatchesTheReplicatedUpdate) {
  kernels::testing::PinGemmVariants();
  const int steps = 6;
  std::vector<double> lr, ls;
  std::unique_ptr<FunctionalTransformer> sharded;
  const auto wr = Train(Config(8, false, 0.1f), steps, &lr);
  const auto ws = Train(Config(8, true, 0.1f), steps, &ls, &sharded);
  ASSERT_EQ(wr.size(), ws.size());
  ASSERT_FALSE(wr.empty());
  for (int s = 0; s < steps; ++s) EXPECT_NEAR(lr[s], ls[s], 1e-6 * lr[s]) << "step " << s;
  const auto [l2, linf] = Relative(ws, wr);
  EXPECT_LT(l2, 1e-6);
  EXPECT_LT(linf, 1e-6);
  std::cout << "weight-update sharding vs replicated after " << steps << " steps on 8 cores: relative weight "
            << "difference " << l2 << " (L2), " << linf << " (max |diff| / max |w|)\n";
  // Every replica holds every updated shard.
  for (int c = 1; c < 8; ++c) {
    EXPECT_TRUE(std::equal(ws.begin(), ws.end(), sharded->weights(c))) << "replica " << c;
  }
  // The weights moved.
  const auto w0 = InitialParameters(Config(8, true, 0.1f).model, 3);
  EXPECT_GT(Relative(ws, w0).first, 1e-3);
}

TEST(FunctionalTransformerTest, Bf16GradientSummationTrains) {
  FunctionalConfig c = Config(8, true, 0);
  c.parallel.gradient_dtype = topology::DType::kBF16;
  std::vector<double> lb, lf;
  const auto wb = Train(c, 4, &lb);
  const auto wf = Train(Config(8, true, 0), 4, &lf);
  ASSERT_FALSE(wb.empty());
  const double rel = Relative(wb, wf).first;
  EXPECT_GT(rel, 0);     // a different summation ...
  EXPECT_LT(rel, 1e-2);  // ... of nearly the same gradients
  EXPECT_LT(lb.back(), lb.front());
}

TEST(FunctionalTransformerTest, LearningRateScheduleIsGooglesV06) {
  LearningRateSchedule s{2.0, 1000, 1024};
  const double peak = 2.0 / 32 / std::sqrt(1000.0);
  EXPECT_NEAR(s.At(1000), peak, 1e-15);
  EXPECT_NEAR(s.At(500), peak / 2, 1e-15);  // linear warm-up
  EXPECT_NEAR(s.At(4000), peak / 2, 1e-15); // inverse square root decay
}

TEST(FunctionalTransformerTest, TranslatesOverTheCores) {
  auto t = FunctionalTransformer::Create(Config(8, false, 0));
  ASSERT_TRUE(t.ok());
  const auto& src = SmallData().d.eval_sources;
  translation::BeamSearchOptions beam;
  auto out = (*t)->Translate(src, beam, 5, 3);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ASSERT_EQ(out->size(), src.size());
  size_t longest = 0;
  for (const auto& s : src) longest = std::max(longest, s.size());
  for (size_t i = 0; i < src.size(); ++i) {
    EXPECT_LE((*out)[i].size(), longest + 5);
    for (int32_t id : (*out)[i]) {
      EXPECT_GE(id, 0);
      EXPECT_LT(id, SmallData().d.vocab.size());
    }
  }
  // Deterministic: the chunks go to fixed cores and decode the same way.
  auto again = (*t)->Translate(src, beam, 5, 3);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*out, *again);
}

TEST(FunctionalTransformerTest, RefusesBadConfigs) {
  FunctionalConfig c = Config(8, false, 0);
  c.global_batch = 12;
  EXPECT_FALSE(FunctionalTransformer::Create(c).ok());
  c = Config(8, false, 0);
  c.adam.beta2 = 1;
  EXPECT_FALSE(FunctionalTransformer::Create(c).ok());
  auto t = FunctionalTransformer::Create(Config(8, false, 0));
  ASSERT_TRUE(t.ok());
  translation::PackedRows wrong;
  SmallData().rows.Gather({0, 1}, 0, 2, &wrong);
  EXPECT_FALSE((*t)->ComputeGradients(wrong).ok());
}

}  // namespace
}  // namespace podbench::transformer
