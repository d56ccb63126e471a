// Runs the submission fuzz targets' bodies on fixed and pseudo-random inputs
// in every build, so they compile and their invariants hold without clang.
#include <random>

#include <gtest/gtest.h>

#include "tests/submission/fuzz/fuzz_bodies.h"

namespace podbench::submission {
namespace {

std::vector<uint8_t> Bytes(const std::string& s) { return {s.begin(), s.end()}; }

TEST(FuzzSmoke, SystemDesc) {
  for (const std::string s : {"", "{", "[]", "null", "{\"division\": 1}", "{\"status\": null, \"submitter\": []}",
                              "{\"division\": \"closed\", \"division\": \"open\"}", "\"\\ud800\"", "NaN"}) {
    auto b = Bytes(s);
    fuzz::SystemDesc(b.data(), b.size());
  }
}

TEST(FuzzSmoke, TreeWalk) {
  std::mt19937 rng(38);  // fixed seed: the same inputs every run
  for (int i = 0; i < 40; ++i) {
    std::vector<uint8_t> b(64);
    for (auto& x : b) x = static_cast<uint8_t>(rng());
    fuzz::TreeWalk(b.data(), b.size());
  }
}

}  // namespace
}  // namespace podbench::submission
