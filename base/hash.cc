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

namespace {
uint64_t SplitMix64Finalise(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
}  // namespace

uint64_t MixSeed(uint64_t seed, uint64_t index) {
  return SplitMix64Finalise(SplitMix64Finalise(seed + 0x9E3779B97F4A7C15ull) ^ (index + 0x632BE59BD9B4E019ull));
}

}  // namespace podbench
