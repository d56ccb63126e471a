// Functional GNMT training: 8 emulated cores match one core after a step
// (GEMM variants pinned, as the Transformer's test pins them), Google's
// learning-rate schedule (t2t warmup, four halvings), per-core clipping,
// and beam-search translation over the cores.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iostream>

#include <gtest/gtest.h>

#include "tests/kernels/pin_gemm.h"
#include "workloads/gnmt/gnmt_functional.h"
#include "workloads/translation/bucketing.h"
#include "workloads/translation/dataset.h"

namespace podbench::gnmt {
namespace {

const translation::TranslationData& SmallData() {
  static const translation::TranslationData* data = [] {
    translation::TranslationDataSpec spec;
    spec.train_sentences = 200;
    spec.eval_sentences = 10;
    spec.vocab_size = 120;
    spec.max_length = 40;
    auto d = translation::MakeTranslationData(spec);
    EXPECT_TRUE(d.ok()) << d.status().ToString();
    return new translation::TranslationData(std::move(d).value());
  }();
  return *data;
}

FunctionalConfig Config(int cores) {
  FunctionalConfig c;
  c.model.vocab = SmallData().vocab.size();
  c.model.hidden = 16;
  c.model.dropout = 0;
  c.parallel.cores = cores;
  c.parallel.slice = cores > 1 ? "tpu-v3-" + std::to_string(cores) : "";
  c.global_batch = 8;
  c.seed = 3;
  return c;
}

std::vector<float> OneStep(FunctionalConfig cfg, double* loss, std::vector<double>* norms = nullptr) {
  auto t = FunctionalGnmt::Create(cfg);
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  if (!t.ok()) return {};
  const auto& d = SmallData();
  const translation::PackedRows batch = translation::PadBatch(d.train[0], {0, 1, 2, 3, 4, 5, 6, 7});
  auto l = (*t)->ComputeGradients(batch);
  EXPECT_TRUE(l.ok()) << l.status().ToString();
  if (!l.ok()) return {};
  *loss = *l;
  if (norms) *norms = (*t)->core_gradient_norms();
  EXPECT_TRUE((*t)->Update(1e-3).ok());
  return std::vector<float>((*t)->weights(0), (*t)->weights(0) + (*t)->num_parameters());
}

// Two things make Google's step depend on how the batch is split, by
// design: per-core clipping once a core's gradient exceeds the bound, and,
// with the loss as run (every padded position counts), each core padding
// its rows only to its own longest target. So this compares the two with
// the bound raised (the clipping is the next test's) and EOS targets masked
// (padding then adds nothing: GnmtModelTest shows a batch's loss is the sum
// of its rows').
TEST(FunctionalGnmtTest, EightCoresMatchOneCoreAfterAStep) {
  kernels::testing::PinGemmVariants();
  FunctionalConfig one = Config(1), eight = Config(8);
  one.max_gradient_norm = eight.max_gradient_norm = 1e30;
  one.model.eos_loss = eight.model.eos_loss = EosLoss::kMasked;
  double l1 = 0, l8 = 0;
  const auto w1 = OneStep(one, &l1);
  const auto w8 = OneStep(eight, &l8);
  ASSERT_EQ(w1.size(), w8.size());
  ASSERT_FALSE(w1.empty());
  EXPECT_NEAR(l1, l8, 1e-6 * l1);
  // The starting weights (the same seed for both).
  auto start = FunctionalGnmt::Create(one);
  ASSERT_TRUE(start.ok()) << start.status().ToString();
  const float* w0 = (*start)->weights(0);
  // Adam's first step (TF's, bias-corrected) moves a weight by
  // lr g / (|g| + epsilon / sqrt(1 - beta2)) = lr g / (|g| + 3.2e-7): lr
  // whatever g once |g| is well above 3.2e-7, but for smaller gradients the
  // step is proportional to g, so it shows the rounding of the cores' sums
  // (lr / 3.2e-7 = 3,200x the gradient's difference). The 1e-5 holds
  // for every weight whose step is saturated (|step| >= 0.9 lr, i.e. |g| >=
  // ~3e-6); the rest (near-zero gradients, or none: rows of
  // tokens not in the batch) get 5e-5 (on this data one
  // weight, g ~ 3e-9, differs by 2.2e-5).
  const double lr = 1e-3;
  double worst = 0, worst_small = 0;
  size_t small = 0;
  for (size_t i = 0; i < w1.size(); ++i) {
    const double diff = std::abs(static_cast<double>(w1[i]) - w8[i]);
    if (std::abs(static_cast<double>(w1[i]) - w0[i]) >= 0.9 * lr) {
      worst = std::max(worst, diff);
    } else {
      ++small;
      worst_small = std::max(worst_small, diff);
    }
  }
  EXPECT_LE(worst, 1e-5);
  EXPECT_LE(worst_small, 5e-5);
  EXPECT_GT(w1.size() - small, w1.size() / 2) << "most weights should take a full first step";
  std::cout << "8 cores vs 1 core after a step: largest parameter difference " << worst << " (" << w1.size() - small
            << " saturated steps), " << worst_small << " (" << small << " steps of near-zero gradients)\n";
}

TEST(FunctionalGnmtTest, EachCoreClipsItsOwnGradientBeforeTheSum) {
  kernels::testing::PinGemmVariants();
  FunctionalConfig two = Config(8);
  double loss = 0;
  std::vector<double> norms;
  two.max_gradient_norm = 1e30;
  const auto w_free = OneStep(two, &loss, &norms);
  ASSERT_EQ(norms.size(), 8u);
  ASSERT_GT(norms[0], 0);
  // Clip no core: the update is unchanged; clip the largest: it changes.
  std::sort(norms.begin(), norms.end());
  const double smaller = norms[6], larger = norms[7];
  ASSERT_LT(smaller, larger);
  two.max_gradient_norm = larger * 1.01;
  EXPECT_EQ(OneStep(two, &loss), w_free) << "no core over the bound: nothing clipped";
  two.max_gradient_norm = (smaller + larger) / 2;
  EXPECT_NE(OneStep(two, &loss), w_free) << "one core over the bound: its gradient is clipped";
}

TEST(FunctionalGnmtTest, LearningRateIsGooglesT2tWarmupAndFourHalvings) {
  LearningRateSchedule s;  // 4.5e-3, warmup 200, decay from 1924 every 241
  EXPECT_NEAR(s.At(0), 4.5e-5, 1e-12);
  EXPECT_NEAR(s.At(100), 4.5e-3 * 0.1, 1e-12);
  EXPECT_DOUBLE_EQ(s.At(200), 4.5e-3);
  EXPECT_DOUBLE_EQ(s.At(2164), 4.5e-3);
  EXPECT_DOUBLE_EQ(s.At(2165), 4.5e-3 / 2);  // the halvings of gnmt-v0.6.md section 2: 2165, 2406, 2647, 2888
  EXPECT_DOUBLE_EQ(s.At(2406), 4.5e-3 / 4);
  EXPECT_DOUBLE_EQ(s.At(2647), 4.5e-3 / 8);
  EXPECT_DOUBLE_EQ(s.At(2888), 4.5e-3 / 16);
  EXPECT_DOUBLE_EQ(s.At(100000), 4.5e-3 / 16) << "floored after the fourth";
}

TEST(FunctionalGnmtTest, TrainsAndTranslatesOverTheCores) {
  FunctionalConfig c = Config(8);
  auto t = FunctionalGnmt::Create(c);
  ASSERT_TRUE(t.ok());
  // The session's path: each core's own examples, bucketed per core, one
  // bucket per global batch, each core's share padded to its own length.
  const auto& d = SmallData();
  translation::TranslationDataSpec spec;
  spec.train_sentences = 200;
  spec.eval_sentences = 10;
  spec.vocab_size = 120;
  spec.max_length = 40;
  auto per_core = translation::MakeTranslationData(spec, 8, {0, 8});
  ASSERT_TRUE(per_core.ok()) << per_core.status().ToString();
  const translation::BucketSpec buckets{40, 4};
  std::vector<std::vector<int>> ids;
  std::vector<std::vector<int64_t>> counts;
  for (const auto& examples : per_core->train) {
    auto b = translation::BucketsOf(examples, buckets);
    ASSERT_TRUE(b.ok());
    counts.emplace_back(5, 0);
    for (int id : *b) ++counts.back()[static_cast<size_t>(id)];
    ids.push_back(*b);
  }
  auto batches = translation::BucketedBatches::Create(buckets, 1, counts, 0, ids, 1);
  ASSERT_TRUE(batches.ok()) << batches.status().ToString();
  double first = 0, last = 0;
  for (int s = 0; s < 12; ++s) {
    const auto next = batches->Next();
    std::vector<translation::PackedRows> shares;
    for (size_t k = 0; k < 8; ++k) shares.push_back(translation::PadBatch(per_core->train[k], next.examples[k]));
    auto loss = (*t)->ComputeGradients(shares);
    ASSERT_TRUE(loss.ok()) << loss.status().ToString();
    (s == 0 ? first : last) = *loss;
    ASSERT_TRUE((*t)->Update(3e-3).ok());
  }
  EXPECT_LT(last, first);
  translation::BeamSearchOptions o = translation::GnmtBeamSearchOptions();
  o.max_steps = 8;
  std::vector<std::vector<int32_t>> src(d.eval_sources.begin(), d.eval_sources.begin() + 5);
  auto out = (*t)->Translate(src, o, 2);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(out->size(), 5u);
  EXPECT_FALSE(FunctionalGnmt::Create([] {
                 FunctionalConfig bad = Config(8);
                 bad.global_batch = 12;
                 return bad;
               }()).ok());
}

}  // namespace
}  // namespace podbench::gnmt
