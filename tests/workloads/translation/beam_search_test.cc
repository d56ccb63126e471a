// Beam search: with a beam wide enough to keep every prefix it finds the
// exact best-scoring sequence (log-probability over the GNMT length penalty)
// of a decoder whose distribution depends on the whole prefix, which it can
// only know by following parent_rows; a narrow beam stops early.
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

}  // namespace
}  // namespace podbench::translation
