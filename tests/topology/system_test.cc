// The system description file: the built-in TPU-v3 numbers, and errors that
// name the file and the field.
#include <filesystem>
#include <fstream>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/testing/temp_dir.h"
#include "topology/system.h"

namespace podbench::topology {
namespace {

using ::testing::HasSubstr;

TEST(SystemTest, BuiltinHoldsTheTpuV3Numbers) {
  const SystemSpec& s = DefaultSystem();
  EXPECT_EQ(s.name, "tpu-v3");
  EXPECT_EQ(s.chip.cores, 2);
  EXPECT_EQ(s.core.mxus_per_core, 2);
  EXPECT_EQ(s.core.mxu_dim, 128);
  EXPECT_DOUBLE_EQ(s.core.clock_hz, 940e6);
  // 123 TFLOP/s bf16 per chip.
  EXPECT_NEAR(s.chip_peak_flops() / 1e12, 123.2, 0.1);
  EXPECT_DOUBLE_EQ(s.core.hbm_bytes, 16.0 * (1ull << 30));
  EXPECT_DOUBLE_EQ(s.core.hbm_bandwidth, 450e9);
  EXPECT_EQ(s.ici.links_per_chip, 4);
  EXPECT_DOUBLE_EQ(s.ici.link.bandwidth_bytes_per_s, 82e9);
  EXPECT_DOUBLE_EQ(s.ici.link.latency_s, 1e-6);
  EXPECT_EQ(s.host.chips_per_host, 4);
  EXPECT_EQ(s.pod.chips_x, 32);
  EXPECT_EQ(s.pod.chips_y, 32);
  EXPECT_TRUE(s.pod.wraparound);
  EXPECT_EQ(s.pod.slices.at(2048), std::make_pair(32, 32));
  EXPECT_EQ(s.pod.slices.at(8), std::make_pair(2, 2));
  EXPECT_DOUBLE_EQ(s.chip.power_mean_w, 220);
}

// Replaces the first occurrence of `from` in the built-in YAML.
std::string Edited(const std::string& from, const std::string& to) {
  std::string text(DefaultSystemYaml());
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return text.replace(at, from.size(), to);
}

TEST(SystemTest, MissingFieldIsNamed) {
  auto r = ParseSystemYaml(Edited("  clock_hz: 940.0e6", ""), "my.yaml");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("my.yaml"));
  EXPECT_THAT(r.status().message(), HasSubstr("core.clock_hz"));
  EXPECT_THAT(r.status().message(), HasSubstr("missing"));
}

TEST(SystemTest, WrongTypeNamesFieldAndLine) {
  auto r = ParseSystemYaml(Edited("hop_latency_s: 1.0e-6", "hop_latency_s: fast"), "what-if.yaml");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("what-if.yaml:"));
  EXPECT_THAT(r.status().message(), HasSubstr("ici.hop_latency_s"));
  EXPECT_THAT(r.status().message(), HasSubstr("fast"));
}

TEST(SystemTest, NonPositiveValueIsRejected) {
  auto r = ParseSystemYaml(Edited("link_bandwidth_bytes_per_s: 82.0e9", "link_bandwidth_bytes_per_s: 0"),
                           "x.yaml");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("ici.link_bandwidth_bytes_per_s: must be > 0"));
}

// A key given twice kept its first value silently, and an unknown key was
// ignored: both are now errors naming the field and the line.
TEST(SystemTest, RepeatedAndUnknownKeysAreNamedWithTheirLines) {
  auto r = ParseSystemYaml(Edited("  link_bandwidth_bytes_per_s: 82.0e9",
                                  "  link_bandwidth_bytes_per_s: 82.0e9\n  link_bandwidth_bytes_per_s: 1.0e9"),
                           "dup.yaml");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("dup.yaml:"));
  EXPECT_THAT(r.status().message(), HasSubstr("field ici.link_bandwidth_bytes_per_s: given twice (lines "));
  r = ParseSystemYaml(Edited("  mxus: 2", "  mxus: 2\n  frobnicate: 3"), "typo.yaml");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("field core.frobnicate: unknown field"));
  r = ParseSystemYaml(Edited("    8: [2, 2]", "    8: [2, 2]\n    8: [2, 2]"), "slices.yaml");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("field pod.slices.8: given twice"));
  // The built-in file itself reads every key it has, once.
  EXPECT_TRUE(ParseSystemYaml(DefaultSystemYaml(), "builtin").ok());
}

TEST(SystemTest, SliceGridMustMatchItsCores) {
  auto r = ParseSystemYaml(Edited("128: [8, 8]", "128: [8, 4]"), "x.yaml");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("pod.slices.128"));
}

TEST(SystemTest, BrokenYamlNamesTheLine) {
  auto r = ParseSystemYaml("name: [unclosed\n", "bad.yaml");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("bad.yaml:"));
}

TEST(SystemTest, WhatIfFileLoadsFromDisk) {
  testing::TempDir dir;
  const auto path = dir / "fast.yaml";
  std::ofstream(path) << Edited("link_bandwidth_bytes_per_s: 82.0e9", "link_bandwidth_bytes_per_s: 164.0e9");
  auto r = LoadSystemFile(path);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_DOUBLE_EQ(r->ici.link.bandwidth_bytes_per_s, 164e9);
  EXPECT_EQ(r->source, path.string());
}

TEST(SystemTest, MissingFileIsNotFound) {
  auto r = LoadSystemFile("/nonexistent/podbench/system.yaml");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Status::Code::kNotFound);
  EXPECT_THAT(r.status().message(), HasSubstr("/nonexistent/podbench/system.yaml"));
}

TEST(SystemTest, EmptyPathLoadsTheBuiltinSystemAndItsText) {
  auto r = LoadSystemOrDefault("");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->spec.get(), &DefaultSystem());
  EXPECT_EQ(r->yaml, DefaultSystemYaml());
  EXPECT_EQ(r->source(), "<builtin tpu-v3.yaml>");
}

TEST(SystemTest, FileLoadsOnceWithTheTextItWasParsedFrom) {
  testing::TempDir dir;
  const auto path = dir / "fast.yaml";
  const std::string text =
      Edited("link_bandwidth_bytes_per_s: 82.0e9", "link_bandwidth_bytes_per_s: 164.0e9");
  std::ofstream(path) << text;
  auto r = LoadSystemOrDefault(path);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->yaml, text);
  EXPECT_DOUBLE_EQ(r->spec->ici.link.bandwidth_bytes_per_s, 164e9);
  EXPECT_EQ(r->source(), path.string());
  EXPECT_NE(r->spec.get(), &DefaultSystem());
}

// The same errors as LoadSystemFile: callers print them unchanged.
TEST(SystemTest, LoadSystemOrDefaultFailsLikeLoadSystemFile) {
  testing::TempDir dir;
  const auto bad = dir / "bad.yaml";
  std::ofstream(bad) << Edited("link_bandwidth_bytes_per_s: 82.0e9", "link_bandwidth_bytes_per_s: 0");
  for (const std::filesystem::path& p : {bad, std::filesystem::path("/nonexistent/podbench/system.yaml")}) {
    auto a = LoadSystemOrDefault(p);
    auto b = LoadSystemFile(p);
    ASSERT_FALSE(a.ok()) << p;
    ASSERT_FALSE(b.ok()) << p;
    EXPECT_EQ(a.status().code(), b.status().code()) << p;
    EXPECT_EQ(a.status().message(), b.status().message()) << p;
    EXPECT_THAT(a.status().message(), HasSubstr(p.string()));
  }
}

}  // namespace
}  // namespace podbench::topology
