// Unicode text as Python 3 sees it, for scoring text the way Python tools
// (SacreBLEU) score it: decoding UTF-8 into code points, the general category
// classes N, P and S, whitespace as str.isspace(), and lowercasing as
// str.lower(). The tables are generated once from Python's unicodedata by
// scripts/gen_unicode_tables.py (base/unicode_data.cc names the Unicode
// version; UnicodeVersion() returns it).
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"

namespace podbench::unicode {

// The Unicode version of the generated tables, e.g. "14.0.0".
std::string_view UnicodeVersion();

// `text` decoded from UTF-8. InvalidArgument naming `what` and the byte
// offset when it is not valid UTF-8 (base/utf8.h's rules).
Result<std::u32string> DecodeUtf8(std::string_view text, std::string_view what);

// The code point whose UTF-8 sequence starts at byte `i` of `text`, and that
// sequence's length in bytes; length 0 when no valid sequence starts there.
struct CodePointAt {
  char32_t c = 0;
  size_t bytes = 0;
};
CodePointAt DecodeAt(std::string_view text, size_t i);

// `text` encoded as UTF-8. REQUIRES: every element is a Unicode scalar value
// (at most U+10FFFF and no surrogate), as DecodeUtf8 returns.
std::string EncodeUtf8(std::u32string_view text);

// General category N* (Nd, Nl, No).
bool IsNumber(char32_t c);
// General category P* (Pc, Pd, Ps, Pe, Pi, Pf, Po).
bool IsPunctuation(char32_t c);
// General category S* (Sm, Sc, Sk, So).
bool IsSymbol(char32_t c);
// Python's str.isspace(): the separators str.split() splits on.
bool IsSpace(char32_t c);

// Python's str.lower(): the full lowercase mapping of every code point
// (U+0130 becomes "i" + U+0307), and U+03A3 becomes final sigma U+03C2 when
// a cased letter precedes it and none follows it (case-ignorable code points
// between are skipped), else U+03C3. Not casefold: U+00DF stays.
std::u32string Lower(std::u32string_view text);

// Python's str.split() joined by single spaces: whitespace runs become one
// space, leading and trailing whitespace go.
std::u32string CollapseSpaces(std::u32string_view text);

}  // namespace podbench::unicode
