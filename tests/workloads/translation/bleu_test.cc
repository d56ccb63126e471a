// podbench's corpus BLEU against SacreBLEU's golden outputs (all 15 cases of
// ../shared/fixtures/expected/bleu-cases.json, cased and uncased, to 1e-9),
// and cases computed by hand that run without ../shared.
#include <cmath>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/testing/shared_dir.h"
#include "workloads/translation/bleu.h"

namespace podbench::translation {
namespace {

BleuScore Bleu(const std::vector<std::string>& hyp, const std::vector<std::vector<std::string>>& refs,
               bool lowercase = false) {
  auto r = CorpusBleu(hyp, refs, {.lowercase = lowercase});
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? *r : BleuScore{};
}

void ExpectMatches(const nlohmann::json& want, const BleuScore& got, const std::string& what) {
  EXPECT_NEAR(got.score, want["score"].get<double>(), 1e-9) << what;
  EXPECT_NEAR(got.bp, want["bp"].get<double>(), 1e-9) << what;
  EXPECT_EQ(got.sys_len, want["sys_len"].get<int64_t>()) << what;
  EXPECT_EQ(got.ref_len, want["ref_len"].get<int64_t>()) << what;
  for (size_t n = 0; n < 4; ++n) {
    EXPECT_EQ(got.counts[n], want["counts"][n].get<int64_t>()) << what << " order " << n + 1;
    EXPECT_EQ(got.totals[n], want["totals"][n].get<int64_t>()) << what << " order " << n + 1;
    EXPECT_NEAR(got.precisions[n], want["precisions"][n].get<double>(), 1e-9) << what << " order " << n + 1;
  }
}

TEST(BleuTest, MatchesSacreBleuOnEveryGoldenCase) {
  PODBENCH_REQUIRE_SHARED(shared);
  std::ifstream in(shared / "fixtures" / "expected" / "bleu-cases.json");
  ASSERT_TRUE(in) << "bleu-cases.json";
  const nlohmann::json cases = nlohmann::json::parse(in);
  ASSERT_EQ(cases.size(), 15u);
  for (const auto& c : cases) {
    const std::string name = c["name"];
    const auto hyp = c["hypotheses"].get<std::vector<std::string>>();
    const auto refs = c["references"].get<std::vector<std::vector<std::string>>>();
    ExpectMatches(c["expected"], Bleu(hyp, refs, false), name + " (cased)");
    ExpectMatches(c["expected_lowercase"], Bleu(hyp, refs, true), name + " (uncased)");
    // The 13a tokenisation, line by line.
    const auto& tok = c["tokenized_13a"];
    for (size_t i = 0; i < hyp.size(); ++i) {
      EXPECT_EQ(Tokenize13a(hyp[i]), tok["hypotheses"][i].get<std::string>()) << name << " hypothesis " << i;
    }
    for (size_t s = 0; s < refs.size(); ++s) {
      for (size_t i = 0; i < refs[s].size(); ++i) {
        EXPECT_EQ(Tokenize13a(refs[s][i]), tok["references"][s][i].get<std::string>())
            << name << " reference " << s << ":" << i;
      }
    }
  }
}

TEST(BleuTest, HandComputedScores) {
  // Clipped n-gram matches 5/6, 3/5, 2/4, 1/3; equal lengths.
  BleuScore b = Bleu({"the cat sat on the mat"}, {{"the cat sat on a mat"}});
  EXPECT_EQ(b.counts, (std::array<int64_t, 4>{5, 3, 2, 1}));
  EXPECT_EQ(b.totals, (std::array<int64_t, 4>{6, 5, 4, 3}));
  EXPECT_DOUBLE_EQ(b.bp, 1.0);
  EXPECT_NEAR(b.score, 100 * std::pow(1.0 / 12, 0.25), 1e-9);
  // Every n-gram matches, 4 tokens against 6: bp = exp(1 - 6/4).
  b = Bleu({"the cat sat on"}, {{"the cat sat on the mat"}});
  EXPECT_NEAR(b.bp, std::exp(-0.5), 1e-12);
  EXPECT_NEAR(b.score, 100 * std::exp(-0.5), 1e-9);
  // No 3-gram and no 4-gram match: exp smoothing, 100/(2*3) then 100/(4*2).
  b = Bleu({"a b c d e"}, {{"a b x d e"}});
  EXPECT_NEAR(b.precisions[2], 100.0 / 6, 1e-12);
  EXPECT_NEAR(b.precisions[3], 12.5, 1e-12);
  EXPECT_NEAR(b.score, std::pow(80.0 * 50.0 * (100.0 / 6) * 12.5, 0.25), 1e-9);
  // Identical: 100 (up to rounding).
  EXPECT_NEAR(Bleu({"a b c d", "e f g h i"}, {{"a b c d", "e f g h i"}}).score, 100, 1e-9);
  // Case: only the uncased score ignores it.
  EXPECT_NEAR(Bleu({"The Big Cat sat down"}, {{"the big cat sat down"}}, true).score, 100, 1e-9);
  EXPECT_LT(Bleu({"The Big Cat sat down"}, {{"the big cat sat down"}}, false).score, 50);
  // Fewer than 4 tokens in the whole corpus: no 4-grams, BLEU 0.
  EXPECT_EQ(Bleu({"a b c"}, {{"a b c"}}).score, 0);
}

TEST(BleuTest, Tokenize13aRules) {
  EXPECT_EQ(Tokenize13a("Hello, world!"), "Hello , world !");
  EXPECT_EQ(Tokenize13a("It costs 3.5 or 3,000 (approx.)"), "It costs 3.5 or 3,000 ( approx . )");
  EXPECT_EQ(Tokenize13a("pages 1-2 and e-mail"), "pages 1 - 2 and e-mail");
  EXPECT_EQ(Tokenize13a("a &amp; b &lt;c&gt;"), "a & b < c >");
  EXPECT_EQ(Tokenize13a("  tabs\tand\n spaces  "), "tabs and spaces");
  EXPECT_EQ(Tokenize13a("don't"), "don't");
  EXPECT_EQ(Tokenize13a(""), "");
}

TEST(BleuTest, RefusesMismatchedStreams) {
  auto r = CorpusBleu({"a b"}, {{"a b", "c d"}}, {});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("reference stream 0"), std::string::npos);
  EXPECT_FALSE(CorpusBleu({"a"}, {}, {}).ok());
  EXPECT_FALSE(CorpusBleu({"a"}, {{""}}, {}).ok());
}

}  // namespace
}  // namespace podbench::translation
