#include "base/utf8.h"

#include <cstdint>

namespace podbench {
namespace {

// Length of the valid UTF-8 sequence at s[i], or 0 when there is none.
size_t SequenceAt(std::string_view s, size_t i) {
  const auto b = [&](size_t k) { return static_cast<uint8_t>(s[k]); };
  const uint8_t c = b(i);
  if (c < 0x80) return 1;
  size_t len = 0;
  uint32_t cp = 0, min = 0;
  if ((c & 0xE0) == 0xC0) {
    len = 2, cp = c & 0x1Fu, min = 0x80;
  } else if ((c & 0xF0) == 0xE0) {
    len = 3, cp = c & 0x0Fu, min = 0x800;
  } else if ((c & 0xF8) == 0xF0) {
    len = 4, cp = c & 0x07u, min = 0x10000;
  } else {
    return 0;
  }
  if (i + len > s.size()) return 0;
  for (size_t k = 1; k < len; ++k) {
    if ((b(i + k) & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (b(i + k) & 0x3Fu);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return len;
}

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
