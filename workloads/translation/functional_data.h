// What the Transformer's and GNMT's functional sessions share about their
// data: the dataset their hyperparameters ask for, made for the cores this
// process holds, and the per-core counts every rank must agree on.
// Header-only: the translation library itself does not depend on the
// workloads' hyperparameters or on functional::DataParallel.
#pragma once

#include <cstdint>
#include <vector>

#include "base/status.h"
#include "topology/rank_group.h"
#include "workloads/functional/data_parallel.h"
#include "workloads/translation/dataset.h"
#include "workloads/workload.h"

namespace podbench::translation {

// functional_train_sentences, functional_eval_sentences,
// functional_vocab_size and max_sequence_length. The language pair's seed
// is fixed: the dataset does not depend on the run seed.
inline TranslationDataSpec FunctionalDataSpec(const workloads::Hyperparameters& hp) {
  TranslationDataSpec d;
  d.train_sentences = hp.Int("functional_train_sentences");
  d.eval_sentences = hp.Int("functional_eval_sentences");
  d.vocab_size = static_cast<int32_t>(hp.Int("functional_vocab_size"));
  d.max_length = hp.Int("max_sequence_length");
  return d;
}

// The run's data for the slice's cores this process holds (all of them
// without ctx.ranks, else its rank's block, as functional::DataParallel
// places them): the training examples of those cores only.
inline Result<TranslationData> MakeFunctionalTranslationData(const workloads::RunContext& ctx) {
  const int cores = static_cast<int>(ctx.slice.cores);
  const topology::CoreBlock local = ctx.ranks ? ctx.ranks->CoresOf(cores) : topology::CoreBlock{0, cores};
  return MakeTranslationData(FunctionalDataSpec(ctx.hp), cores, local);
}

// Every core's counts: local[k] holds core dp.local_cores().begin + k's `n`
// counts; returns [core][i] for every core, the other cores' from their
// ranks (exact below 2^53). Collective: every rank calls it alike.
inline Result<std::vector<std::vector<int64_t>>> ShareCoreCounts(functional::DataParallel& dp,
                                                                  const std::vector<std::vector<int64_t>>& local,
                                                                  size_t n) {
  const topology::CoreBlock block = dp.local_cores();
  if (local.size() != static_cast<size_t>(block.size())) {
    return Status::Internal("ShareCoreCounts: counts for " + std::to_string(local.size()) + " cores, this process holds " +
                            std::to_string(block.size()));
  }
  std::vector<std::vector<int64_t>> all(static_cast<size_t>(dp.cores()), std::vector<int64_t>(n, 0));
  std::vector<double> v(static_cast<size_t>(dp.cores()));
  for (size_t i = 0; i < n; ++i) {
    for (int c = block.begin; c < block.end; ++c) {
      const std::vector<int64_t>& mine = local[static_cast<size_t>(c - block.begin)];
      if (mine.size() != n) return Status::Internal("ShareCoreCounts: core " + std::to_string(c) + " has other counts");
      v[static_cast<size_t>(c)] = static_cast<double>(mine[i]);
    }
    PODBENCH_RETURN_IF_ERROR(dp.ShareCoreValues(v));
    for (size_t c = 0; c < all.size(); ++c) all[c][i] = static_cast<int64_t>(v[c]);
  }
  return all;
}

}  // namespace podbench::translation
