#include "workloads/translation/beam_search.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace podbench::translation {
namespace {

struct Hypothesis {
  std::vector<int32_t> tokens;  // end-of-sentence included for finished ones
  double log_prob = 0;
  double score = 0;             // finished: log_prob / lp(len) + coverage penalty
  double coverage_penalty = 0;  // finished: of `attention`
  int32_t row = -1;             // its row in the last decoder step (live ones)
  std::vector<double> attention;  // per source position, summed over its steps (coverage on)
};

struct SentenceState {
  std::vector<Hypothesis> alive, finished;
  bool done = false;
};

struct Candidate {
  double log_prob;
  int64_t flat;  // hypothesis * vocab + token: the tie-break, lower first
};

}  // namespace

double LengthPenalty(int length, double alpha) { return std::pow((5.0 + length) / 6.0, alpha); }

double CoveragePenalty(std::span<const double> accumulated_attention, double beta) {
  double sum = 0;
  for (double a : accumulated_attention) {
    if (a != 0) sum += std::log(std::min(a, 1.0));
  }
  return beta * sum;
}

BeamSearchOptions GnmtBeamSearchOptions() {
  BeamSearchOptions o;
  o.beam_size = 5;
  o.alpha = 0.6;
  o.coverage_penalty = 0.1;
  o.max_steps = 160;  // tgt_max_len_infer
  return o;
}

Result<std::vector<BeamResult>> BeamSearch(int batch, int32_t vocab, const BeamSearchOptions& o,
                                           const DecoderStepFn& step) {
  if (o.beam_size < 1 || o.max_steps < 1 || vocab < 1 || batch < 0 || o.eos_id < 0 || o.eos_id >= vocab) {
    return Status::InvalidArgument("beam search: beam_size and max_steps must be >= 1, vocab >= 1, eos_id in the "
                                   "vocabulary (beam " + std::to_string(o.beam_size) + ", max_steps " +
                                   std::to_string(o.max_steps) + ", vocab " + std::to_string(vocab) + ")");
  }
  if (!(o.coverage_penalty >= 0) || (o.coverage_penalty > 0 && o.source_positions < 1) || o.source_positions < 0) {
    return Status::InvalidArgument("beam search: coverage_penalty must be >= 0, and > 0 needs source_positions >= 1 "
                                   "(coverage_penalty " + std::to_string(o.coverage_penalty) + ", source_positions " +
                                   std::to_string(o.source_positions) + ")");
  }
  const bool coverage = o.coverage_penalty > 0;
  const size_t width = coverage ? static_cast<size_t>(o.source_positions) : 0;
  const size_t beam = static_cast<size_t>(o.beam_size);
  std::vector<SentenceState> st(static_cast<size_t>(batch));
  for (auto& s : st) {
    s.alive.push_back(Hypothesis{});
    s.alive.back().attention.assign(width, 0.0);
  }
  const double max_penalty = LengthPenalty(o.max_steps, o.alpha);
  std::vector<int32_t> parents, sentences, tokens;
  std::vector<float> log_probs, attention;
  std::vector<Candidate> cand;
  for (int i = 0; i < o.max_steps; ++i) {
    parents.clear();
    sentences.clear();
    tokens.clear();
    for (size_t b = 0; b < st.size(); ++b) {
      if (st[b].done) continue;
      for (Hypothesis& h : st[b].alive) {
        parents.push_back(h.row);
        sentences.push_back(static_cast<int32_t>(b));
        tokens.push_back(h.tokens.empty() ? o.start_id : h.tokens.back());
        h.row = static_cast<int32_t>(parents.size() - 1);
      }
    }
    if (parents.empty()) break;
    log_probs.assign(parents.size() * static_cast<size_t>(vocab), 0.f);
    attention.assign(parents.size() * width, 0.f);
    PODBENCH_RETURN_IF_ERROR(step(DecodeStep{i, parents, sentences, tokens, attention}, log_probs));
    const double penalty = LengthPenalty(i + 1, o.alpha);
    for (SentenceState& s : st) {
      if (s.done) continue;
      cand.clear();
      for (size_t k = 0; k < s.alive.size(); ++k) {
        const float* lp = log_probs.data() + static_cast<size_t>(s.alive[k].row) * static_cast<size_t>(vocab);
        for (int32_t v = 0; v < vocab; ++v) {
          cand.push_back({s.alive[k].log_prob + lp[v], static_cast<int64_t>(k) * vocab + v});
        }
      }
      const size_t top = std::min(cand.size(), 2 * beam);
      std::partial_sort(cand.begin(), cand.begin() + static_cast<std::ptrdiff_t>(top), cand.end(),
                        [](const Candidate& a, const Candidate& b) {
                          return a.log_prob > b.log_prob || (a.log_prob == b.log_prob && a.flat < b.flat);
                        });
      std::vector<Hypothesis> alive;
      for (size_t c = 0; c < top; ++c) {
        const Hypothesis& parent = s.alive[static_cast<size_t>(cand[c].flat / vocab)];
        const int32_t token = static_cast<int32_t>(cand[c].flat % vocab);
        if (!std::isfinite(cand[c].log_prob)) continue;
        Hypothesis h;
        h.tokens = parent.tokens;
        h.tokens.push_back(token);
        h.log_prob = cand[c].log_prob;
        h.row = parent.row;
        if (coverage) {
          const float* a = attention.data() + static_cast<size_t>(parent.row) * width;
          h.attention = parent.attention;
          for (size_t p = 0; p < width; ++p) h.attention[p] += a[p];
        }
        if (token == o.eos_id) {
          h.coverage_penalty = coverage ? CoveragePenalty(h.attention, o.coverage_penalty) : 0.0;
          h.score = h.log_prob / penalty + h.coverage_penalty;
          s.finished.push_back(std::move(h));
        } else if (alive.size() < beam) {
          alive.push_back(std::move(h));
        }
      }
      // Earlier finished hypotheses win ties, as a stable top-k over
      // [previous finished, new finished] does.
      std::stable_sort(s.finished.begin(), s.finished.end(),
                       [](const Hypothesis& a, const Hypothesis& b) { return a.score > b.score; });
      if (s.finished.size() > beam) s.finished.resize(beam);
      s.alive = std::move(alive);
      if (s.alive.empty()) {
        s.done = true;
      } else if (!s.finished.empty()) {
        const double lowest_finished = s.finished.back().score;
        s.done = lowest_finished > s.alive.front().log_prob / max_penalty;
      }
    }
  }
  std::vector<BeamResult> out(st.size());
  for (size_t b = 0; b < st.size(); ++b) {
    const SentenceState& s = st[b];
    if (!s.finished.empty()) {
      const Hypothesis& h = s.finished.front();
      out[b].tokens.assign(h.tokens.begin(), h.tokens.end() - 1);
      out[b].score = h.score;
      out[b].log_prob = h.log_prob;
      out[b].coverage_penalty = h.coverage_penalty;
      out[b].finished = true;
    } else if (!s.alive.empty()) {
      const Hypothesis& h = s.alive.front();
      out[b].tokens = h.tokens;
      out[b].log_prob = h.log_prob;
      out[b].coverage_penalty = coverage ? CoveragePenalty(h.attention, o.coverage_penalty) : 0.0;
      out[b].score = h.log_prob / LengthPenalty(static_cast<int>(h.tokens.size()), o.alpha) + out[b].coverage_penalty;
    }
  }
  return out;
}

}  // namespace podbench::translation
