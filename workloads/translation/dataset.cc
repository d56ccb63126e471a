#include "workloads/translation/dataset.h"

namespace podbench::translation {

Result<TranslationData> MakeTranslationData(const TranslationDataSpec& spec, int cores, topology::CoreBlock local) {
  if (spec.train_sentences < 1 || spec.eval_sentences < 1 || spec.max_length < 2) {
    return Status::InvalidArgument("translation data: train_sentences and eval_sentences must be >= 1 and "
                                   "max_length >= 2 (got " + std::to_string(spec.train_sentences) + ", " +
                                   std::to_string(spec.eval_sentences) + ", " + std::to_string(spec.max_length) + ")");
  }
  if (cores < 1 || local.begin < 0 || local.end > cores || local.size() < 1) {
    return Status::InvalidArgument("translation data: cores [" + std::to_string(local.begin) + ", " +
                                   std::to_string(local.end) + ") are not a non-empty block of " +
                                   std::to_string(cores) + " cores");
  }
  const LanguagePair pair(spec.language);
  const auto train_n = static_cast<uint64_t>(spec.train_sentences);
  const auto eval_n = static_cast<uint64_t>(spec.eval_sentences);
  std::vector<std::string> corpus;
  corpus.reserve(2 * train_n);
  for (SentencePair& p : pair.Sentences(train_n + eval_n, train_n)) {
    corpus.push_back(std::move(p.source));
    corpus.push_back(std::move(p.target));
  }
  auto vocab = SubwordVocabulary::Learn(corpus, spec.vocab_size);
  if (!vocab.ok()) return vocab.status().WithContext("translation data");
  TranslationData d{std::move(vocab).value(), cores, local, {}, {}, {}, {}, {}, {}};
  d.train.resize(static_cast<size_t>(local.size()));
  d.dropped.assign(static_cast<size_t>(local.size()), 0);
  d.made_train.assign(train_n, 0);
  for (int c = local.begin; c < local.end; ++c) {
    const auto k = static_cast<size_t>(c - local.begin);
    for (uint64_t i = static_cast<uint64_t>(c); i < train_n; i += static_cast<uint64_t>(cores)) {
      const SentencePair p = pair.Sentence(i);
      d.made_train[i] = 1;
      TokenPair t{d.vocab.Encode(p.source), d.vocab.Encode(p.target)};
      t.source.push_back(kEosId);
      t.target.push_back(kEosId);
      if (static_cast<int64_t>(t.source.size()) > spec.max_length ||
          static_cast<int64_t>(t.target.size()) > spec.max_length) {
        ++d.dropped[k];
        continue;
      }
      d.train[k].push_back(std::move(t));
    }
  }
  for (const SentencePair& p : pair.Sentences(train_n, eval_n)) {
    d.eval_sources.push_back(d.vocab.Encode(p.source));
    d.eval_sources.back().push_back(kEosId);
    d.eval_source_text.push_back(p.source);
    d.eval_references.push_back(p.target);
  }
  return d;
}

}  // namespace podbench::translation
