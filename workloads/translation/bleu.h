// Corpus BLEU as SacreBLEU computes it (Post 2018, "A Call for Clarity in
// Reporting BLEU Scores"; sacrebleu 2.x `corpus_bleu`). Its defaults (13a,
// cased) are BleuOptions{}; the Transformer's target is 13a uncased; Google's
// v0.6 GNMT scored `-lc --tokenize intl` (kGnmtBleu; gnmt-v0.6.md §4).
//
//   - Every line must be valid UTF-8 (SacreBLEU reads text as Python str).
//   - Lowercasing (when asked) comes first and is Python's str.lower() over
//     all of Unicode (base/unicode.h); then trailing whitespace is stripped
//     (str.rstrip()) and the line tokenised.
//   - Tokenisation `13a` (the mteval-v13a.pl rules): drop "<skipped>", join
//     "-\n" line breaks, unescape &quot; &amp; &lt; &gt;, put spaces around
//     punctuation and symbols except the apostrophe, the hyphen, the period
//     and the comma; split a period or comma off unless it sits between
//     digits; split a hyphen that follows a digit; collapse whitespace.
//   - Tokenisation `intl` (mteval-v14's international rules, SacreBLEU's
//     TokenizerV14International), over Unicode general categories, as three
//     passes, each a left-to-right scan of non-overlapping pairs: a
//     punctuation mark (P*) after a code point that is not a number (N*)
//     gets a space on both sides; a punctuation mark before a code point that
//     is not a number gets a space on both sides; every symbol (S*) gets a
//     space on both sides; then whitespace (str.split()) collapses. So a mark
//     between two digits stays, and so does one after a digit at the very
//     end of the line ("2019." stays whole).
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

enum class BleuTokenizer {
  k13a,  // SacreBLEU's default
  kIntl,  // `--tokenize intl`
};

struct BleuOptions {
  BleuTokenizer tokenizer = BleuTokenizer::k13a;
  bool lowercase = false;  // uncased BLEU (`-lc`): str.lower() before tokenising
};

// How Google's v0.6 GNMT scored (`sacrebleu -lc --tokenize intl`, G/metric.py;
// gnmt-v0.6.md §4).
inline constexpr BleuOptions kGnmtBleu{BleuTokenizer::kIntl, true};

// `line` tokenised by the 13a rules, tokens joined by single spaces.
std::string Tokenize13a(std::string_view line);

// `line` tokenised by the intl rules, tokens joined by single spaces.
// InvalidArgument when `line` is not valid UTF-8.
Result<std::string> TokenizeIntl(std::string_view line);

// Corpus BLEU of `hypotheses` against `references`: one or more reference
// STREAMS, each holding one reference per hypothesis (SacreBLEU's layout).
// InvalidArgument when there is no stream, a stream's length differs from
// the hypotheses', a line is not valid UTF-8 (the message names it), or a
// sentence's references are all empty.
Result<BleuScore> CorpusBleu(const std::vector<std::string>& hypotheses,
                             const std::vector<std::vector<std::string>>& references, const BleuOptions& options);

}  // namespace podbench::translation
