#include "tests/testing/shared_dir.h"

#include <cstdlib>

namespace podbench::testing {

std::optional<std::filesystem::path> SharedDir() {
  std::filesystem::path p;
  if (const char* env = std::getenv("PODBENCH_SHARED"); env && *env) {
    p = env;
  } else {
    p = std::filesystem::path(PODBENCH_SOURCE_DIR) / ".." / "shared";
  }
  std::error_code ec;
  if (!std::filesystem::is_directory(p, ec)) return std::nullopt;
  return std::filesystem::canonical(p, ec);
}

std::filesystem::path PodbenchBinary() {
  const char* env = std::getenv("PODBENCH_BINARY");
  return env ? std::filesystem::path(env) : std::filesystem::path("podbench");
}

}  // namespace podbench::testing
