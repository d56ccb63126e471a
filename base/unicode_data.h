// The Unicode property tables behind base/unicode.h, generated once by
// scripts/gen_unicode_tables.py into base/unicode_data.cc (committed). Every
// table is sorted by code point, its ranges inclusive and non-overlapping.
#pragma once

#include <cstddef>
#include <cstdint>

namespace podbench::unicode::data {

struct CodeRange {
  char32_t lo, hi;
};

// `major`: 1 = N* (number), 2 = P* (punctuation), 3 = S* (symbol); code
// points in no range are in none of the three.
struct CategoryRange {
  char32_t lo, hi;
  uint8_t major;
};

// lo, lo + stride, lo + 2 * stride, ... <= hi lowercase to themselves plus
// `delta`; the other code points inside lo..hi lowercase to themselves.
struct LowerRange {
  char32_t lo, hi;
  int32_t stride, delta;
};

extern const char kUnicodeVersion[];
extern const CategoryRange kCategories[];
extern const size_t kCategoriesSize;
extern const CodeRange kSpace[];  // Python's str.isspace()
extern const size_t kSpaceSize;
extern const LowerRange kLower[];  // single-code-point lowercase mappings
extern const size_t kLowerSize;
extern const char32_t kLowerU0130[2];  // U+0130's full lowercase mapping
extern const CodeRange kCaseIgnorable[];
extern const size_t kCaseIgnorableSize;
extern const CodeRange kCasedNotIgnorable[];  // Cased and not Case_Ignorable
extern const size_t kCasedNotIgnorableSize;

}  // namespace podbench::unicode::data
