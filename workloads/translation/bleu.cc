#include "workloads/translation/bleu.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>

namespace podbench::translation {
namespace {

// Bytes of the UTF-8 sequence starting at s[i] that Python's str.isspace()
// calls whitespace (ASCII \t\n\v\f\r, \x1c-\x1f, space; U+0085, U+00A0,
// U+1680, U+2000-U+200A, U+2028, U+2029, U+202F, U+205F, U+3000), else 0.
size_t SpaceBytes(std::string_view s, size_t i) {
  const auto b = [&](size_t k) { return i + k < s.size() ? static_cast<unsigned char>(s[i + k]) : 0u; };
  const unsigned c = b(0);
  if (c == ' ' || (c >= 0x09 && c <= 0x0d) || (c >= 0x1c && c <= 0x1f)) return 1;
  if (c == 0xc2 && (b(1) == 0x85 || b(1) == 0xa0)) return 2;
  if (c == 0xe1 && b(1) == 0x9a && b(2) == 0x80) return 3;  // U+1680
  if (c == 0xe2 && b(1) == 0x80) {
    const unsigned t = b(2);
    if (t <= 0x8a || t == 0xa8 || t == 0xa9 || t == 0xaf) return 3;  // U+2000-200A, 2028, 2029, 202F
  }
  if (c == 0xe2 && b(1) == 0x81 && b(2) == 0x9f) return 3;  // U+205F
  if (c == 0xe3 && b(1) == 0x80 && b(2) == 0x80) return 3;  // U+3000
  return 0;
}

// The whitespace-separated words of `s` (Python's str.split()).
std::vector<std::string_view> SplitWords(std::string_view s) {
  std::vector<std::string_view> out;
  size_t i = 0, start = std::string_view::npos;
  while (i < s.size()) {
    const size_t w = SpaceBytes(s, i);
    if (w > 0) {
      if (start != std::string_view::npos) out.push_back(s.substr(start, i - start));
      start = std::string_view::npos;
      i += w;
    } else {
      if (start == std::string_view::npos) start = i;
      ++i;
    }
  }
  if (start != std::string_view::npos) out.push_back(s.substr(start));
  return out;
}

std::string_view RStrip(std::string_view s) {
  // Trailing whitespace, multi-byte forms included: scan forward for the end
  // of the last non-space character.
  size_t end = 0, i = 0;
  while (i < s.size()) {
    const size_t w = SpaceBytes(s, i);
    if (w > 0) {
      i += w;
    } else {
      end = ++i;
    }
  }
  return s.substr(0, end);
}

void ReplaceAll(std::string& s, std::string_view from, std::string_view to) {
  std::string out;
  size_t at = 0;
  for (size_t hit = s.find(from); hit != std::string::npos; hit = s.find(from, at)) {
    out.append(s, at, hit - at);
    out.append(to);
    at = hit + from.size();
  }
  out.append(s, at, std::string::npos);
  s = std::move(out);
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// 13a's first rule: the characters that get spaces on both sides.
bool IsSplitSymbol(char ch) {
  const unsigned c = static_cast<unsigned char>(ch);
  return (c >= 0x7b && c <= 0x7e) || (c >= 0x5b && c <= 0x60) || (c >= 0x20 && c <= 0x26) ||
         (c >= 0x28 && c <= 0x2b) || (c >= 0x3a && c <= 0x40) || c == '/';
}

// One left-to-right, non-overlapping pass of a two-character rewrite rule
// (what a regular-expression substitution of a two-character pattern does).
// `match(a, b)` decides a pair; `emit` writes its replacement. Both pattern
// characters in 13a's rules include an ASCII one, so scanning bytes finds
// exactly the matches a scan of Unicode characters finds.
template <typename Match, typename Emit>
std::string PairRule(const std::string& s, Match match, Emit emit) {
  std::string out;
  out.reserve(s.size() + s.size() / 4);
  size_t i = 0;
  while (i < s.size()) {
    if (i + 1 < s.size() && match(s[i], s[i + 1])) {
      emit(out, s[i], s[i + 1]);
      i += 2;
    } else {
      out.push_back(s[i++]);
    }
  }
  return out;
}

bool IsPeriodOrComma(char c) { return c == '.' || c == ','; }

using Ngrams = std::map<std::string, int64_t>;

// Every n-gram of orders 1..kBleuMaxOrder of `words`, with counts.
Ngrams CountNgrams(const std::vector<std::string_view>& words) {
  Ngrams out;
  for (size_t n = 1; n <= static_cast<size_t>(kBleuMaxOrder); ++n) {
    for (size_t i = 0; i + n <= words.size(); ++i) {
      std::string key;
      for (size_t k = 0; k < n; ++k) {
        if (k > 0) key.push_back(' ');
        key.append(words[i + k]);
      }
      ++out[key];
    }
  }
  return out;
}

std::string Preprocess(std::string_view line, bool lowercase) {
  std::string s(line);
  if (lowercase) {
    for (char& c : s) {
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    }
  }
  return Tokenize13a(RStrip(s));
}

}  // namespace

std::string Tokenize13a(std::string_view line) {
  std::string s(line);
  ReplaceAll(s, "<skipped>", "");
  ReplaceAll(s, "-\n", "");
  ReplaceAll(s, "\n", " ");
  if (s.find('&') != std::string::npos) {
    ReplaceAll(s, "&quot;", "\"");
    ReplaceAll(s, "&amp;", "&");
    ReplaceAll(s, "&lt;", "<");
    ReplaceAll(s, "&gt;", ">");
  }
  std::string t = " ";
  for (char c : s) {
    if (IsSplitSymbol(c)) {
      t.push_back(' ');
      t.push_back(c);
      t.push_back(' ');
    } else {
      t.push_back(c);
    }
  }
  t.push_back(' ');
  // A period or comma not preceded by a digit.
  t = PairRule(
      t, [](char a, char b) { return !IsDigit(a) && IsPeriodOrComma(b); },
      [](std::string& o, char a, char b) { o.push_back(a), o.push_back(' '), o.push_back(b), o.push_back(' '); });
  // A period or comma not followed by a digit.
  t = PairRule(
      t, [](char a, char b) { return IsPeriodOrComma(a) && !IsDigit(b); },
      [](std::string& o, char a, char b) { o.push_back(' '), o.push_back(a), o.push_back(' '), o.push_back(b); });
  // A hyphen after a digit.
  t = PairRule(
      t, [](char a, char b) { return IsDigit(a) && b == '-'; },
      [](std::string& o, char a, char b) { o.push_back(a), o.push_back(' '), o.push_back(b), o.push_back(' '); });
  std::string out;
  for (std::string_view w : SplitWords(t)) {
    if (!out.empty()) out.push_back(' ');
    out.append(w);
  }
  return out;
}

Result<BleuScore> CorpusBleu(const std::vector<std::string>& hypotheses,
                             const std::vector<std::vector<std::string>>& references, bool lowercase) {
  if (references.empty()) return Status::InvalidArgument("BLEU: no reference stream");
  for (size_t r = 0; r < references.size(); ++r) {
    if (references[r].size() != hypotheses.size()) {
      return Status::InvalidArgument("BLEU: reference stream " + std::to_string(r) + " has " +
                                     std::to_string(references[r].size()) + " lines, the hypotheses " +
                                     std::to_string(hypotheses.size()));
    }
  }
  BleuScore b;
  for (size_t i = 0; i < hypotheses.size(); ++i) {
    const std::string hyp = Preprocess(hypotheses[i], lowercase);
    const auto hyp_words = SplitWords(hyp);
    const int64_t hyp_len = static_cast<int64_t>(hyp_words.size());
    // Empty references are left out (fewer references for this sentence).
    Ngrams ref_max;
    int64_t closest = -1, closest_diff = -1;
    for (const auto& stream : references) {
      if (stream[i].empty()) continue;
      const std::string ref = Preprocess(stream[i], lowercase);
      const auto ref_words = SplitWords(ref);
      const int64_t len = static_cast<int64_t>(ref_words.size());
      const int64_t diff = std::llabs(hyp_len - len);
      if (closest_diff < 0 || diff < closest_diff) {
        closest_diff = diff;
        closest = len;
      } else if (diff == closest_diff) {
        closest = std::min(closest, len);
      }
      for (const auto& [gram, count] : CountNgrams(ref_words)) {
        int64_t& m = ref_max[gram];
        m = std::max(m, count);
      }
    }
    if (closest < 0) {
      return Status::InvalidArgument("BLEU: sentence " + std::to_string(i) + " has an empty reference in every stream");
    }
    b.sys_len += hyp_len;
    b.ref_len += closest;
    for (const auto& [gram, count] : CountNgrams(hyp_words)) {
      const size_t order = static_cast<size_t>(std::count(gram.begin(), gram.end(), ' '));
      b.totals[order] += count;
      auto it = ref_max.find(gram);
      if (it != ref_max.end()) b.counts[order] += std::min(count, it->second);
    }
  }
  double smooth = 1;
  for (size_t n = 0; n < static_cast<size_t>(kBleuMaxOrder); ++n) {
    if (b.totals[n] == 0) break;
    if (b.counts[n] == 0) {
      smooth *= 2;
      b.precisions[n] = 100.0 / (smooth * static_cast<double>(b.totals[n]));
    } else {
      b.precisions[n] = 100.0 * static_cast<double>(b.counts[n]) / static_cast<double>(b.totals[n]);
    }
  }
  if (b.sys_len < b.ref_len) {
    b.bp = b.sys_len > 0 ? std::exp(1.0 - static_cast<double>(b.ref_len) / static_cast<double>(b.sys_len)) : 0.0;
  } else {
    b.bp = 1;
  }
  // A zero precision counts as log 0 = -infinity: the score is 0.
  double log_sum = 0;
  bool zero = false;
  for (double p : b.precisions) {
    if (p <= 0) zero = true;
    else log_sum += std::log(p);
  }
  b.score = zero ? 0.0 : b.bp * std::exp(log_sum / kBleuMaxOrder);
  return b;
}

}  // namespace podbench::translation
