// A stable, non-cryptographic fingerprint of bytes: the same text gives the
// same value on every build and machine, so it can be stored and compared
// across runs (e.g. which system description a run was priced with). Not for
// security: collisions can be made on purpose.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace podbench {

// 64-bit FNV-1a of `bytes`.
uint64_t Fnv1a64(std::string_view bytes);

// "fnv1a64:" and Fnv1a64(bytes) as 16 lower-case hex digits.
std::string FingerprintOf(std::string_view bytes);

// Counter-based seeding for generated data and per-example randomness: a
// 64-bit seed that is a pure function of (seed, index), well mixed (the
// SplitMix64 finaliser applied twice), the same on every build and machine.
// Seeding an example's generator with MixSeed(dataset_seed, index) lets any
// process generate any example alone, without the examples before it.
// Chain it for more coordinates: MixSeed(MixSeed(seed, step), row).
uint64_t MixSeed(uint64_t seed, uint64_t index);

}  // namespace podbench
