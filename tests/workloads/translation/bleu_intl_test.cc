// BLEU with the `intl` tokenizer and Python's full Unicode lowercasing, as
// Google's v0.6 GNMT scored (sacrebleu -lc --tokenize intl), against every
// golden case of ../shared/fixtures/expected/bleu-intl-cases.json to 1e-9:
// one test per aspect (tokenisation cased and lowercased, score, counts,
// totals, precisions, brevity penalty, lengths), each over both the
// lowercased (`expected`) and the cased (`expected_cased`) variant. Cases
// computed by hand run without ../shared.
#include <fstream>
#include <functional>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "base/unicode.h"
#include "tests/testing/shared_dir.h"
#include "workloads/translation/bleu.h"

namespace podbench::translation {
namespace {

std::string Tok(std::string_view line) {
  auto r = TokenizeIntl(line);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? *r : std::string();
}

std::string Lower(std::string_view line) {
  auto r = unicode::DecodeUtf8(line, "test line");
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? unicode::EncodeUtf8(unicode::Lower(*r)) : std::string();
}

class BleuIntlGoldenTest : public ::testing::Test {
 protected:
  void SetUp() override {
    PODBENCH_REQUIRE_SHARED(shared);
    std::ifstream in(shared / "fixtures" / "expected" / "bleu-intl-cases.json");
    ASSERT_TRUE(in) << "bleu-intl-cases.json";
    cases_ = nlohmann::json::parse(in);
    ASSERT_EQ(cases_.size(), 14u);
  }

  // Calls `check(want, got, what)` for every case, lowercased and cased.
  void ForEachScore(const std::function<void(const nlohmann::json&, const BleuScore&, const std::string&)>& check) {
    for (const auto& c : cases_) {
      const std::string name = c["name"];
      const auto hyp = c["hypotheses"].get<std::vector<std::string>>();
      const auto refs = c["references"].get<std::vector<std::vector<std::string>>>();
      for (const bool lowercase : {true, false}) {
        auto got = CorpusBleu(hyp, refs, {.tokenizer = BleuTokenizer::kIntl, .lowercase = lowercase});
        ASSERT_TRUE(got.ok()) << name << ": " << got.status().ToString();
        check(c[lowercase ? "expected" : "expected_cased"], *got, name + (lowercase ? " (lowercased)" : " (cased)"));
      }
    }
  }

  // Compares TokenizeIntl of every line the case tokenised (the first lines
  // of the hypotheses and of the first reference stream) with `key`.
  void CheckTokenized(const std::string& key, bool lowercase) {
    for (const auto& c : cases_) {
      const std::string name = c["name"];
      const auto hyp = c["hypotheses"].get<std::vector<std::string>>();
      const auto refs = c["references"].get<std::vector<std::vector<std::string>>>();
      const auto want_hyp = c[key]["hypotheses"].get<std::vector<std::string>>();
      const auto want_ref = c[key]["references"].get<std::vector<std::string>>();
      ASSERT_LE(want_hyp.size(), hyp.size()) << name;
      ASSERT_LE(want_ref.size(), refs[0].size()) << name;
      for (size_t i = 0; i < want_hyp.size(); ++i) {
        EXPECT_EQ(Tok(lowercase ? Lower(hyp[i]) : hyp[i]), want_hyp[i]) << name << " hypothesis " << i;
      }
      for (size_t i = 0; i < want_ref.size(); ++i) {
        EXPECT_EQ(Tok(lowercase ? Lower(refs[0][i]) : refs[0][i]), want_ref[i]) << name << " reference " << i;
      }
    }
  }

  nlohmann::json cases_;
};

TEST_F(BleuIntlGoldenTest, TokenizerMatches) { CheckTokenized("tokenized_intl", false); }

TEST_F(BleuIntlGoldenTest, LowercasedTokenizerMatches) { CheckTokenized("tokenized_intl_lowercased", true); }

TEST_F(BleuIntlGoldenTest, ScoreMatches) {
  ForEachScore([](const nlohmann::json& want, const BleuScore& got, const std::string& what) {
    EXPECT_NEAR(got.score, want["score"].get<double>(), 1e-9) << what;
  });
}

TEST_F(BleuIntlGoldenTest, CountsMatch) {
  ForEachScore([](const nlohmann::json& want, const BleuScore& got, const std::string& what) {
    for (size_t n = 0; n < 4; ++n) EXPECT_EQ(got.counts[n], want["counts"][n].get<int64_t>()) << what << " order " << n + 1;
  });
}

TEST_F(BleuIntlGoldenTest, TotalsMatch) {
  ForEachScore([](const nlohmann::json& want, const BleuScore& got, const std::string& what) {
    for (size_t n = 0; n < 4; ++n) EXPECT_EQ(got.totals[n], want["totals"][n].get<int64_t>()) << what << " order " << n + 1;
  });
}

TEST_F(BleuIntlGoldenTest, PrecisionsMatch) {
  ForEachScore([](const nlohmann::json& want, const BleuScore& got, const std::string& what) {
    for (size_t n = 0; n < 4; ++n) {
      EXPECT_NEAR(got.precisions[n], want["precisions"][n].get<double>(), 1e-9) << what << " order " << n + 1;
    }
  });
}

TEST_F(BleuIntlGoldenTest, BrevityPenaltyMatches) {
  ForEachScore([](const nlohmann::json& want, const BleuScore& got, const std::string& what) {
    EXPECT_NEAR(got.bp, want["bp"].get<double>(), 1e-9) << what;
  });
}

TEST_F(BleuIntlGoldenTest, LengthsMatch) {
  ForEachScore([](const nlohmann::json& want, const BleuScore& got, const std::string& what) {
    EXPECT_EQ(got.sys_len, want["sys_len"].get<int64_t>()) << what;
    EXPECT_EQ(got.ref_len, want["ref_len"].get<int64_t>()) << what;
  });
}

TEST(BleuIntlTest, TokenizerRules) {
  // Punctuation splits off unless a number is on both sides.
  EXPECT_EQ(Tok("Hallo, Welt!"), "Hallo , Welt !");
  EXPECT_EQ(Tok("3,5 und 1.000"), "3,5 und 1.000");
  EXPECT_EQ(Tok("„Zitat“ – Ende"), "„ Zitat “ – Ende");
  // A period after a number at the end of the line stays on it; inside it splits.
  EXPECT_EQ(Tok("im Jahr 2019."), "im Jahr 2019.");
  EXPECT_EQ(Tok("2019. Dann"), "2019 . Dann");
  // Symbols always split, also between digits; No numbers and letters do not.
  EXPECT_EQ(Tok("3€ 2+2 x² µm"), "3 € 2 + 2 x² µm");
  // The three passes are non-overlapping scans: '..3' keeps one period on the 3.
  EXPECT_EQ(Tok("a ..3"), "a . .3");
  // Unicode whitespace separates; zero-width space does not.
  EXPECT_EQ(Tok("a\u00a0b\u3000c\u200bd "), "a b c\u200bd");
  EXPECT_EQ(Tok(""), "");
}

TEST(BleuIntlTest, LowercasingIsPythonsStrLower) {
  // Full Unicode: umlauts, capital sharp s, final sigma, dotted capital I.
  auto b = CorpusBleu({"ÄRGER STRAẞE ΟΔΥΣΣΕΥΣ İ"}, {{"ärger straße οδυσσευς i\u0307"}}, kGnmtBleu);
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_EQ(b->counts[0], 4);
  EXPECT_EQ(b->counts[3], 1);
  // Cased, nothing matches but the shape.
  b = CorpusBleu({"ÄRGER STRAẞE ΟΔΥΣΣΕΥΣ İ"}, {{"ärger straße οδυσσευς i\u0307"}}, {.tokenizer = BleuTokenizer::kIntl});
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->counts[0], 0);
  // 13a uncased lowercases all of Unicode too, as SacreBLEU does.
  b = CorpusBleu({"ÜBER DIE BRÜCKE"}, {{"über die brücke"}}, {.lowercase = true});
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->counts[0], 3);
}

TEST(BleuIntlTest, RefusesInvalidUtf8NamingTheLine) {
  auto t = TokenizeIntl("ab\xff");
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("byte 2"), std::string::npos) << t.status().message();
  auto b = CorpusBleu({"gut", "schl\xc3"}, {{"gut", "schlecht"}}, kGnmtBleu);
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.status().message().find("hypothesis 1"), std::string::npos) << b.status().message();
  b = CorpusBleu({"gut", "schlecht"}, {{"gut", "x"}, {"\xc0\xaf", "y"}}, kGnmtBleu);
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.status().message().find("reference 0 of stream 1"), std::string::npos) << b.status().message();
}

}  // namespace
}  // namespace podbench::translation
