#include "base/hash.h"

#include <cstdio>

namespace podbench {

uint64_t Fnv1a64(std::string_view bytes) {
  uint64_t h = 14695981039346656037ull;  // the FNV-1a offset basis
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 1099511628211ull;  // the FNV prime
  }
  return h;
}

std::string FingerprintOf(std::string_view bytes) {
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(Fnv1a64(bytes)));
  return std::string("fnv1a64:") + hex;
}

}  // namespace podbench
