// The generated language pair: deterministic, a real mapping (its own
// vocabulary, SOV order, agreement), held-out sentences unseen in training.
#include <algorithm>
#include <set>
#include <sstream>

#include <gtest/gtest.h>

#include "workloads/translation/language_pair.h"

namespace podbench::translation {
namespace {

std::vector<std::string> Words(const std::string& s) {
  std::vector<std::string> w;
  std::string cur;
  for (char c : s) {
    if (c == ' ' || c == '.' || c == ',') {
      if (!cur.empty()) w.push_back(cur);
      cur.clear();
      if (c != ' ') w.push_back(std::string(1, c));
    } else {
      cur.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    }
  }
  if (!cur.empty()) w.push_back(cur);
  return w;
}

bool StartsWith(const std::string& s, const std::string& p) { return s.compare(0, p.size(), p) == 0; }

TEST(LanguagePairTest, DeterministicPerIndexAndSeed) {
  LanguagePair a(LanguagePairSpec{}), b(LanguagePairSpec{});
  for (uint64_t i : {0u, 1u, 977u}) {
    EXPECT_EQ(a.Sentence(i).source, b.Sentence(i).source);
    EXPECT_EQ(a.Sentence(i).target, b.Sentence(i).target);
  }
  EXPECT_NE(a.Sentence(0).source, a.Sentence(1).source);
  LanguagePairSpec other;
  other.seed = 7;
  LanguagePair c(other);
  EXPECT_NE(a.target_lexicon().nouns, c.target_lexicon().nouns);  // another language
  const auto range = a.Sentences(10, 3);
  ASSERT_EQ(range.size(), 3u);
  EXPECT_EQ(range[2].target, a.Sentence(12).target);
}

TEST(LanguagePairTest, TargetHasItsOwnOrderAndAgreement) {
  LanguagePair lp(LanguagePairSpec{});
  const auto& lex = lp.target_lexicon();
  int sentences = 0, verb_final = 0;
  for (uint64_t i = 0; i < 400; ++i) {
    const SentencePair p = lp.Sentence(i);
    const auto src = Words(p.source), tgt = Words(p.target);
    // Every source word has exactly one target word (a noun phrase keeps its
    // length, a preposition becomes a postposition, ", and" a conjunction).
    EXPECT_EQ(src.size(), tgt.size()) << p.source << " | " << p.target;
    EXPECT_TRUE(std::isupper(static_cast<unsigned char>(p.target[0]))) << p.target;
    ASSERT_EQ(tgt.back(), ".");
    // The verb comes last (SOV), with a tense suffix and plural agreement.
    const std::string& verb = tgt[tgt.size() - 2];
    bool is_verb = false;
    for (const auto& v : lex.verbs) {
      for (const char* suffix : {"et", "ut", "eten", "uten"}) is_verb = is_verb || verb == v + suffix;
    }
    verb_final += is_verb;
    // Each noun form follows its determiner (nouns never start a phrase in
    // the source order), and the determiner agrees with the noun's gender
    // and number.
    for (size_t w = 1; w < tgt.size(); ++w) {
      for (size_t n = 0; n < lex.nouns.size(); ++n) {
        if (!StartsWith(tgt[w], lex.nouns[n])) continue;
        const std::string rest = tgt[w].substr(lex.nouns[n].size());
        const int g = lex.noun_gender[n];
        const std::string plural_suffix = g == 0 ? "ok" : "ir";
        if (!(rest.empty() || rest == "um" || rest == "es" || rest == plural_suffix ||
              rest == plural_suffix + "um" || rest == plural_suffix + "es")) {
          continue;  // another word that happens to share the stem's letters
        }
        const int plural = StartsWith(rest, plural_suffix) ? 1 : 0;
        const std::string& det = tgt[w - 1];
        EXPECT_TRUE(det == lex.determiners[static_cast<size_t>(g * 2 + plural)] ||
                    det == lex.determiners[static_cast<size_t>(4 + g * 2 + plural)])
            << "determiner '" << det << "' of noun '" << tgt[w] << "' in: " << p.target;
        // Adjectives after the noun take the gender/number suffix.
        const std::string agr = std::string(g == 0 ? "o" : "a") + (plural ? "i" : "");
        for (size_t a = w + 1; a < tgt.size(); ++a) {
          bool adjective = false;
          for (const auto& stem : lex.adjectives) adjective = adjective || tgt[a] == stem + agr;
          bool other_adjective = false;
          for (const auto& stem : lex.adjectives) {
            for (const char* suffix : {"o", "a", "oi", "ai"}) {
              other_adjective = other_adjective || (!adjective && tgt[a] == stem + suffix);
            }
          }
          EXPECT_FALSE(other_adjective) << "adjective '" << tgt[a] << "' does not agree in: " << p.target;
          if (!adjective) break;
        }
      }
    }
    ++sentences;
  }
  EXPECT_EQ(verb_final, sentences);
}

TEST(LanguagePairTest, TargetVocabularyIsNotTheSourceVocabulary) {
  LanguagePair lp(LanguagePairSpec{});
  std::set<std::string> src_words, tgt_words;
  for (uint64_t i = 0; i < 500; ++i) {
    for (const auto& w : Words(lp.Sentence(i).source)) src_words.insert(w);
    for (const auto& w : Words(lp.Sentence(i).target)) tgt_words.insert(w);
  }
  size_t shared = 0;
  for (const auto& w : tgt_words) shared += src_words.count(w);
  EXPECT_LE(shared, 2u);  // punctuation only
  EXPECT_GT(tgt_words.size(), 150u);  // inflected forms
}

TEST(LanguagePairTest, HeldOutSentencesAreMostlyUnseen) {
  LanguagePair lp(LanguagePairSpec{});
  std::set<std::string> train;
  for (const auto& p : lp.Sentences(0, 8000)) train.insert(p.source);
  int seen = 0;
  for (const auto& p : lp.Sentences(8000, 500)) seen += train.count(p.source) > 0;
  EXPECT_LT(seen, 10);
}

}  // namespace
}  // namespace podbench::translation
