// A functional translation dataset: the generated language pair
// (language_pair.h) turned into what a model trains and is evaluated on.
//
//   - Training sentences are pairs [0, train_sentences); held-out ones
//     [train_sentences, train_sentences + eval_sentences): disjoint.
//   - The subword vocabulary (subword.h) is learned on the training source
//     and target text together (shared vocabulary).
//   - Every sequence is its subword ids plus end-of-sentence. Training
//     examples whose source or target is longer than max_length tokens are
//     dropped (MLPerf v0.6 lets sequence models drop training examples over
//     a maximum length; Google's Transformer dropped those over 80), counted
//     in `dropped`. Held-out sentences are never dropped.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "workloads/translation/language_pair.h"
#include "workloads/translation/packing.h"
#include "workloads/translation/subword.h"

namespace podbench::translation {

struct TranslationDataSpec {
  LanguagePairSpec language;
  int64_t train_sentences = 16384;
  int64_t eval_sentences = 512;
  int32_t vocab_size = 320;  // subword vocabulary, reserved ids included
  int64_t max_length = 48;   // training examples longer than this (tokens, EOS included) are dropped
};

struct TranslationData {
  SubwordVocabulary vocab;
  std::vector<TokenPair> train;  // kept training examples
  int64_t dropped = 0;           // training examples over max_length
  std::vector<std::vector<int32_t>> eval_sources;  // held-out source ids + EOS
  std::vector<std::string> eval_source_text, eval_references;  // held-out source and reference target text
};

// InvalidArgument naming the field for sizes < 1 (train, eval, max_length)
// or a vocabulary the corpus cannot have (see SubwordVocabulary::Learn).
Result<TranslationData> MakeTranslationData(const TranslationDataSpec& spec);

}  // namespace podbench::translation
