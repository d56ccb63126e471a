#include "base/plural.h"

namespace podbench {

std::string Counted(long long n, std::string_view singular, std::string_view plural) {
  std::string out = std::to_string(n) + " ";
  if (n == 1) return out.append(singular);
  if (plural.empty()) return out.append(singular).append("s");
  return out.append(plural);
}

}  // namespace podbench
