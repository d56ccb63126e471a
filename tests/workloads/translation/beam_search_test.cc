// Beam search: with a beam wide enough to keep every prefix it finds the
// exact best-scoring sequence (log-probability over the GNMT length penalty)
// of a decoder whose distribution depends on the whole prefix, which it can
// only know by following parent_rows; a narrow beam stops early; GNMT's
// coverage penalty, computed by hand, changes which hypothesis wins.
#include <cmath>
#include <functional>
#include <map>

#include <gtest/gtest.h>

#include "workloads/translation/beam_search.h"

namespace podbench::translation {
namespace {

constexpr int32_t kVocab = 4;  // 0 start/pad, 1 EOS, 2, 3
constexpr int32_t kEos = 1;

// Log-probabilities of the next token after `prefix` of sentence `s`: a
// pseudo-random distribution of the whole prefix (never token 0).
std::vector<float> Dist(int s, const std::vector<int32_t>& prefix) {
  uint64_t h = 1469598103934665603ull ^ static_cast<uint64_t>(s);
  for (int32_t t : prefix) h = (h ^ static_cast<uint64_t>(t)) * 1099511628211ull;
  std::vector<double> w(kVocab, 0.0);
  double sum = 0;
  for (int v = 1; v < kVocab; ++v) {
    h = h * 6364136223846793005ull + 1442695040888963407ull;
    w[static_cast<size_t>(v)] = 0.2 + static_cast<double>(h >> 40) / static_cast<double>(1ull << 24);
    sum += w[static_cast<size_t>(v)];
  }
  std::vector<float> lp(kVocab);
  lp[0] = -INFINITY;
  for (int v = 1; v < kVocab; ++v) lp[static_cast<size_t>(v)] = static_cast<float>(std::log(w[static_cast<size_t>(v)] / sum));
  return lp;
}

// Best finished sequence by exhaustive search; lengths up to max_steps.
void Exhaustive(int s, std::vector<int32_t>& prefix, double lp, int max_steps, double alpha, double* best,
                std::vector<int32_t>* best_seq) {
  if (static_cast<int>(prefix.size()) == max_steps) return;
  const auto d = Dist(s, prefix);
  for (int32_t v = 1; v < kVocab; ++v) {
    // Accumulate in float, as the search adds float log-probabilities to a double.
    const double next = lp + d[static_cast<size_t>(v)];
    prefix.push_back(v);
    if (v == kEos) {
      const double score = next / LengthPenalty(static_cast<int>(prefix.size()), alpha);
      if (score > *best) {
        *best = score;
        best_seq->assign(prefix.begin(), prefix.end() - 1);
      }
    } else {
      Exhaustive(s, prefix, next, max_steps, alpha, best, best_seq);
    }
    prefix.pop_back();
  }
}

// A decoder that tracks each row's prefix through parent_rows (as a cache would).
struct PrefixDecoder {
  std::vector<std::vector<int32_t>> rows;
  int calls = 0;
  Status operator()(const DecodeStep& st, std::span<float> out) {
    std::vector<std::vector<int32_t>> next(st.parent_rows.size());
    for (size_t r = 0; r < next.size(); ++r) {
      if (st.step > 0) {
        next[r] = rows[static_cast<size_t>(st.parent_rows[r])];
        next[r].push_back(st.tokens[r]);
      } else if (st.parent_rows[r] != -1 || st.tokens[r] != 0) {
        return Status::Internal("step 0 must start every sentence from the start token");
      }
      const auto d = Dist(st.sentences[r], next[r]);
      std::copy(d.begin(), d.end(), out.begin() + static_cast<std::ptrdiff_t>(r * kVocab));
    }
    rows = std::move(next);
    ++calls;
    return Status::Ok();
  }
};

TEST(BeamSearchTest, WideBeamFindsTheExactBest) {
  for (double alpha : {0.0, 0.6, 1.0}) {
    BeamSearchOptions o;
    o.beam_size = 64;  // > 2^5 prefixes of non-EOS tokens
    o.alpha = alpha;
    o.max_steps = 6;
    o.eos_id = kEos;
    PrefixDecoder dec;
    auto r = BeamSearch(3, kVocab, o, std::ref(dec));
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    ASSERT_EQ(r->size(), 3u);
    for (int s = 0; s < 3; ++s) {
      double best = -INFINITY;
      std::vector<int32_t> seq, prefix;
      Exhaustive(s, prefix, 0.0, o.max_steps, alpha, &best, &seq);
      EXPECT_EQ((*r)[static_cast<size_t>(s)].tokens, seq) << "sentence " << s << " alpha " << alpha;
      EXPECT_NEAR((*r)[static_cast<size_t>(s)].score, best, 1e-6);
      EXPECT_TRUE((*r)[static_cast<size_t>(s)].finished);
    }
  }
}

TEST(BeamSearchTest, LengthPenaltyIsGnmts) {
  EXPECT_DOUBLE_EQ(LengthPenalty(1, 0.6), 1.0);
  EXPECT_NEAR(LengthPenalty(7, 0.6), std::pow(2.0, 0.6), 1e-12);
  EXPECT_DOUBLE_EQ(LengthPenalty(20, 0.0), 1.0);
}

TEST(BeamSearchTest, StopsWhenNoLiveHypothesisCanWin) {
  // EOS is almost certain from the first step: one step decides.
  BeamSearchOptions o;
  o.max_steps = 50;
  o.eos_id = kEos;
  int calls = 0;
  auto r = BeamSearch(2, kVocab, o, [&](const DecodeStep& st, std::span<float> out) {
    ++calls;
    for (size_t k = 0; k < st.tokens.size(); ++k) {
      float* row = out.data() + k * kVocab;
      row[0] = -INFINITY;
      row[1] = std::log(0.999f);
      row[2] = row[3] = std::log(0.0005f);
    }
    return Status::Ok();
  });
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE((*r)[0].tokens.empty());
  EXPECT_LE(calls, 2);
}

TEST(BeamSearchTest, NeverFinishedReturnsTheBestLiveHypothesis) {
  BeamSearchOptions o;
  o.max_steps = 5;
  o.eos_id = kEos;
  auto r = BeamSearch(1, kVocab, o, [](const DecodeStep& st, std::span<float> out) {
    for (size_t k = 0; k < st.tokens.size(); ++k) {
      float* row = out.data() + k * kVocab;
      row[0] = row[1] = -INFINITY;  // EOS impossible
      row[2] = std::log(0.7f);
      row[3] = std::log(0.3f);
    }
    return Status::Ok();
  });
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE((*r)[0].finished);
  EXPECT_EQ((*r)[0].tokens, (std::vector<int32_t>{2, 2, 2, 2, 2}));
}

TEST(BeamSearchTest, ErrorsAndBadOptions) {
  BeamSearchOptions o;
  o.beam_size = 0;
  EXPECT_FALSE(BeamSearch(1, kVocab, o, [](const DecodeStep&, std::span<float>) { return Status::Ok(); }).ok());
  o = BeamSearchOptions{};
  auto r = BeamSearch(1, kVocab, o,
                      [](const DecodeStep&, std::span<float>) { return Status::Internal("decoder broke"); });
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "decoder broke");
}

TEST(BeamSearchTest, CoveragePenaltyIsWuEq14WithPaddingIgnored) {
  // 0.1 * (log 0.5 + log min(1.5, 1)); the 0 (a padded position) is left out.
  const std::vector<double> acc{0.5, 1.5, 0.0};
  EXPECT_NEAR(CoveragePenalty(acc, 0.1), 0.1 * std::log(0.5), 1e-15);
  EXPECT_EQ(CoveragePenalty(std::vector<double>{1.0, 2.0}, 0.1), 0.0);
  EXPECT_EQ(CoveragePenalty(std::vector<double>{}, 0.1), 0.0);
}

// One sentence, 2 real source positions and 1 padded one. Step 0: EOS or
// token 2 at probability 0.5 each, attending 0.125 to each real position.
// Step 1 (after token 2): EOS at 0.7, token 3 at 0.3, attending 0.875 each.
//   A = [EOS]:    log 0.5 / lp(1) + 0.1 * 2 log 0.125 = -0.693 - 0.416 = -1.109
//   B = [2, EOS]: log 0.35 / lp(2) + 0.1 * 2 log 1     = -1.050 / 1.097 = -0.957
// Without coverage A (-0.693) beats B (-0.957); with it B wins.
Status CoverageDecoder(const DecodeStep& st, std::span<float> out, std::vector<size_t>* attention_sizes) {
  attention_sizes->push_back(st.attention.size());
  for (size_t r = 0; r < st.tokens.size(); ++r) {
    float* row = out.data() + r * kVocab;
    row[0] = -INFINITY;
    const bool first = st.step == 0;
    if (!first && st.tokens[r] != 2) return Status::Internal("only token 2 continues");
    row[1] = std::log(first ? 0.5f : 0.7f);
    row[2] = first ? std::log(0.5f) : -INFINITY;
    row[3] = first ? -INFINITY : std::log(0.3f);
    if (!st.attention.empty()) {
      float* a = st.attention.data() + r * 3;
      if (a[0] != 0 || a[1] != 0 || a[2] != 0) return Status::Internal("attention not zero-filled");
      a[0] = a[1] = first ? 0.125f : 0.875f;  // a[2]: padding, left 0
    }
  }
  return Status::Ok();
}

TEST(BeamSearchTest, CoveragePenaltyPicksTheHypothesisThatCoversTheSource) {
  BeamSearchOptions o;
  o.beam_size = 2;
  o.alpha = 0.6;
  o.max_steps = 2;
  o.eos_id = kEos;
  std::vector<size_t> sizes;
  auto dec = [&](const DecodeStep& st, std::span<float> out) { return CoverageDecoder(st, out, &sizes); };
  // Off: no attention asked for, the short hypothesis wins.
  auto r = BeamSearch(1, kVocab, o, dec);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE((*r)[0].tokens.empty());
  EXPECT_NEAR((*r)[0].score, std::log(0.5f), 1e-12);
  EXPECT_EQ((*r)[0].coverage_penalty, 0.0);
  EXPECT_EQ(sizes, (std::vector<size_t>{0, 0}));
  // On: 1 row x 3 positions, then 1 row (the live [2]) x 3.
  o.coverage_penalty = 0.1;
  o.source_positions = 3;
  sizes.clear();
  r = BeamSearch(1, kVocab, o, dec);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(sizes, (std::vector<size_t>{3, 3}));
  EXPECT_EQ((*r)[0].tokens, (std::vector<int32_t>{2}));
  EXPECT_TRUE((*r)[0].finished);
  const double log_prob = static_cast<double>(std::log(0.5f)) + static_cast<double>(std::log(0.7f));
  EXPECT_NEAR((*r)[0].log_prob, log_prob, 1e-12);
  EXPECT_EQ((*r)[0].coverage_penalty, 0.0);  // 0.125 + 0.875 = 1 exactly
  EXPECT_NEAR((*r)[0].score, log_prob / std::pow(7.0 / 6.0, 0.6), 1e-12);
  EXPECT_NEAR((*r)[0].score, -0.95708, 1e-5);
  // A's score, for the record: below B's.
  const double a = static_cast<double>(std::log(0.5f)) + 0.1 * 2 * std::log(0.125);
  EXPECT_NEAR(a, -1.10904, 1e-5);
  EXPECT_LT(a, (*r)[0].score);
}

TEST(BeamSearchTest, GnmtOptionsAreGooglesV06) {
  const BeamSearchOptions o = GnmtBeamSearchOptions();
  EXPECT_EQ(o.beam_size, 5);
  EXPECT_EQ(o.alpha, 0.6);
  EXPECT_EQ(o.coverage_penalty, 0.1);
  EXPECT_EQ(o.max_steps, 160);
}

TEST(BeamSearchTest, CoverageNeedsSourcePositions) {
  BeamSearchOptions o;
  o.coverage_penalty = 0.1;
  auto r = BeamSearch(1, kVocab, o, [](const DecodeStep&, std::span<float>) { return Status::Ok(); });
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("source_positions"), std::string::npos) << r.status().message();
  o.coverage_penalty = -1;
  o.source_positions = 3;
  EXPECT_FALSE(BeamSearch(1, kVocab, o, [](const DecodeStep&, std::span<float>) { return Status::Ok(); }).ok());
}

}  // namespace
}  // namespace podbench::translation
