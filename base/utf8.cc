#include "base/utf8.h"

#include <cstdint>

#include "base/unicode.h"

namespace podbench {
namespace {

// Length of the valid UTF-8 sequence at s[i], or 0 when there is none.
size_t SequenceAt(std::string_view s, size_t i) { return unicode::DecodeAt(s, i).bytes; }

}  // namespace

std::optional<size_t> InvalidUtf8At(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    const size_t n = SequenceAt(s, i);
    if (n == 0) return i;
    i += n;
  }
  return std::nullopt;
}

std::string QuoteForMessage(std::string_view s) {
  static const char kHex[] = "0123456789abcdef";
  std::string out = "'";
  for (size_t i = 0; i < s.size();) {
    const size_t n = SequenceAt(s, i);
    const auto c = static_cast<uint8_t>(s[i]);
    if (n > 1 || (n == 1 && c >= 0x20 && c < 0x7F)) {
      out.append(s.substr(i, n));
      i += n;
    } else {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 0xF];
      ++i;
    }
  }
  return out + "'";
}

}  // namespace podbench
