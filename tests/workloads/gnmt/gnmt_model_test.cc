// The functional GNMT model: its gradient against finite differences of its
// loss for every parameter group (the bidirectional layer, the residual
// layers, the attention, the decoder and the untied projection), padding
// that leaves each row's loss unchanged, Google's EOS loss as run and as
// written, and beam-search decoding with the coverage penalty.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "workloads/gnmt/gnmt_model.h"
#include "workloads/translation/beam_search.h"
#include "workloads/translation/bucketing.h"

namespace podbench::gnmt {
namespace {

GnmtConfig Tiny(EosLoss eos = EosLoss::kAsRun) {
  GnmtConfig c;
  c.vocab = 9;
  c.hidden = 4;
  c.encoder_layers = 3;  // bidirectional, plain, residual
  c.decoder_layers = 3;  // attention cell, plain, residual
  c.dropout = 0;
  c.precision = kernels::Precision::kF32;
  c.eos_loss = eos;
  return c;
}

// Two rows of different source and target lengths (ids 2..8; EOS = 1 last).
std::vector<translation::TokenPair> Examples() {
  return {{{3, 4, 5, 6, 1}, {7, 8, 1}}, {{2, 8, 1}, {5, 3, 4, 6, 1}}, {{6, 1}, {2, 1}}};
}

double Loss(GnmtCore& core, const std::vector<float>& w, const translation::PackedRows& rows) {
  std::vector<float> g(w.size());
  StepContext ctx;
  auto r = core.TrainStep(w.data(), rows, ctx, g.data());
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? r->first : 0;
}

TEST(GnmtModelTest, GradientMatchesFiniteDifferencesForEveryParameterGroup) {
  const GnmtConfig c = Tiny();
  const GnmtLayout l(c);
  std::vector<float> w = InitialParameters(c, 5);
  // A larger init than Google's 0.1 and a sharper attention, so that every
  // path carries a gradient well above the float noise of the differences.
  for (float& e : w) e *= 5;
  w[static_cast<size_t>(l.attention_g)] = 3;
  for (int64_t i = 0; i < int64_t{c.hidden} * c.hidden; ++i) {
    w[static_cast<size_t>(l.memory + i)] *= 3;  // keys and queries into tanh's bend, where the query matters
    w[static_cast<size_t>(l.query + i)] *= 3;
  }
  const auto ex = Examples();
  const translation::PackedRows rows = translation::PadBatch(ex, {0, 1, 2});
  GnmtCore core(c, l);
  std::vector<float> grad(w.size());
  StepContext ctx;
  auto r = core.TrainStep(w.data(), rows, ctx, grad.data());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->second, 3 * 5) << "as run, every padded target position counts";
  struct Group {
    const char* name;
    int64_t begin, size;
  };
  const int64_t H = c.hidden;
  std::vector<Group> groups = {
      {"embedding", l.embedding, int64_t{c.vocab} * H},
      {"encoder bidirectional forward", l.encoder_fw.w, 8 * 4 * H + 4 * H},
      {"encoder bidirectional backward", l.encoder_bw.w, 8 * 4 * H + 4 * H},
      {"encoder layer 1 (input 2 hidden)", l.encoder[0].w, 12 * 4 * H + 4 * H},
      {"encoder layer 2 (residual)", l.encoder[1].w, 8 * 4 * H + 4 * H},
      {"memory layer", l.memory, H * H},
      {"query layer", l.query, H * H},
      {"attention v, g, b", l.attention_v, 2 * H + 1},
      {"decoder attention cell", l.decoder[0].w, 12 * 4 * H + 4 * H},
      {"decoder layer 1", l.decoder[1].w, 12 * 4 * H + 4 * H},
      {"decoder layer 2 (residual)", l.decoder[2].w, 12 * 4 * H + 4 * H},
      {"projection", l.projection, H * c.vocab},
  };
  GnmtCore probe(c, l);
  for (const Group& g : groups) {
    const int64_t step = std::max<int64_t>(1, g.size / 10);
    double largest = 0;
    for (int64_t i = g.begin; i < g.begin + g.size; i += step) {
      const float keep = w[static_cast<size_t>(i)];
      const double eps = 2e-2;
      w[static_cast<size_t>(i)] = static_cast<float>(keep + eps);
      const double up = Loss(probe, w, rows);
      w[static_cast<size_t>(i)] = static_cast<float>(keep - eps);
      const double down = Loss(probe, w, rows);
      w[static_cast<size_t>(i)] = keep;
      const double numeric = (up - down) / (2 * eps);
      largest = std::max(largest, std::abs(numeric));
      if (std::getenv("GNMT_GRAD_DUMP")) printf("%s %g %g\n", g.name, grad[static_cast<size_t>(i)], numeric);
      EXPECT_NEAR(grad[static_cast<size_t>(i)], numeric, 3e-2 * std::abs(numeric) + 2e-5)
          << g.name << " at " << i - g.begin;
    }
    EXPECT_GT(largest, 2e-4) << g.name << ": the check must see a gradient";
  }
}

// With EOS targets masked, a row's loss does not depend on the rows it is
// batched with: padding of the source is masked in both directions of the
// bidirectional layer and in the attention, and positions past a target
// are EOS targets.
TEST(GnmtModelTest, MaskedEosLossOfABatchIsTheSumOfItsRows) {
  const GnmtConfig c = Tiny(EosLoss::kMasked);
  const GnmtLayout l(c);
  std::vector<float> w = InitialParameters(c, 6);
  for (float& e : w) e *= 4;
  const auto ex = Examples();
  GnmtCore core(c, l);
  double alone = 0;
  int64_t positions = 0;
  for (int64_t i = 0; i < 3; ++i) {
    std::vector<float> g(w.size());
    auto r = core.TrainStep(w.data(), translation::PadBatch(ex, {i}), {}, g.data());
    ASSERT_TRUE(r.ok());
    alone += r->first;
    positions += r->second;
  }
  std::vector<float> g(w.size());
  auto r = core.TrainStep(w.data(), translation::PadBatch(ex, {0, 1, 2}), {}, g.data());
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->second, positions);
  EXPECT_EQ(positions, 2 + 4 + 1) << "every EOS target masked";
  EXPECT_NEAR(r->first, alone, 1e-4 * alone);
}

TEST(GnmtModelTest, BadInputsAreErrors) {
  GnmtConfig c = Tiny();
  c.encoder_layers = 1;
  EXPECT_FALSE(c.Validate().ok());
  c = Tiny();
  const GnmtLayout l(c);
  const auto w = InitialParameters(c, 1);
  GnmtCore core(c, l);
  std::vector<translation::TokenPair> bad = {{{3, 40, 1}, {2, 1}}};
  std::vector<float> g(w.size());
  auto r = core.TrainStep(w.data(), translation::PadBatch(bad, {0}), {}, g.data());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().ToString().find("token id 40"), std::string::npos) << r.status().ToString();
  std::vector<int32_t> id = {2, 1};
  std::vector<float> lp(9);
  EXPECT_FALSE(core.DecodeStep(std::vector<int32_t>{-1}, std::vector<int32_t>{0}, std::vector<int32_t>{0}, lp).ok())
      << "DecodeStep before StartDecoding";
}

// Decoding step by step gives the training forward's distribution (dropout
// off), and beam search with Google's coverage penalty runs on it.
TEST(GnmtModelTest, IncrementalDecodingMatchesTheTrainingForward) {
  const GnmtConfig c = Tiny(EosLoss::kMasked);
  const GnmtLayout l(c);
  std::vector<float> w = InitialParameters(c, 7);
  for (float& e : w) e *= 4;
  GnmtCore core(c, l);
  // Teacher-forced: the loss of target [7, 8, EOS] with smoothing 0 is
  // -log p(7) - log p(8 | 7) (EOS masked).
  GnmtConfig c0 = c;
  c0.label_smoothing = 0;
  GnmtCore train(c0, l);
  const std::vector<translation::TokenPair> ex = {{{3, 4, 5, 6, 1}, {7, 8, 1}}};
  std::vector<float> g(w.size());
  auto r = train.TrainStep(w.data(), translation::PadBatch(ex, {0}), {}, g.data());
  ASSERT_TRUE(r.ok());
  const std::vector<int32_t> src = {3, 4, 5, 6, 1};
  ASSERT_TRUE(core.StartDecoding(w.data(), {std::span<const int32_t>(src)}).ok());
  std::vector<float> lp(9), att(5);
  ASSERT_TRUE(core.DecodeStep(std::vector<int32_t>{-1}, std::vector<int32_t>{0}, std::vector<int32_t>{0}, lp, att).ok());
  double sum = 0;
  for (float a : att) sum += a;
  EXPECT_NEAR(sum, 1.0, 1e-5);
  const double first = -lp[7];
  ASSERT_TRUE(core.DecodeStep(std::vector<int32_t>{0}, std::vector<int32_t>{0}, std::vector<int32_t>{7}, lp, att).ok());
  EXPECT_NEAR(first - lp[8], r->first, 1e-4 * r->first);

  translation::BeamSearchOptions o = translation::GnmtBeamSearchOptions();
  o.max_steps = 12;
  o.source_positions = 5;
  ASSERT_TRUE(core.StartDecoding(w.data(), {std::span<const int32_t>(src)}).ok());
  auto beams = translation::BeamSearch(1, c.vocab, o, [&](const translation::DecodeStep& s, std::span<float> out) {
    return core.DecodeStep(s.parent_rows, s.sentences, s.tokens, out, s.attention);
  });
  ASSERT_TRUE(beams.ok()) << beams.status().ToString();
  EXPECT_LE((*beams)[0].tokens.size(), 12u);
}

}  // namespace
}  // namespace podbench::gnmt
