// The learned subword vocabulary: its size, real subwords, an exact inverse
// on the generated languages, unknown bytes, bad sizes refused.
#include <gtest/gtest.h>

#include "workloads/translation/dataset.h"
#include "workloads/translation/language_pair.h"
#include "workloads/translation/subword.h"

namespace podbench::translation {
namespace {

std::vector<std::string> Corpus(int n) {
  LanguagePair lp(LanguagePairSpec{});
  std::vector<std::string> c;
  for (const auto& p : lp.Sentences(0, static_cast<uint64_t>(n))) {
    c.push_back(p.source);
    c.push_back(p.target);
  }
  return c;
}

TEST(SubwordTest, LearnsTheRequestedSizeAndRoundTrips) {
  const auto corpus = Corpus(2000);
  auto v = SubwordVocabulary::Learn(corpus, 300);
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  EXPECT_EQ(v->size(), 300);
  EXPECT_GT(v->merges(), 100);
  // Held-out sentences decode to exactly their text.
  LanguagePair lp(LanguagePairSpec{});
  for (const auto& p : lp.Sentences(5000, 200)) {
    for (const std::string& s : {p.source, p.target}) {
      const auto ids = v->Encode(s);
      for (int32_t id : ids) {
        EXPECT_GE(id, kReservedIds);
        EXPECT_LT(id, v->size());
      }
      EXPECT_EQ(v->Decode(ids), s);
    }
  }
  // Frequent words become one piece; the sequence is shorter than its bytes.
  const auto the = v->Encode("the");
  ASSERT_EQ(the.size(), 1u);
  EXPECT_EQ(v->Piece(the[0]), "the_");
  const std::string s = corpus[1];
  EXPECT_LT(v->Encode(s).size(), s.size() / 2);
}

TEST(SubwordTest, SmallVocabularySplitsWordsIntoPieces) {
  auto v = SubwordVocabulary::Learn(Corpus(500), 120);
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  LanguagePair lp(LanguagePairSpec{});
  const SentencePair p = lp.Sentence(4000);
  const auto ids = v->Encode(p.target);
  EXPECT_GT(ids.size(), SplitSubwordWords(p.target).size());  // some words take several pieces
  EXPECT_EQ(v->Decode(ids), p.target);
}

TEST(SubwordTest, UnknownBytesAndReservedIds) {
  auto v = SubwordVocabulary::Learn({"ab ab ab abc."}, 12);
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  const auto ids = v->Encode("abz");
  ASSERT_FALSE(ids.empty());
  EXPECT_EQ(ids.back(), kUnknownId);
  EXPECT_EQ(v->Piece(kPadId), "<pad>");
  EXPECT_EQ(v->Piece(kEosId), "<eos>");
  // Decoding stops at end-of-sentence and skips padding.
  auto ab = v->Encode("ab.");
  std::vector<int32_t> padded = {kPadId};
  padded.insert(padded.end(), ab.begin(), ab.end());
  padded.push_back(kEosId);
  padded.push_back(ab[0]);
  EXPECT_EQ(v->Decode(padded), "ab.");
}

TEST(SubwordTest, RefusesSizesBelowTheAlphabet) {
  auto v = SubwordVocabulary::Learn({"abc"}, 5);
  ASSERT_FALSE(v.ok());
  EXPECT_NE(v.status().message().find("minimum of 9"), std::string::npos) << v.status().message();
  EXPECT_FALSE(SubwordVocabulary::Learn({}, 100).ok());
}

TEST(TranslationDataTest, DropsLongTrainingExamplesOnly) {
  TranslationDataSpec spec;
  spec.train_sentences = 600;
  spec.eval_sentences = 50;
  spec.vocab_size = 200;
  spec.max_length = 1000;
  auto all = MakeTranslationData(spec);
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  EXPECT_EQ(all->dropped, (std::vector<int64_t>{0}));
  ASSERT_EQ(all->train.size(), 1u) << "one core by default";
  EXPECT_EQ(all->train[0].size(), 600u);
  size_t longest = 0;
  for (const auto& t : all->train[0]) {
    longest = std::max({longest, t.source.size(), t.target.size()});
    EXPECT_EQ(t.source.back(), kEosId);
    EXPECT_EQ(t.target.back(), kEosId);
  }
  spec.max_length = static_cast<int64_t>(longest) - 4;
  auto some = MakeTranslationData(spec);
  ASSERT_TRUE(some.ok());
  EXPECT_GT(some->dropped[0], 0);
  EXPECT_EQ(some->dropped[0] + static_cast<int64_t>(some->train[0].size()), 600);
  for (const auto& t : some->train[0]) {
    EXPECT_LE(static_cast<int64_t>(t.source.size()), spec.max_length);
    EXPECT_LE(static_cast<int64_t>(t.target.size()), spec.max_length);
  }
  // Held-out sentences are never dropped and keep their text.
  EXPECT_EQ(some->eval_sources.size(), 50u);
  EXPECT_EQ(some->eval_references.size(), 50u);
  EXPECT_EQ(some->vocab.Decode(some->eval_sources[3]), some->eval_source_text[3]);
  spec.eval_sentences = 0;
  EXPECT_FALSE(MakeTranslationData(spec).ok());
  spec.eval_sentences = 50;
  EXPECT_FALSE(MakeTranslationData(spec, 4, {2, 5}).ok()) << "cores outside the slice";
  EXPECT_FALSE(MakeTranslationData(spec, 4, {2, 2}).ok()) << "no cores";
}

}  // namespace
}  // namespace podbench::translation
