// A generated language pair whose translation must be learned: an
// English-like source language and a target language with its own
// vocabulary, word order and agreement. Functional translation workloads
// (Transformer, and GNMT next) train on it because WMT does not fit a 2-core
// machine; it is not a copy or a reversal task:
//
//   - Vocabulary: the source uses English words (nouns, adjectives,
//     transitive verbs in present and past, prepositions, adverbs, "the",
//     "a"/"an"/"some", "and"); every target stem and function word is a
//     pseudo-word drawn from the spec's seed, so another seed is another
//     language.
//   - Word order: source SVO with adjectives before the noun and
//     prepositions; target SOV (subject, adverb, object, postpositional
//     phrase, verb last), adjectives after the noun in mirrored order, a
//     postposition after its noun phrase.
//   - Agreement: each target noun has a lexical gender (masculine or
//     feminine, drawn from the seed, not visible in the source); the
//     determiner agrees in definiteness, gender and number, every adjective
//     in gender and number; the noun takes a gendered plural suffix and a
//     case suffix (nominative subject, accusative object, oblique in a
//     postpositional phrase); the verb takes a tense suffix and agrees with
//     the subject in number (in the past tense too, where English does not
//     show it).
//   - Sentences: one clause, or two joined by ", and"; capitalised, ending
//     in a period. Punctuation is written attached to the word before it.
//
// Sentence i of a spec is a pure function of (seed, i), so any range of
// indices can be generated anywhere (training and held-out sets are disjoint
// index ranges).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace podbench::translation {

struct LanguagePairSpec {
  uint64_t seed = 20190610;            // fixes the target language and the sentences
  double second_clause = 0.15;         // probability of ", and" + a second clause
  double prepositional_phrase = 0.4;   // per clause
  double adverb = 0.3;                 // per clause
  double plural = 0.35;                // per noun phrase
  double definite = 0.6;               // per noun phrase
};

struct SentencePair {
  std::string source, target;
};

class LanguagePair {
 public:
  explicit LanguagePair(const LanguagePairSpec& spec);

  // Sentence pair `index`: deterministic in (spec, index).
  SentencePair Sentence(uint64_t index) const;
  // Pairs [first, first + count).
  std::vector<SentencePair> Sentences(uint64_t first, uint64_t count) const;

  const LanguagePairSpec& spec() const { return spec_; }

  // The generated target lexicon, for tests: one stem per source noun,
  // adjective, verb, preposition and adverb (in the source lists' order),
  // each noun's gender (0 masculine, 1 feminine), the 8 determiners
  // (index: definite * 4 + gender * 2 + plural) and the conjunction.
  struct TargetLexicon {
    std::vector<std::string> nouns, adjectives, verbs, postpositions, adverbs;
    std::vector<int> noun_gender;
    std::array<std::string, 8> determiners;
    std::string conjunction;
  };
  const TargetLexicon& target_lexicon() const { return lex_; }

 private:
  LanguagePairSpec spec_;
  TargetLexicon lex_;
};

}  // namespace podbench::translation
