// Locating ../shared, the read-only reference material beside the checkout.
#pragma once

#include <filesystem>
#include <optional>

#include <gtest/gtest.h>

namespace podbench::testing {

// The shared/ folder: $PODBENCH_SHARED if set, else <source>/../shared.
// Empty when it does not exist.
std::optional<std::filesystem::path> SharedDir();

// The podbench binary under test ($PODBENCH_BINARY, set by CTest).
std::filesystem::path PodbenchBinary();

}  // namespace podbench::testing

// Skips the current test, with a clear message, when ../shared is absent;
// otherwise binds `var` to its path.
#define PODBENCH_REQUIRE_SHARED(var)                                                   \
  auto var##_opt = ::podbench::testing::SharedDir();                                   \
  if (!var##_opt) {                                                                    \
    GTEST_SKIP() << "../shared is not beside this checkout (set PODBENCH_SHARED): "    \
                    "skipping a test that needs the reference fixtures";               \
  }                                                                                    \
  const std::filesystem::path var = *var##_opt
