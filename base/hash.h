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

}  // namespace podbench
