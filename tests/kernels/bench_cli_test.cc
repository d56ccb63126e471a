// `podbench bench` through the real binary: output formats and the build
// without benchmarks. Timings are not asserted.
#include <algorithm>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/testing/shared_dir.h"
#include "tests/testing/temp_dir.h"

namespace podbench::testing {
namespace {

using ::testing::HasSubstr;

#if PODBENCH_HAVE_BENCHMARKS
// One fast benchmark: our selected fp32 GEMM and OpenBLAS at 512^3, one thread.
const char* kFilter = "'gemm_f32/m512n512k512/(podbench:f32_gemm__avx2|openblas).*/threads:1'";

TEST(BenchCliTest, DbSavesOneRowPerBenchmark) {
  TempDir dir;
  std::string out;
  const std::string db = (dir / "k.db").string();
  const int rc = RunCommand(PodbenchBinary().string() + " bench --min-time 0.01 --db " + db + " --filter " + kFilter, &out);
  ASSERT_EQ(rc, 0) << out;
  EXPECT_THAT(out, HasSubstr("saved 2 results to " + db));
  // The rows read back through the store's own query command.
  EXPECT_EQ(RunCommand("sqlite3 " + db + " 'select count(*), min(median_ns) > 0 from kernel_bench'", &out), 0);
  EXPECT_EQ(out, "2|1\n");
}

TEST(BenchCliTest, JsonIsGoogleBenchmarkJson) {
  std::string out;
  // Only stdout: Google Benchmark writes warnings to stderr.
  const int rc = RunCommand("(" + PodbenchBinary().string() + " bench --format json --min-time 0.01 --filter " +
                                kFilter + " 2>/dev/null)",
                            &out);
  ASSERT_EQ(rc, 0) << out;
  const auto j = nlohmann::json::parse(out);
  ASSERT_TRUE(j.contains("context"));
  EXPECT_TRUE(j["context"].contains("peak_gflops_avx2_fma_1t"));
  EXPECT_TRUE(j["context"].contains("cpu_model"));
  EXPECT_TRUE(j["context"].contains("cpu_isa"));
  ASSERT_TRUE(j["benchmarks"].is_array());
  bool saw_peer = false;
  for (const auto& b : j["benchmarks"]) {
    const std::string name = b["name"];
    EXPECT_THAT(name, HasSubstr("gemm_f32/m512n512k512/"));
    if (name.find("openblas:sgemm") != std::string::npos) saw_peer = true;
    if (!b.contains("error_occurred")) {
      EXPECT_GT(b["GFLOP/s"].get<double>(), 0) << name;
    }
  }
  EXPECT_TRUE(saw_peer);
}

TEST(BenchCliTest, TextEndsWithRatioTable) {
  std::string out;
  const int rc = RunCommand(PodbenchBinary().string() + " bench --min-time 0.01 --filter " + kFilter, &out);
  ASSERT_EQ(rc, 0) << out;
  EXPECT_THAT(out, HasSubstr("CPU: "));
  EXPECT_THAT(out, ::testing::ContainsRegex("Measured peak avx2_fma +1 thread: +[0-9.]+ GFLOP/s"));
  EXPECT_THAT(out, HasSubstr("Ratio to peers"));
  EXPECT_THAT(out, ::testing::ContainsRegex("gemm_f32/m512n512k512/f32_gemm__avx2_fma_6x16/threads:1 +[0-9.]+ "
                                           "openblas:sgemm +[0-9.]+ +[0-9.]+"));
}

TEST(BenchCliTest, DispatchedRowNamesItsWinnerAndTheDecisionTable) {
  std::string out;
  const int rc = RunCommand("PODBENCH_KERNEL_CACHE=off " + PodbenchBinary().string() +
                                " bench --min-time 0.01 --filter 'gemm_bf16/m512n512k512/(podbench:dispatched|onednn).*/threads:1'",
                            &out);
  ASSERT_EQ(rc, 0) << out;
  // The dispatched row's label is its winner; the decision table names the class.
  EXPECT_THAT(out, ::testing::ContainsRegex("gemm_bf16/m512n512k512/podbench:dispatched/threads:1.* bf16_gemm__[a-z0-9_]+ \\("));
  EXPECT_THAT(out, HasSubstr("Targets:"));
  EXPECT_THAT(out, HasSubstr("Dispatch decisions of this run"));
  EXPECT_THAT(out, ::testing::ContainsRegex("gemm_bf16 +m512\\.n512\\.k512\\.nn\\.t1 +(measured|only one) +bf16_gemm__"));
}

TEST(BenchCliTest, PairedRowFillsTheTargetsTableAndItsSummary) {
  std::string out;
  const int rc = RunCommand("PODBENCH_KERNEL_CACHE=off " + PodbenchBinary().string() +
                                " bench --min-time 0.01 --filter "
                                "'gemm_(bf16|f32)/m512n512k512/(podbench:dispatched|onednn:matmul|paired:[a-z0-9_]*)/"
                                "threads:1'",
                            &out);
  ASSERT_EQ(rc, 0) << out;
  // The paired benchmark reports the median ratio and its quartiles as counters...
  EXPECT_THAT(out, ::testing::ContainsRegex("gemm_bf16/m512n512k512/paired:dispatched_vs_f32/threads:1.* +[0-9.]+ +"
                                           "[0-9.]+ +[0-9.]+"));
  // ...and the targets table shows them as "median (q1-q3)" beside the fp32 row's figure.
  EXPECT_THAT(out, ::testing::ContainsRegex("gemm_bf16/m512n512k512 +1 +[0-9.]+ bf16_gemm__.* [0-9]+\\.[0-9]{2} "
                                           "\\([0-9]+\\.[0-9]{2}-[0-9]+\\.[0-9]{2}\\)"));
  EXPECT_THAT(out, ::testing::ContainsRegex("Targets met: [01] of 1 row .*bf16 against fp32, paired, 1 row: median "
                                           "[0-9.]+, lowest [0-9.]+ \\(gemm_bf16/m512n512k512 1t\\)"));
  // The row paired against oneDNN fills the column after the separate rows'
  // ratio (then the cpu ratio), and the summary counts it.
  EXPECT_THAT(out, ::testing::ContainsRegex("gemm_bf16/m512n512k512/paired:dispatched_vs_onednn/threads:1.* +[0-9.]+ +"
                                           "[0-9.]+ +[0-9.]+"));
  EXPECT_THAT(out, ::testing::ContainsRegex("gemm_bf16/m512n512k512 +1 .* [0-9]+\\.[0-9]{2} +[0-9]+\\.[0-9]{2} "
                                           "\\([0-9]+\\.[0-9]{2}-[0-9]+\\.[0-9]{2}\\) +[0-9]+\\.[0-9]{2} "));
  EXPECT_THAT(out, ::testing::ContainsRegex("Paired against oneDNN: [01] of 1 row at >= 0.9x \\(median of the "
                                           "pairs\\), lowest [0-9.]+ \\(gemm_bf16/m512n512k512 1t\\)"));
}

// The benchmark names of a JSON report, in the order they were reported
// (each when its last repetition completed), once per benchmark.
std::vector<std::string> ReportOrder(const std::string& json) {
  std::vector<std::string> names;
  const nlohmann::json report = nlohmann::json::parse(json);
  for (const auto& b : report["benchmarks"]) {
    const std::string name = b["run_name"];
    if (names.empty() || names.back() != name) names.push_back(name);
  }
  return names;
}

TEST(BenchCliTest, RepetitionsOfAllBenchmarksRunInOneRandomOrder) {
  // 14 benchmarks (the fp32 GEMM rows at 512^3, 1 and 2 threads), 2 repetitions each.
  const std::string cmd = "PODBENCH_KERNEL_CACHE=off " + PodbenchBinary().string() +
                          " bench --format json --repetitions 2 --min-time 0.001 --filter 'gemm_f32/m512n512k512/' ";
  std::string in_sequence, interleaved;
  ASSERT_EQ(RunCommand("(" + cmd + "--no-interleave 2>/dev/null)", &in_sequence), 0) << in_sequence;
  ASSERT_EQ(RunCommand("(" + cmd + "2>/dev/null)", &interleaved), 0) << interleaved;
  EXPECT_EQ(nlohmann::json::parse(in_sequence)["context"]["repetition_order"], "in sequence");
  EXPECT_EQ(nlohmann::json::parse(interleaved)["context"]["repetition_order"], "interleaved");
  // Back to back, a benchmark reports right after its own repetitions: in
  // registration order. Interleaved, each reports when its last repetition
  // comes up in the shuffled order, a uniformly random permutation of the
  // benchmarks: the registration order again once in 14! (about 1e-11).
  const std::vector<std::string> registered = ReportOrder(in_sequence);
  ASSERT_GE(registered.size(), 12u);
  std::vector<std::string> shuffled = ReportOrder(interleaved);
  EXPECT_NE(shuffled, registered);
  std::sort(shuffled.begin(), shuffled.end());
  std::vector<std::string> sorted = registered;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(shuffled, sorted) << "the same benchmarks, each reported once";
}

TEST(BenchCliTest, BadKernelSettingIsAUsageError) {
  std::string out;
  EXPECT_EQ(RunCommand("PODBENCH_KERNELS=gemm_f32=nosuch " + PodbenchBinary().string() + " bench --filter x", &out), 2);
  EXPECT_THAT(out, HasSubstr("PODBENCH_KERNELS=gemm_f32=nosuch: gemm_f32 has no variant 'nosuch'"));
}

TEST(BenchCliTest, BadRegexIsAUsageError) {
  std::string out;
  EXPECT_EQ(RunCommand(PodbenchBinary().string() + " bench --filter '('", &out), 2);
  EXPECT_THAT(out, HasSubstr("not a valid regex"));
}

TEST(BenchCliTest, FilterThatSelectsNothingIsAUsageErrorSayingHowToList) {
  std::string out;
  EXPECT_EQ(RunCommand(PodbenchBinary().string() + " bench --filter nothingmatches", &out), 2);
  EXPECT_THAT(out, HasSubstr("podbench bench: --filter 'nothingmatches' selects no benchmark"));
  EXPECT_THAT(out, HasSubstr("`podbench bench --list` prints them all"));
  EXPECT_THAT(out, ::testing::Not(HasSubstr("Measured peak")));  // refused before measuring anything
}

TEST(BenchCliTest, ListPrintsTheNamesTheFilterSeesAndMeasuresNothing) {
  std::string out;
  ASSERT_EQ(RunCommand("(" + PodbenchBinary().string() + " bench --list --filter 'gemm_f32/m512n512k512/' 2>&1)", &out),
            0)
      << out;
  EXPECT_THAT(out, HasSubstr("gemm_f32/m512n512k512/podbench:f32_gemm__avx2_fma_6x16/threads:1/min_time:0.200/"
                             "repeats:1/real_time\n"));
  EXPECT_THAT(out, HasSubstr("gemm_f32/m512n512k512/openblas:sgemm/threads:1/"));
  EXPECT_THAT(out, ::testing::Not(HasSubstr("Measured peak")));
  EXPECT_THAT(out, ::testing::Not(HasSubstr("conv_")));
}

// Under a PODBENCH_CPU_ISA cap, the variants above it are shown once each as
// skipped, with what they need, not as Google Benchmark's "ERROR OCCURRED"
// once per repetition; and Google Benchmark's DEBUG-library warning is
// replaced by a note on what it concerns.
TEST(BenchCliTest, VariantsAboveTheIsaCapAreSkippedNotErrors) {
  std::string out;
  const int rc = RunCommand("PODBENCH_CPU_ISA=avx2_fma " + PodbenchBinary().string() +
                                " bench --min-time 0.01 --repetitions 2 --filter "
                                "'gemm_bf16/m512n512k512/podbench:bf16_gemm__(avx2|avx512).*/threads:1/' 2>&1",
                            &out);
  ASSERT_EQ(rc, 0) << out;
  EXPECT_THAT(out, ::testing::Not(HasSubstr("ERROR OCCURRED")));
  const std::string skip = "podbench:bf16_gemm__avx512bf16_14x32/threads:1/min_time:0.010/repeats:2/real_time "
                           "+skipped: needs avx512bf16 \\(PODBENCH_CPU_ISA caps this run at avx2_fma\\)\n";
  EXPECT_THAT(out, ::testing::ContainsRegex(skip));
  EXPECT_THAT(out, ::testing::ContainsRegex("podbench:bf16_gemm__avx512f_14x32/threads:1/.* +skipped: needs avx512f "));
  size_t count = 0;
  for (size_t at = out.find("skipped: needs avx512bf16"); at != std::string::npos;
       at = out.find("skipped: needs avx512bf16", at + 1)) {
    ++count;
  }
  EXPECT_EQ(count, 1u) << "once, not once per repetition";
  EXPECT_THAT(out, ::testing::ContainsRegex("podbench:bf16_gemm__avx2_fma_6x16/threads:1/.*_median +[0-9.]+ ms"));
  EXPECT_THAT(out, HasSubstr("Measured peak avx512f     1 thread:        0.0 GFLOP/s (above the PODBENCH_CPU_ISA cap)"));
  EXPECT_THAT(out, ::testing::Not(HasSubstr("***WARNING*** Library was built as DEBUG")));
  EXPECT_THAT(out, ::testing::ContainsRegex("podbench_build: [A-Za-z]+ \\("));
  EXPECT_THAT(out, ::testing::ContainsRegex("Running podbench bench\n"));
}

// Google Benchmark warns "Library was built as DEBUG" when libbenchmark was
// compiled without NDEBUG (its JSON context then says library_build_type
// "debug"); podbench's text says instead what that does and does not concern.
TEST(BenchCliTest, DebugLibraryWarningIsExplained) {
  const std::string cmd = PodbenchBinary().string() + " bench --min-time 0.001 --filter 'relu/.*/podbench:relu/' ";
  std::string json, text;
  ASSERT_EQ(RunCommand("(" + cmd + "--format json 2>/dev/null)", &json), 0) << json;
  ASSERT_EQ(RunCommand(cmd + "2>&1", &text), 0) << text;
  EXPECT_THAT(text, ::testing::Not(HasSubstr("***WARNING*** Library was built as DEBUG")));
  const bool debug_library = nlohmann::json::parse(json)["context"]["library_build_type"] == "debug";
  if (debug_library) {
    EXPECT_THAT(text, HasSubstr("note: Google Benchmark's \"Library was built as DEBUG\" concerns libbenchmark itself"));
  } else {
    EXPECT_THAT(text, ::testing::Not(HasSubstr("Library was built as DEBUG")));
  }
  EXPECT_THAT(text, ::testing::ContainsRegex("podbench_build: [A-Za-z]+ \\("));
}

TEST(BenchCliTest, DbListsTheSkippedBesideTheSaved) {
  TempDir dir;
  std::string out;
  const std::string db = (dir / "k.db").string();
  const int rc = RunCommand("PODBENCH_CPU_ISA=scalar " + PodbenchBinary().string() + " bench --min-time 0.01 --db " + db +
                                " --filter 'gemm_f32/m512n512k512/podbench:f32_gemm__(scalar|avx2).*/threads:1/' 2>&1",
                            &out);
  ASSERT_EQ(rc, 0) << out;
  EXPECT_THAT(out, HasSubstr("gemm_f32/m512n512k512/podbench:f32_gemm__avx2_fma_6x16/threads:1/real_time  skipped: "
                             "needs avx2_fma (PODBENCH_CPU_ISA caps this run at scalar)\n"));
  EXPECT_THAT(out, HasSubstr("saved 1 result to " + db + "\n"));
}
#else
TEST(BenchCliTest, BuildWithoutBenchmarksSaysSo) {
  std::string out;
  EXPECT_EQ(RunCommand(PodbenchBinary().string() + " bench", &out), 3);
  EXPECT_THAT(out, HasSubstr("built without benchmarks"));
}
#endif

// The kernels' environment is checked by every command that runs kernels.
TEST(KernelEnvironmentCliTest, RunRefusesABadCpuIsaCap) {
  std::string out;
  EXPECT_EQ(RunCommand("PODBENCH_CPU_ISA=avx9 " + PodbenchBinary().string() + " run toy --runs 1 --db /dev/null/x.db",
                       &out),
            2);
  EXPECT_THAT(out, HasSubstr("PODBENCH_CPU_ISA=avx9: not an instruction set"));
}

}  // namespace
}  // namespace podbench::testing
