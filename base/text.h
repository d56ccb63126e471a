// Small text helpers for messages and tables a person reads.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace podbench {

// `n` and the noun in the number it takes: Plural(1, "run") is "1 run",
// Plural(0, "run") and Plural(2, "run") are "0 runs" and "2 runs". The plural
// is `singular` + "s" unless `plural` is given (Plural(2, "entry", "entries")).
std::string Plural(int64_t n, std::string_view singular, std::string_view plural = {});

// The noun alone, as Plural would write it after `n` ("run" or "runs").
std::string PluralNoun(int64_t n, std::string_view singular, std::string_view plural = {});

// `names` separated by ", " ("a, b, c"; "" for none): the lists of known
// values that error messages and tables give.
std::string JoinNames(const std::vector<std::string>& names);

// Order of names that hold numbers, as a person reads them: runs of ASCII
// digits compare by value ("tpu-v3-8" < "tpu-v3-32" < "tpu-v3-128" <
// "tpu-v3-1024"), everything else byte by byte. A strict weak order; names
// that differ only in leading zeros ("v3-08", "v3-8") fall back to byte order,
// so no two different names compare equal.
bool NaturalLess(std::string_view a, std::string_view b);

}  // namespace podbench
