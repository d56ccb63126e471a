// Per-index flags (std::vector<char>, nonzero = set), as the functional
// workloads record which examples a process has made.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace podbench {

// The indices whose flag is set, ascending.
inline std::vector<int64_t> IndicesOf(const std::vector<char>& flags) {
  std::vector<int64_t> out;
  for (size_t i = 0; i < flags.size(); ++i) {
    if (flags[i]) out.push_back(static_cast<int64_t>(i));
  }
  return out;
}

}  // namespace podbench
