// No input aborts: each input that once made `podbench` terminate, overflow
// or allocate without bound is refused, named, with exit 2 and nothing run
// or stored; and an exception nothing foresaw still stops at the command
// boundary with exit 2 and the command line. Drives the real binary.
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/testing/shared_dir.h"
#include "tests/testing/temp_dir.h"

namespace podbench::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

class InputTest : public ::testing::Test {
 protected:
  // Runs podbench in the test's folder; bash, so $'...' quoting works.
  std::string Run(const std::string& args, int* rc) {
    std::string out;
    *rc = RunCommand("cd " + dir_.path().string() + " && bash -c \"" + PodbenchBinary().string() + " " + args + "\"",
                     &out);
    return out;
  }
  // Exit 2 with a message naming the input and no sign of a crash; returns
  // what the command printed.
  std::string ExpectUsageError(const std::string& args, const std::string& names) {
    int rc = 0;
    std::string out = Run(args, &rc);
    EXPECT_EQ(rc, 2) << args << "\n" << out;
    EXPECT_THAT(out, HasSubstr(names)) << args;
    EXPECT_THAT(out, Not(HasSubstr("terminate called"))) << args;
    return out;
  }
  // The refusal every run case shares: a usage error, and nothing stored.
  void ExpectRefused(const std::string& args, const std::string& names) {
    ExpectUsageError(args + " --db r.db", names);
    EXPECT_FALSE(std::filesystem::exists(dir_ / "r.db")) << args << ": a run was recorded";
  }
  TempDir dir_;
};

TEST_F(InputTest, NonUtf8LabelIsRefused) {
  ExpectRefused("run toy --mode functional --runs 1 --label $'\\\\xff'", "--label '\\xff': not valid UTF-8");
}

TEST_F(InputTest, NonUtf8LogPathIsRefused) {
  ExpectRefused("run toy --runs 1 --log $'\\\\xff.log'", "--log '\\xff.log': not valid UTF-8");
  EXPECT_TRUE(std::filesystem::is_empty(dir_.path()));
}

TEST_F(InputTest, NonUtf8SetStringIsRefused) {
  ExpectRefused("run toy --runs 1 --set $'opt_name=\\\\xff'", "--set 'opt_name=\\xff': not valid UTF-8");
  ExpectRefused("run resnet --mode functional --runs 1 --set $'functional_data_dir=/tmp/\\\\xc3'",
                "--set 'functional_data_dir=/tmp/\\xc3': not valid UTF-8");
  ExpectRefused("run transformer --preset functional --runs 1 --set $'opt_name=\\\\xe2\\\\x82'",
                "--set 'opt_name=\\xe2\\x82': not valid UTF-8");
}

// functional_image_size and functional_train_examples at their maxima would
// need terabytes: refused before anything is allocated, with the estimate.
TEST_F(InputTest, FunctionalSizesAtTheirMaximaAreRefusedWithTheEstimate) {
  ExpectRefused("run resnet --mode functional --preset functional --runs 1 "
                "--set functional_image_size=512 --set functional_train_examples=4194304",
                "needs an estimated 12");
  int rc = 0;
  std::string out = Run("run resnet --mode functional --preset functional --runs 1 --set functional_image_size=512 "
                        "--set functional_train_examples=4194304 --db r.db",
                        &rc);
  EXPECT_THAT(out, HasSubstr("GiB of host memory"));
  EXPECT_THAT(out, HasSubstr("this machine has"));
}

// The Transformer's functional sizes at their maxima (Transformer big's
// shapes, 256-token rows, a million sentences) need hundreds of GiB.
TEST_F(InputTest, TransformerFunctionalSizesAtTheirMaximaAreRefusedWithTheEstimate) {
  ExpectRefused("run transformer --preset functional --runs 1 --set functional_hidden=1024 "
                "--set functional_heads=16 --set functional_filter=4096 --set functional_layers=6 "
                "--set functional_vocab_size=32768 --set functional_packed_length=256 --set max_sequence_length=256 "
                "--set functional_train_sentences=1048576 --set global_batch_size=256",
                "transformer functional on tpu-v3-8 needs an estimated ");
}

// A Transformer run that misses its target within max_epochs is a verdict,
// not an error: aborted, stored, exit 1; its log passes the rules but for
// the target.
TEST_F(InputTest, ATransformerRunThatMissesItsTargetIsAbortedWithExit1) {
  int rc = 0;
  std::string out = Run("run transformer --preset functional --runs 1 --seed 1 --db r.db --format json "
                        "--set functional_train_sentences=256 --set functional_eval_sentences=8 "
                        "--set functional_hidden=16 --set functional_heads=2 --set functional_filter=32 "
                        "--set functional_layers=1 --set functional_vocab_size=96 --set functional_packed_length=32 "
                        "--set max_sequence_length=32 --set global_batch_size=16 --set max_epochs=1",
                        &rc);
  EXPECT_EQ(rc, 1) << out;
  EXPECT_THAT(out, HasSubstr("\"status\": \"aborted\""));
  EXPECT_THAT(out, HasSubstr("passes the v0.6 rules but for the target"));
}

// global_batch_size had no upper bound: int64 overflow in the per-core
// arithmetic. Every numeric hyperparameter now has bounds that keep it
// defined (hyperparameter_walk_test checks every one at both ends).
TEST_F(InputTest, UnboundedBatchIsRefused) {
  ExpectRefused("run resnet --mode projected --slice tpu-v3-32 --runs 1 --set global_batch_size=9223372036854775807",
                "global_batch_size must be <= 1281167");
  ExpectRefused("run resnet --mode projected --slice tpu-v3-32 --runs 1 --set global_batch_size=99999999999999999999",
                "global_batch_size must be an integer");
  ExpectRefused("run toy --runs 1 --set global_batch_size=1099511627776", "global_batch_size must be <= 1048576");
}

// The largest batch the bound allows runs, and its arithmetic stays defined
// (CI runs this under UBSan too): one projected run at 1,281,024 images, the
// largest multiple of the slice's 128 cores within one epoch.
TEST_F(InputTest, TheLargestAllowedBatchRuns) {
  int rc = 0;
  std::string out = Run("run resnet --mode projected --slice tpu-v3-128 --runs 1 --seed 1 "
                        "--set global_batch_size=1281024 --set model_bn_span=10008 --db r.db --format json",
                        &rc);
  EXPECT_EQ(rc, 0) << out;
  EXPECT_THAT(out, HasSubstr("\"status\": \"success\""));
}

TEST_F(InputTest, SystemFileFractionsMustLieInZeroToOne) {
  int rc = 0;
  std::string yaml = Run("topology --print-system", &rc);
  ASSERT_EQ(rc, 0);
  for (const char* bad : {"1.5", "0", "-0.2", ".inf", ".nan"}) {
    std::string text = yaml;
    const std::string key = "mxu_efficiency: ";
    const size_t at = text.find(key);
    ASSERT_NE(at, std::string::npos);
    text.replace(at + key.size(), text.find('\n', at) - at - key.size(), bad);
    std::ofstream(dir_ / "bad.yaml") << text;
    ExpectRefused("run toy --runs 1 --system bad.yaml", "core.mxu_efficiency");
    std::string out = Run("topology --system bad.yaml", &rc);
    EXPECT_EQ(rc, 2) << bad;
    EXPECT_THAT(out, HasSubstr("bad.yaml:")) << bad;
  }
  std::string text = yaml;
  const size_t at = text.find("hbm_efficiency: ");
  text.replace(at, text.find('\n', at) - at, "hbm_efficiency: 1.01");
  std::ofstream(dir_ / "hbm.yaml") << text;
  ExpectRefused("run toy --runs 1 --system hbm.yaml", "core.hbm_efficiency: is a fraction and must lie in (0, 1], got 1.01");
}

// Values a flag cannot mean: a NaN passes every comparison (Google
// Benchmark's own check of --min-time then aborted), a negative seed wrapped
// to 2^64 - 1, a bound written as DBL_MAX in full, an empty name in a list.
TEST_F(InputTest, NonFiniteNegativeOverflowingAndEmptyFlagValuesAreRefusedNamingTheFlag) {
  ExpectRefused("bench --list --min-time nan", "--min-time: Value nan is not a finite number");
  ExpectRefused("bench --list --min-time -inf", "--min-time: Value -inf is not a finite number");
  ExpectRefused("run toy --runs 1 --rank-timeout nan", "--rank-timeout: Value nan is not a finite number");
  ExpectRefused("run toy --runs 1 --seed -1", "--seed: Value -1 is not a whole number >= 0");
  ExpectRefused("run toy --runs 1 --seed 18446744073709551616", "--seed: Value 18446744073709551616 does not fit");
  ExpectRefused("reproduce --workloads toy --seed -3", "--seed: Value -3 is not a whole number >= 0");
  // An empty name in a list read as "every one" (26 sets ran).
  ExpectRefused("reproduce --workloads resnet,", "--workloads: 'resnet,' has an empty name");
  ExpectRefused("reproduce --slices tpu-v3-32,,tpu-v3-128", "--slices: 'tpu-v3-32,,tpu-v3-128' has an empty name");
  ExpectRefused("reproduce --claims ,", "--claims: ',' has an empty name");
  const std::string out = ExpectUsageError("run toy --runs 1 --rank-timeout -5 --db r.db",
                                           "--rank-timeout: Value -5 is negative (it must be >= 0)");
  EXPECT_LT(out.size(), 200u) << out;
}

// What check and score read: a pipe would block them forever and a device or
// a file with no line ends would take all memory; each is refused, named.
TEST_F(InputTest, CheckAndScoreReadOnlyRegularFilesAndBoundALine) {
  std::string out;
  ASSERT_EQ(RunCommand("cd " + dir_.path().string() + " && mkfifo pipe.log && ln -s a b && ln -s b a && mkdir empty",
                       &out),
            0)
      << out;
  {
    std::ofstream big(dir_ / "big.log", std::ios::binary);
    const std::string block(1 << 20, 'x');
    for (int i = 0; i < 65; ++i) big << block;
  }
  for (const std::string c : {"check", "score"}) {
    ExpectUsageError(c + " pipe.log", "pipe.log: not a regular file or folder (a device, pipe or socket); not read");
    ExpectUsageError(c + " /dev/zero", "/dev/zero: not a regular file or folder");
    ExpectUsageError(c + " a", "a: a loop of symbolic links");
  }
  ExpectUsageError("check empty", "empty: no files in this folder or below it; nothing to check");
  ExpectUsageError("check big.log", "big.log:1: a line longer than 64 MiB without a line end");
}

// Output that cannot be written is a failure, not a silent exit 0.
TEST_F(InputTest, AnOutputThatCannotBeWrittenFailsTheCommand) {
  int rc = 0;
  std::string out = Run("run toy --runs 1 --seed 1 --db r.db", &rc);
  ASSERT_EQ(rc, 0) << out;
  ExpectUsageError("runs --db r.db > /dev/full", "podbench runs: error: writing the standard output failed");
  ExpectUsageError("report --db r.db -o /dev/full", "/dev/full: writing the report failed");
  out = Run("runs --db r.db", &rc);
  EXPECT_EQ(rc, 0) << out;
  EXPECT_THAT(out, HasSubstr("success"));
}

// Where a refused value came from, and why a log could not be made.
TEST_F(InputTest, MessagesSayWhereADefaultCameFromAndWhyALogCannotBeCreated) {
  ExpectRefused("run resnet --mode projected --runs 1",
                "(no --preset given, so resnet's defaults apply; its presets: google-v0.6, functional)");
  ExpectUsageError("run toy --runs 1 --log nodir/x.log --db r.db",
                   "nodir/x.log: cannot create the MLPerf log (No such file or directory)");
}

// An exception nothing foresaw (here: a label that is not UTF-8, put into
// the database by another tool, then printed as JSON) stops at the command
// boundary: exit 2, the subcommand, what went wrong and the command line.
TEST_F(InputTest, AnUnforeseenExceptionIsAUsageErrorNamingTheCommandLine) {
  int rc = 0;
  std::string out = Run("run toy --runs 1 --seed 1 --db r.db", &rc);
  ASSERT_EQ(rc, 0) << out;
  std::string cmd;
  ASSERT_EQ(RunCommand("sqlite3 " + (dir_ / "r.db").string() + " \"UPDATE runs SET label = CAST(X'FF' AS TEXT)\"", &cmd), 0)
      << cmd;
  out = Run("runs --db r.db --format json", &rc);
  EXPECT_EQ(rc, 2) << out;
  EXPECT_THAT(out, HasSubstr("podbench runs: error: "));
  EXPECT_THAT(out, HasSubstr("while running podbench 'runs' '--db' 'r.db' '--format' 'json'"));
  EXPECT_THAT(out, Not(HasSubstr("terminate called")));
}

}  // namespace
}  // namespace podbench::testing
