// UTF-8 checks for text that crosses into JSON, SQLite or a log: podbench
// stores command-line strings there, and all three need valid UTF-8.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace podbench {

// The byte offset of the first byte that does not start or continue a valid
// UTF-8 sequence (overlong forms, surrogates and code points above U+10FFFF
// are invalid); nullopt when `s` is valid UTF-8.
std::optional<size_t> InvalidUtf8At(std::string_view s);

// Whether `s` starts with the UTF-8 byte-order mark (EF BB BF), which
// Python's json refuses: the official MLPerf tools stop on a JSON file that
// has one, so podbench's readers of their files do too.
inline bool StartsWithUtf8Bom(std::string_view s) { return s.starts_with("\xEF\xBB\xBF"); }

// `s` quoted for an error message: printable ASCII and valid UTF-8 as they
// are, every other byte as \xHH, inside single quotes.
std::string QuoteForMessage(std::string_view s);

}  // namespace podbench
