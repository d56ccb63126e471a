#include "workloads/translation/bleu.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>

#include "base/unicode.h"

namespace podbench::translation {
namespace {

// Bytes of the UTF-8 sequence starting at s[i] when Python's str.isspace()
// calls it whitespace, else 0.
size_t SpaceBytes(std::string_view s, size_t i) {
  const unicode::CodePointAt at = unicode::DecodeAt(s, i);
  return at.bytes > 0 && unicode::IsSpace(at.c) ? at.bytes : 0;
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
// (what a regular-expression substitution of a two-character pattern does)
// over a string of bytes or of code points. `match(a, b)` decides a pair;
// `emit` writes its replacement. Both pattern characters in 13a's rules
// include an ASCII one, so scanning bytes finds exactly the matches a scan of
// Unicode characters finds.
template <typename Str, typename Match, typename Emit>
Str PairRule(const Str& s, Match match, Emit emit) {
  Str out;
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

// The intl rules over code points (contract in bleu.h).
std::u32string TokenizeIntlText(const std::u32string& s) {
  using unicode::IsNumber, unicode::IsPunctuation;
  // A punctuation mark after a non-number.
  std::u32string t = PairRule(
      s, [](char32_t a, char32_t b) { return !IsNumber(a) && IsPunctuation(b); },
      [](std::u32string& o, char32_t a, char32_t b) { o.push_back(a), o.push_back(U' '), o.push_back(b), o.push_back(U' '); });
  // A punctuation mark before a non-number.
  t = PairRule(
      t, [](char32_t a, char32_t b) { return IsPunctuation(a) && !IsNumber(b); },
      [](std::u32string& o, char32_t a, char32_t b) { o.push_back(U' '), o.push_back(a), o.push_back(U' '), o.push_back(b); });
  std::u32string u;
  u.reserve(t.size() + t.size() / 4);
  for (char32_t c : t) {
    if (unicode::IsSymbol(c)) {
      u.push_back(U' ');
      u.push_back(c);
      u.push_back(U' ');
    } else {
      u.push_back(c);
    }
  }
  return unicode::CollapseSpaces(u);
}

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

// `line` as SacreBLEU's BLEU prepares a segment: lowercased when asked,
// trailing whitespace stripped, tokenised. `what` names the line in errors.
Result<std::string> Preprocess(std::string_view line, const BleuOptions& o, const std::string& what) {
  PODBENCH_ASSIGN_OR_RETURN(std::u32string text, unicode::DecodeUtf8(line, what));
  if (o.lowercase) text = unicode::Lower(text);
  size_t end = text.size();
  while (end > 0 && unicode::IsSpace(text[end - 1])) --end;
  text.resize(end);
  switch (o.tokenizer) {
    case BleuTokenizer::k13a:
      return Tokenize13a(unicode::EncodeUtf8(text));
    case BleuTokenizer::kIntl:
      return unicode::EncodeUtf8(TokenizeIntlText(text));
  }
  return Status::InvalidArgument("BLEU: unknown tokenizer " + std::to_string(static_cast<int>(o.tokenizer)));
}

}  // namespace

Result<std::string> TokenizeIntl(std::string_view line) {
  PODBENCH_ASSIGN_OR_RETURN(std::u32string text, unicode::DecodeUtf8(line, "BLEU: the line to tokenise"));
  return unicode::EncodeUtf8(TokenizeIntlText(text));
}

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
                             const std::vector<std::vector<std::string>>& references, const BleuOptions& options) {
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
    PODBENCH_ASSIGN_OR_RETURN(const std::string hyp,
                              Preprocess(hypotheses[i], options, "BLEU: hypothesis " + std::to_string(i)));
    const auto hyp_words = SplitWords(hyp);
    const int64_t hyp_len = static_cast<int64_t>(hyp_words.size());
    // Empty references are left out (fewer references for this sentence).
    Ngrams ref_max;
    int64_t closest = -1, closest_diff = -1;
    for (const auto& stream : references) {
      if (stream[i].empty()) continue;
      PODBENCH_ASSIGN_OR_RETURN(
          const std::string ref,
          Preprocess(stream[i], options,
                     "BLEU: reference " + std::to_string(i) + " of stream " + std::to_string(&stream - references.data())));
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
