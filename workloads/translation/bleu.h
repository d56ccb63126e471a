// Corpus BLEU as SacreBLEU computes it with its defaults (Post 2018, "A Call
// for Clarity in Reporting BLEU Scores"; sacrebleu 2.x `corpus_bleu`), which
// GNMT's v0.6 reference used for its target; the Transformer's target is the
// same score uncased (`lowercase` = true).
//
//   - Tokenisation `13a` (the mteval-v13a.pl rules): drop "<skipped>", join
//     "-\n" line breaks, unescape &quot; &amp; &lt; &gt;, put spaces around
//     punctuation and symbols except the apostrophe, the hyphen, the period
//     and the comma; split a period or comma off unless it sits between
//     digits; split a hyphen that follows a digit; collapse whitespace.
//     Lowercasing (when asked) comes first and is ASCII-only: non-ASCII
//     letters keep their case (SacreBLEU lowercases all of Unicode; the
//     generated languages are ASCII).
//   - n-gram orders 1..4; each hypothesis n-gram count clipped by its largest
//     count in any one reference; matches and totals summed over the corpus.
//   - Brevity penalty over the corpus: per sentence, the reference length
//     closest to the hypothesis length (a tie goes to the shorter one),
//     summed into r; c = the hypothesis tokens; bp = exp(1 - r / c) when
//     c < r (0 when c = 0), else 1.
//   - Smoothing `exp`: the k-th order (k = 1, 2, ...) whose match count is 0
//     gets precision 100 / (2^k * total); an order with total 0 makes BLEU 0.
//   - BLEU = bp * exp(mean of the log precisions), precisions in percent.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace podbench::translation {

inline constexpr int kBleuMaxOrder = 4;

struct BleuScore {
  double score = 0;  // 0..100
  std::array<int64_t, kBleuMaxOrder> counts{};  // clipped matches per order
  std::array<int64_t, kBleuMaxOrder> totals{};  // hypothesis n-grams per order
  std::array<double, kBleuMaxOrder> precisions{};  // percent, after smoothing
  double bp = 0;
  int64_t sys_len = 0, ref_len = 0;
};

// `line` tokenised by the 13a rules, tokens joined by single spaces.
std::string Tokenize13a(std::string_view line);

// Corpus BLEU of `hypotheses` against `references`: one or more reference
// STREAMS, each holding one reference per hypothesis (SacreBLEU's layout).
// `lowercase`: ASCII-lowercase hypotheses and references first (uncased BLEU).
// InvalidArgument when there is no stream or a stream's length differs from
// the hypotheses'.
Result<BleuScore> CorpusBleu(const std::vector<std::string>& hypotheses,
                             const std::vector<std::vector<std::string>>& references, bool lowercase);

}  // namespace podbench::translation
