// Beam search over any autoregressive decoder, as tensor2tensor's
// beam_search.py runs it for the Transformer (and GNMT-style models): scores
// are log-probabilities divided by the length penalty of Wu et al. 2016
// ("Google's Neural Machine Translation System", eq. 14),
//   lp(len) = ((5 + len) / 6)^alpha,
// where len counts the tokens decoded so far, the end-of-sentence token
// included. Per step and sentence: the 2 x beam best continuations of the
// live hypotheses; those ending in end-of-sentence compete for the beam
// finished slots by score, the others for the beam live slots by
// log-probability. A sentence stops when its worst finished score beats
// what its best live hypothesis could still reach (its log-probability over
// the penalty of the longest allowed length), or after max_steps. The result
// is the best finished hypothesis, or the best live one when none finished.
//
// The decoder is a callback: each step it gets, for every row (one live
// hypothesis), the row of the previous step that this row continues (so a
// decoder with a cache gathers its cache rows), the sentence the row belongs
// to and the token the row appended last; it returns log-probabilities over
// the vocabulary per row. Step 0 has one row per sentence and token
// `start_id`; later steps have beam_size rows per live sentence.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "base/status.h"

namespace podbench::translation {

struct BeamSearchOptions {
  int beam_size = 4;      // REQUIRES: >= 1
  double alpha = 0.6;     // length penalty exponent; 0 = no penalty
  int max_steps = 64;     // tokens decoded at most, end-of-sentence included; REQUIRES: >= 1
  int32_t eos_id = 1;
  int32_t start_id = 0;   // the token fed at step 0 (tensor2tensor feeds 0)
};

struct DecodeStep {
  int step = 0;                          // 0-based position being predicted
  std::span<const int32_t> parent_rows;  // row r continues row parent_rows[r] of the previous step (step 0: -1)
  std::span<const int32_t> sentences;    // sentence of row r, in [0, batch)
  std::span<const int32_t> tokens;       // the token row r appended last (step 0: start_id)
};

// Fills log_probs (rows x vocab, row-major) with log-probabilities of the
// next token for every row of `step`.
using DecoderStepFn = std::function<Status(const DecodeStep& step, std::span<float> log_probs)>;

struct BeamResult {
  std::vector<int32_t> tokens;  // without the end-of-sentence token
  double score = 0;             // log-probability / lp(len)
  bool finished = false;        // ended with end-of-sentence within max_steps
};

// Decodes `batch` sentences. Errors from `step` are returned unchanged;
// InvalidArgument for bad options or vocab < 1.
Result<std::vector<BeamResult>> BeamSearch(int batch, int32_t vocab, const BeamSearchOptions& options,
                                           const DecoderStepFn& step);

// ((5 + length) / 6)^alpha.
double LengthPenalty(int length, double alpha);

}  // namespace podbench::translation
