#include "base/unicode.h"

#include <algorithm>
#include <cstdint>

#include "base/unicode_data.h"
#include "base/utf8.h"

namespace podbench::unicode {
namespace {

// The range of `table` (sorted by lo) that holds c, or nullptr.
template <typename Range>
const Range* Find(const Range* table, size_t size, char32_t c) {
  const Range* end = table + size;
  const Range* it = std::upper_bound(table, end, c, [](char32_t v, const Range& r) { return v < r.lo; });
  if (it == table) return nullptr;
  --it;
  return c <= it->hi ? it : nullptr;
}

uint8_t Major(char32_t c) {
  const auto* r = Find(data::kCategories, data::kCategoriesSize, c);
  return r ? r->major : 0;
}

bool CaseIgnorable(char32_t c) { return Find(data::kCaseIgnorable, data::kCaseIgnorableSize, c) != nullptr; }
bool CasedNotIgnorable(char32_t c) {
  return Find(data::kCasedNotIgnorable, data::kCasedNotIgnorableSize, c) != nullptr;
}

char32_t LowerOne(char32_t c) {
  const auto* r = Find(data::kLower, data::kLowerSize, c);
  if (r == nullptr || (c - r->lo) % static_cast<char32_t>(r->stride) != 0) return c;
  return static_cast<char32_t>(static_cast<int64_t>(c) + r->delta);
}

// Whether text[i] (a capital sigma) ends a word: the nearest code point
// before it that is not case-ignorable is cased, and the nearest one after
// it that is not case-ignorable is absent or not cased.
bool FinalSigma(std::u32string_view text, size_t i) {
  size_t j = i;
  while (j > 0 && CaseIgnorable(text[j - 1])) --j;
  if (j == 0 || !CasedNotIgnorable(text[j - 1])) return false;
  size_t k = i + 1;
  while (k < text.size() && CaseIgnorable(text[k])) ++k;
  return k == text.size() || !CasedNotIgnorable(text[k]);
}

}  // namespace

CodePointAt DecodeAt(std::string_view text, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<uint8_t>(text[k]); };
  if (i >= text.size()) return {};
  const uint8_t b0 = byte(i);
  if (b0 < 0x80) return {b0, 1};
  size_t len = 0;
  char32_t c = 0, min = 0;
  if ((b0 & 0xE0) == 0xC0) {
    len = 2, c = b0 & 0x1Fu, min = 0x80;
  } else if ((b0 & 0xF0) == 0xE0) {
    len = 3, c = b0 & 0x0Fu, min = 0x800;
  } else if ((b0 & 0xF8) == 0xF0) {
    len = 4, c = b0 & 0x07u, min = 0x10000;
  } else {
    return {};
  }
  if (i + len > text.size()) return {};
  for (size_t k = 1; k < len; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return {};
    c = (c << 6) | (byte(i + k) & 0x3Fu);
  }
  if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) return {};
  return {c, len};
}

std::string_view UnicodeVersion() { return data::kUnicodeVersion; }

Result<std::u32string> DecodeUtf8(std::string_view text, std::string_view what) {
  if (auto bad = InvalidUtf8At(text)) {
    return Status::InvalidArgument(std::string(what) + " is not valid UTF-8 at byte " + std::to_string(*bad) +
                                   ": " + QuoteForMessage(text));
  }
  std::u32string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    const CodePointAt at = DecodeAt(text, i);
    out.push_back(at.c);
    i += at.bytes;
  }
  return out;
}

std::string EncodeUtf8(std::u32string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char32_t c : text) {
    if (c < 0x80) {
      out.push_back(static_cast<char>(c));
    } else if (c < 0x800) {
      out.push_back(static_cast<char>(0xC0 | (c >> 6)));
      out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
    } else if (c < 0x10000) {
      out.push_back(static_cast<char>(0xE0 | (c >> 12)));
      out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
    } else {
      out.push_back(static_cast<char>(0xF0 | (c >> 18)));
      out.push_back(static_cast<char>(0x80 | ((c >> 12) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
    }
  }
  return out;
}

bool IsNumber(char32_t c) { return Major(c) == 1; }
bool IsPunctuation(char32_t c) { return Major(c) == 2; }
bool IsSymbol(char32_t c) { return Major(c) == 3; }
bool IsSpace(char32_t c) { return Find(data::kSpace, data::kSpaceSize, c) != nullptr; }

std::u32string Lower(std::u32string_view text) {
  std::u32string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const char32_t c = text[i];
    if (c == U'\u03A3') {
      out.push_back(FinalSigma(text, i) ? U'\u03C2' : U'\u03C3');
    } else if (c == U'\u0130') {
      out.append(data::kLowerU0130, 2);
    } else {
      out.push_back(LowerOne(c));
    }
  }
  return out;
}

std::u32string CollapseSpaces(std::u32string_view text) {
  std::u32string out;
  out.reserve(text.size());
  bool pending = false;
  for (char32_t c : text) {
    if (IsSpace(c)) {
      pending = !out.empty();
    } else {
      if (pending) out.push_back(U' ');
      pending = false;
      out.push_back(c);
    }
  }
  return out;
}

}  // namespace podbench::unicode
