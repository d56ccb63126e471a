// Counts in words: "1 run", "3 runs", "1 repetition", "0 benchmarks".
#pragma once

#include <string>
#include <string_view>

namespace podbench {

// `n` followed by `singular` when n is 1, else by `plural` (default:
// `singular` + "s").
std::string Counted(long long n, std::string_view singular, std::string_view plural = {});

}  // namespace podbench
