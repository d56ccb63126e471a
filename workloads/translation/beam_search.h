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
// Coverage penalty (GNMT; Wu et al. 2016 eq. 14), when
// options.coverage_penalty = beta > 0: a finished hypothesis scores
//   log-probability / lp(len) + beta * sum_i log(min(a_i, 1)),
// where a_i is the attention the hypothesis paid to source position i summed
// over its decode steps (the end-of-sentence step included), and positions
// with a_i exactly 0 (padding, which attention masks to 0) count as
// log 1 = 0, as Google's v0.6 beam_search_decoder.py `_get_scores` does. The
// penalty is never positive, so the stopping bound above still holds.
//
// What this search does not copy from Google's v0.6 GNMT decoder (the scoring
// formulas are the same): Google keeps finished hypotheses in the beam's
// `beam` slots (they extend only by end-of-sentence at log-probability 0) and
// ranks all slots by raw log-probability, applying lp and the coverage
// penalty only once every slot of a sentence has finished; it breaks ties
// with `top_k_with_unique` (the low mantissa bits replaced by the index), runs
// all 160 steps, and returns slot 0, which is the best raw log-probability
// when a sentence never finished all its slots. Here finished hypotheses
// compete by lp- and coverage-penalised score in their own `beam` slots, as
// tensor2tensor's search does.
//
// The decoder is a callback: each step it gets, for every row (one live
// hypothesis), the row of the previous step that this row continues (so a
// decoder with a cache gathers its cache rows), the sentence the row belongs
// to and the token the row appended last; it returns log-probabilities over
// the vocabulary per row, and, when coverage is on, each row's attention
// probabilities over the source positions at this step. Step 0 has one row
// per sentence and token `start_id`; later steps have beam_size rows per live
// sentence.
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
  // Coverage penalty weight beta; 0 = none (the decoder gets no attention
  // span). REQUIRES: >= 0; > 0 needs source_positions >= 1.
  double coverage_penalty = 0;
  // Width of each row's attention: the longest source sentence of the batch.
  int source_positions = 0;
};

// Google's v0.6 GNMT decode (gnmt-v0.6.md §4): beam 5, length penalty 0.6,
// coverage penalty 0.1, at most 160 steps. Set source_positions per batch.
BeamSearchOptions GnmtBeamSearchOptions();

struct DecodeStep {
  int step = 0;                          // 0-based position being predicted
  std::span<const int32_t> parent_rows;  // row r continues row parent_rows[r] of the previous step (step 0: -1)
  std::span<const int32_t> sentences;    // sentence of row r, in [0, batch)
  std::span<const int32_t> tokens;       // the token row r appended last (step 0: start_id)
  // Coverage on: rows x source_positions, row-major, zero-filled; the
  // decoder writes row r's attention probabilities over its sentence's source
  // positions for this step, and leaves 0 past the sentence's length.
  // Coverage off: empty.
  std::span<float> attention;
};

// Fills log_probs (rows x vocab, row-major) with log-probabilities of the
// next token for every row of `step`, and step.attention when it is not
// empty.
using DecoderStepFn = std::function<Status(const DecodeStep& step, std::span<float> log_probs)>;

struct BeamResult {
  std::vector<int32_t> tokens;  // without the end-of-sentence token
  double score = 0;             // log-probability / lp(len) + coverage penalty
  double log_prob = 0;          // of the tokens, end-of-sentence included when finished
  double coverage_penalty = 0;  // beta * sum_i log(min(a_i, 1)); 0 when off
  bool finished = false;        // ended with end-of-sentence within max_steps
};

// Decodes `batch` sentences. Errors from `step` are returned unchanged;
// InvalidArgument for bad options or vocab < 1.
Result<std::vector<BeamResult>> BeamSearch(int batch, int32_t vocab, const BeamSearchOptions& options,
                                           const DecoderStepFn& step);

// ((5 + length) / 6)^alpha.
double LengthPenalty(int length, double alpha);

// beta * sum_i log(min(a_i, 1)) over the positions with a_i != 0.
double CoveragePenalty(std::span<const double> accumulated_attention, double beta);

}  // namespace podbench::translation
