// Drives the real podbench binary: help, version, usage errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/testing/shared_dir.h"
#include "tests/testing/temp_dir.h"

namespace podbench::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::MatchesRegex;

TEST(CliTest, VersionPrintsVersionAndGitHash) {
  int rc = 0;
  std::string out = Podbench("--version", &rc);
  EXPECT_EQ(rc, 0);
  EXPECT_THAT(out, MatchesRegex("podbench [0-9]+\\.[0-9]+\\.[0-9]+ \\(git ([0-9a-f]+(-dirty)?|unknown)\\)\n"));
}

TEST(CliTest, EverySubcommandHasHelp) {
  for (const char* cmd : {"reproduce", "run", "scaling", "check", "score", "runs", "show", "compare", "bench",
                          "topology", "report", "calibrate", "model", "package", "sysdesc", "repo", "rcp",
                          "summarize"}) {
    int rc = 0;
    std::string out = Podbench(std::string(cmd) + " --help", &rc);
    EXPECT_EQ(rc, 0) << cmd;
    EXPECT_THAT(out, HasSubstr("Usage:")) << cmd;
    EXPECT_THAT(out, HasSubstr(cmd)) << cmd;
  }
}

constexpr const char* kKnown =
    "known: bench, calibrate, check, compare, model, package, rcp, repo, report, reproduce, run, runs, scaling, score, "
    "show, summarize, sysdesc, topology";

TEST(CliTest, NoSubcommandIsAUsageErrorListingThem) {
  int rc = 0;
  std::string err;
  std::string out = PodbenchStdout("", &rc, &err);
  EXPECT_EQ(rc, 2);
  EXPECT_EQ(out, "");
  EXPECT_THAT(err, HasSubstr("podbench: a subcommand is required; "));
  EXPECT_THAT(err, HasSubstr(kKnown));
}

TEST(CliTest, UnknownSubcommandIsNamedAndTheKnownOnesListed) {
  int rc = 0;
  std::string err;
  std::string out = PodbenchStdout("frobnicate --format json", &rc, &err);
  EXPECT_EQ(rc, 2);
  EXPECT_EQ(out, "");
  EXPECT_EQ(err, std::string("podbench: unknown subcommand 'frobnicate'; ") + kKnown +
                     " (podbench --help says what each does)\n");
}

TEST(CliTest, UnknownFlagIsAUsageError) {
  int rc = 0;
  std::string out = Podbench("topology --no-such-flag", &rc);
  EXPECT_EQ(rc, 2);
  EXPECT_THAT(out, HasSubstr("--no-such-flag"));
}

TEST(CliTest, BadFormatIsAUsageError) {
  int rc = 0;
  std::string out = Podbench("topology --format xml", &rc);
  EXPECT_EQ(rc, 2);
  EXPECT_THAT(out, HasSubstr("xml"));
}

}  // namespace
}  // namespace podbench::testing
