#include "workloads/translation/dataset.h"

namespace podbench::translation {

Result<TranslationData> MakeTranslationData(const TranslationDataSpec& spec) {
  if (spec.train_sentences < 1 || spec.eval_sentences < 1 || spec.max_length < 2) {
    return Status::InvalidArgument("translation data: train_sentences and eval_sentences must be >= 1 and "
                                   "max_length >= 2 (got " + std::to_string(spec.train_sentences) + ", " +
                                   std::to_string(spec.eval_sentences) + ", " + std::to_string(spec.max_length) + ")");
  }
  const LanguagePair pair(spec.language);
  const auto train = pair.Sentences(0, static_cast<uint64_t>(spec.train_sentences));
  std::vector<std::string> corpus;
  corpus.reserve(2 * train.size());
  for (const SentencePair& p : train) {
    corpus.push_back(p.source);
    corpus.push_back(p.target);
  }
  auto vocab = SubwordVocabulary::Learn(corpus, spec.vocab_size);
  if (!vocab.ok()) return vocab.status().WithContext("translation data");
  TranslationData d{std::move(vocab).value(), {}, 0, {}, {}, {}};
  for (const SentencePair& p : train) {
    TokenPair t{d.vocab.Encode(p.source), d.vocab.Encode(p.target)};
    t.source.push_back(kEosId);
    t.target.push_back(kEosId);
    if (static_cast<int64_t>(t.source.size()) > spec.max_length ||
        static_cast<int64_t>(t.target.size()) > spec.max_length) {
      ++d.dropped;
      continue;
    }
    d.train.push_back(std::move(t));
  }
  for (const SentencePair& p :
       pair.Sentences(static_cast<uint64_t>(spec.train_sentences), static_cast<uint64_t>(spec.eval_sentences))) {
    d.eval_sources.push_back(d.vocab.Encode(p.source));
    d.eval_sources.back().push_back(kEosId);
    d.eval_source_text.push_back(p.source);
    d.eval_references.push_back(p.target);
  }
  return d;
}

}  // namespace podbench::translation
