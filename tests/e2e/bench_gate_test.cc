// The CI gate over benchmark sets, through the real binary: repetitions
// stored with `bench --label` (or written here through the store's API, so
// that no timing decides a test), and Google Benchmark JSON files as
// compare.py reads them. A candidate 10% slower exits 1; an equal one 0.
#include <filesystem>
#include <fstream>
#include <random>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "results/store.h"
#include "tests/testing/shared_dir.h"
#include "tests/testing/temp_dir.h"

namespace podbench::testing {
namespace {

using ::testing::HasSubstr;

constexpr const char* kGemm = "gemm_f32/m512n512k512/podbench:f32_gemm__avx2_fma_6x16/threads:1";
constexpr const char* kConv = "conv2d_f32/res2_3x3/podbench:conv2d_f32__avx2/threads:1";

// Ten repetitions around `ns`, spread +-1% as real ones are.
std::vector<double> Reps(double ns) {
  std::vector<double> v;
  for (int i = 0; i < 10; ++i) v.push_back(ns * (1 + 0.002 * (i - 5)));
  return v;
}

class BenchGateTest : public ::testing::Test {
 protected:
  std::string Run(const std::string& args, int* rc) {
    std::string out;
    *rc = RunCommand("cd " + dir_.path().string() + " && " + PodbenchBinary().string() + " " + args + " 2>&1",
                     &out);
    return out;
  }
  void Store(const std::string& label, const std::string& name, const std::vector<double>& ns) {
    auto store = results::ResultsStore::Open(dir_ / "g.db");
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    results::KernelBenchRecord k;
    k.name = name;
    k.kernel = name;
    k.shape = "shape";
    k.isa = "avx2";
    k.label = label;
    k.git_hash = "abc";
    for (double t : ns) k.repetitions.push_back({t, t, 100});
    k.median_ns = ns[ns.size() / 2];
    ASSERT_TRUE((*store)->AddKernelBench(k).ok());
  }
  // The benchmarks stored under `label` in `db`, a file in the test's folder.
  std::vector<results::KernelBenchRecord> Stored(const std::string& db, const std::string& label) {
    auto store = results::ResultsStore::Open(dir_ / db);
    EXPECT_TRUE(store.ok()) << store.status().ToString();
    if (!store.ok()) return {};
    results::RunFilter f;
    f.label = label;
    auto benches = (*store)->KernelBenches(f);
    EXPECT_TRUE(benches.ok()) << benches.status().ToString();
    return benches.ok() ? std::move(benches).value() : std::vector<results::KernelBenchRecord>{};
  }
  // A Google Benchmark JSON report with every repetition and the aggregates.
  void WriteJson(const std::string& file, const std::vector<std::pair<std::string, double>>& benches) {
    nlohmann::json j;
    j["context"] = {{"date", "2024-01-01"}, {"num_cpus", 2}};
    j["benchmarks"] = nlohmann::json::array();
    for (const auto& [name, ns] : benches) {
      const auto reps = Reps(ns / 1000);
      for (size_t i = 0; i < reps.size(); ++i) {
        j["benchmarks"].push_back({{"name", name}, {"run_name", name}, {"run_type", "iteration"},
                                   {"repetitions", reps.size()}, {"repetition_index", i},
                                   {"iterations", 1000}, {"real_time", reps[i]}, {"cpu_time", reps[i]},
                                   {"time_unit", "us"}});
      }
      j["benchmarks"].push_back({{"name", name + "_median"}, {"run_name", name}, {"run_type", "aggregate"},
                                 {"aggregate_name", "median"}, {"iterations", reps.size()},
                                 {"real_time", ns / 1000}, {"time_unit", "us"}});
    }
    std::ofstream(dir_ / file) << j.dump(1);
  }
  TempDir dir_;
};

TEST_F(BenchGateTest, StoredSetTenPercentSlowerExits1EqualExits0) {
  Store("base", kGemm, Reps(1e6));
  Store("base", kConv, Reps(2e6));
  Store("slow", kGemm, Reps(1.1e6));
  Store("slow", kConv, Reps(2e6));
  Store("same", kGemm, Reps(1e6));
  Store("same", kConv, Reps(2e6));
  int rc = 0;
  std::string out = Run("compare base slow --db g.db", &rc);
  EXPECT_EQ(rc, 1) << out;
  EXPECT_THAT(out, ::testing::ContainsRegex(std::string(kGemm) + " +10 +10 .* \\+10\\.00 .*REGRESSION"));
  EXPECT_THAT(out, HasSubstr("FAIL: significant regression"));
  out = Run("compare label:base label:same --db g.db", &rc);
  EXPECT_EQ(rc, 0) << out;
  EXPECT_THAT(out, HasSubstr("PASS"));
  const std::string json = Run("compare base slow --db g.db --format json", &rc);
  EXPECT_EQ(rc, 1);
  const auto j = nlohmann::json::parse(json);
  EXPECT_TRUE(j["metrics"].empty());
  ASSERT_EQ(j["benchmarks"].size(), 2u);
  EXPECT_EQ(j["benchmarks"][0]["metric"], kGemm);
  EXPECT_EQ(j["benchmarks"][0]["regression"], true);
  EXPECT_LT(j["benchmarks"][0]["p_value"].get<double>(), 0.01);
  EXPECT_EQ(j["benchmarks"][1]["regression"], false);
  // A generous threshold lets the same slowdown pass.
  Run("compare base slow --db g.db --max-regression 15", &rc);
  EXPECT_EQ(rc, 0);
  // Ids name runs only; a set that names nothing is an error.
  out = Run("compare base nothing --db g.db", &rc);
  EXPECT_EQ(rc, 2);
  EXPECT_THAT(out, HasSubstr("'base' has 2 benchmarks but 'nothing' has none"));
}

TEST_F(BenchGateTest, RunsAndBenchmarksUnderOneLabelAreGatedTogether) {
  Store("base", kGemm, Reps(1e6));
  Store("cand", kGemm, Reps(1.1e6));
  int rc = 0;
  Run("run toy --runs 4 --seed 1 --label base --db g.db", &rc);
  ASSERT_EQ(rc, 0);
  Run("run toy --runs 4 --seed 1 --label cand --db g.db", &rc);
  ASSERT_EQ(rc, 0);
  std::string out = Run("compare base cand --db g.db --format json", &rc);
  EXPECT_EQ(rc, 1) << out;
  auto j = nlohmann::json::parse(out);
  EXPECT_EQ(j["metrics"].size(), 3u);  // the runs are identical: no regression there
  for (const auto& m : j["metrics"]) EXPECT_EQ(m["regression"], false) << m["metric"];
  EXPECT_EQ(j["benchmarks"][0]["regression"], true);
  out = Run("compare base cand --db g.db --only runs", &rc);
  EXPECT_EQ(rc, 0) << out;
  EXPECT_THAT(out, ::testing::Not(HasSubstr(kGemm)));
  out = Run("compare base cand --db g.db --only benchmarks", &rc);
  EXPECT_EQ(rc, 1) << out;
}

TEST_F(BenchGateTest, GoogleBenchmarkJsonFilesAsComparePyReadsThem) {
  WriteJson("base.json", {{"BM_gemm/512", 1e6}, {"BM_conv/3x3", 3e5}});
  WriteJson("slow.json", {{"BM_gemm/512", 1.1e6}, {"BM_conv/3x3", 3e5}});
  WriteJson("same.json", {{"BM_gemm/512", 1e6}, {"BM_conv/3x3", 3e5}, {"BM_new", 1}});
  int rc = 0;
  std::string out = Run("compare base.json slow.json", &rc);
  EXPECT_EQ(rc, 1) << out;
  EXPECT_THAT(out, ::testing::ContainsRegex("BM_gemm/512 +10 +10 .*REGRESSION"));
  out = Run("compare base.json same.json", &rc);
  EXPECT_EQ(rc, 0) << out;
  EXPECT_THAT(out, HasSubstr("only in the candidate; not gated"));
  out = Run("compare base.json label:x", &rc);
  EXPECT_EQ(rc, 2);
  EXPECT_THAT(out, HasSubstr("base.json is a file (Google Benchmark JSON) but label:x is not"));
  std::ofstream(dir_ / "bad.json") << "{\"benchmarks\": 3}";
  out = Run("compare base.json bad.json", &rc);
  EXPECT_EQ(rc, 2);
  EXPECT_THAT(out, HasSubstr("bad.json: not a Google Benchmark JSON report"));
}

// `n` values around `ns`, spread +-2% by a fixed pseudo-random sequence.
std::vector<double> Noisy(int n, double ns, unsigned seed) {
  std::mt19937 gen(seed);
  std::vector<double> v;
  for (int i = 0; i < n; ++i) v.push_back(ns * (1 + 0.02 * (2.0 * double(gen()) / double(gen.max()) - 1)));
  return v;
}

// The user's report: two sets of 3 repetitions, one row over the threshold.
// With 3 a side the U test cannot reach 0.05, so the verdict says "not
// tested", never "significant"; it fails the gate unless --untested pass.
// 5 and 10 a side are tested: the same distribution passes, 20% slower is a
// significant regression.
TEST_F(BenchGateTest, VerdictFollowsTheEvidenceAtThreeFiveAndTenASide) {
  for (int n : {3, 5, 10}) {
    const std::string base = "base" + std::to_string(n), same = "same" + std::to_string(n),
                      slow = "slow" + std::to_string(n);
    Store(base, kGemm, Noisy(n, 1e6, 1));
    Store(same, kGemm, Noisy(n, 1e6, 2));
    Store(slow, kGemm, Noisy(n, 1.2e6, 2));
  }
  int rc = 0;
  std::string out = Run("compare base3 slow3 --db g.db", &rc);
  EXPECT_EQ(rc, 1) << out;
  EXPECT_THAT(out, ::testing::ContainsRegex(std::string(kGemm) + " +3 +3 .* - +over threshold, not tested \\(3 runs "
                                                                   "a side; the U test needs 4 a side at alpha 0.05\\)"));
  EXPECT_THAT(out, HasSubstr("FAIL: over threshold, not tested (3 runs a side; the U test needs 4 a side at alpha "
                             "0.05; threshold 5% worse)\n"));
  EXPECT_THAT(out, ::testing::Not(HasSubstr("significant")));
  out = Run("compare base3 slow3 --db g.db --untested pass", &rc);
  EXPECT_EQ(rc, 0) << out;
  EXPECT_THAT(out, HasSubstr("PASS (threshold 5% worse, alpha 0.05); 1 row over threshold, not tested, passes under "
                             "--untested pass (3 runs a side; the U test needs 4 a side at alpha 0.05)\n"));
  out = Run("compare base3 same3 --db g.db", &rc);
  EXPECT_EQ(rc, 0) << out;
  EXPECT_THAT(out, HasSubstr("within threshold, not tested"));
  EXPECT_THAT(out, HasSubstr("PASS (threshold 5% worse, alpha 0.05)\n"));
  for (const char* n : {"5", "10"}) {
    out = Run(std::string("compare base") + n + " same" + n + " --db g.db", &rc);
    EXPECT_EQ(rc, 0) << out;
    EXPECT_THAT(out, ::testing::ContainsRegex(std::string(kGemm) + " +" + n + " +" + n + " .* 0\\.[0-9]{4}  ok\n"));
    out = Run(std::string("compare base") + n + " slow" + n + " --db g.db", &rc);
    EXPECT_EQ(rc, 1) << out;
    EXPECT_THAT(out, ::testing::ContainsRegex(std::string(kGemm) + " +" + n + " +" + n + " .* 0\\.[0-9]{4}  REGRESSION\n"));
    EXPECT_THAT(out, HasSubstr("FAIL: significant regression (threshold 5% worse, alpha 0.05)\n"));
  }
  // One JSON document with the row's tested flag, p and verdict, and the gate's.
  const auto untested = nlohmann::json::parse(Run("compare base3 slow3 --db g.db --format json", &rc));
  EXPECT_EQ(rc, 1);
  EXPECT_EQ(untested["verdict"], "FAIL: over threshold, not tested");
  EXPECT_EQ(untested["pass"], false);
  EXPECT_EQ(untested["regression"], false);
  EXPECT_EQ(untested["untested"], "fail");
  EXPECT_EQ(untested["min_runs_per_side"], 4);
  EXPECT_EQ(untested["benchmarks"][0]["tested"], false);
  EXPECT_TRUE(untested["benchmarks"][0]["p_value"].is_null());
  EXPECT_EQ(untested["benchmarks"][0]["verdict"], "over threshold, not tested");
  EXPECT_EQ(untested["benchmarks"][0]["fails_gate"], true);
  const auto tested = nlohmann::json::parse(Run("compare base10 slow10 --db g.db --format json", &rc));
  EXPECT_EQ(rc, 1);
  EXPECT_EQ(tested["verdict"], "FAIL: significant regression");
  EXPECT_EQ(tested["benchmarks"][0]["tested"], true);
  EXPECT_LT(tested["benchmarks"][0]["p_value"].get<double>(), 0.001);
  EXPECT_EQ(tested["benchmarks"][0]["verdict"], "REGRESSION");
  // CSV says the same per row.
  out = Run("compare base3 slow3 --db g.db --format csv", &rc);
  EXPECT_EQ(rc, 1);
  EXPECT_THAT(out, HasSubstr(",tested,verdict,fails_gate,note\n"));
  // significant, regression, tested, verdict (quoted: it holds a comma), fails_gate, note.
  EXPECT_THAT(out, HasSubstr(",0,0,0,\"over threshold, not tested\",1,3 runs a side; the U test needs 4 a side at "
                             "alpha 0.05\n"));
}

TEST_F(BenchGateTest, AlphaMustBeBetweenZeroAndOne) {
  Store("a", kGemm, Reps(1e6));
  Store("b", kGemm, Reps(1e6));
  int rc = 0;
  std::string out = Run("compare a b --db g.db --alpha 0", &rc);
  EXPECT_EQ(rc, 2) << out;
  EXPECT_THAT(out, HasSubstr("--alpha 0: the significance level must be above 0 and below 1"));
  out = Run("compare a b --db g.db --untested maybe", &rc);
  EXPECT_EQ(rc, 2) << out;
  EXPECT_THAT(out, HasSubstr("--untested"));
}

#if PODBENCH_HAVE_BENCHMARKS
TEST_F(BenchGateTest, BenchKeepsEveryRepetitionUnderItsLabel) {
  const std::string filter = "'gemm_f32/m512n512k512/podbench:f32_gemm__avx2_fma_6x16/threads:1'";
  int rc = 0;
  std::string out = Run("bench --min-time 0.01 --repetitions 3 --label base --db k.db --filter " + filter, &rc);
  ASSERT_EQ(rc, 0) << out;
  EXPECT_THAT(out, HasSubstr("(median of 3)"));
  // Fewer than the U test needs: said, and saved all the same.
  EXPECT_THAT(out, HasSubstr("--repetitions 3 under --label base: `podbench compare` needs 4 a side for its U test "
                             "at alpha 0.05"));
  EXPECT_THAT(out, HasSubstr("saved 1 result to k.db under label base"));
  const auto benches = Stored("k.db", "base");
  ASSERT_EQ(benches.size(), 1u);
  // The name without how it was measured (min_time, repeats): sets measured
  // with other settings still match.
  EXPECT_EQ(benches[0].name, "gemm_f32/m512n512k512/podbench:f32_gemm__avx2_fma_6x16/threads:1/real_time");
  EXPECT_EQ(benches[0].repetitions.size(), 3u);
  for (const auto& r : benches[0].repetitions) EXPECT_GT(r.real_time_ns, 0);
  out = Run("bench --min-time 0.02 --repetitions 4 --label cand --db k.db --filter " + filter, &rc);
  ASSERT_EQ(rc, 0) << out;
  // Timings decide nothing here: any difference is within 1000%.
  out = Run("compare base cand --db k.db --max-regression 1000", &rc);
  EXPECT_EQ(rc, 0) << out;
  EXPECT_THAT(out, HasSubstr("gemm_f32/m512n512k512"));
  out = Run("bench --label x --filter " + filter, &rc);
  EXPECT_EQ(rc, 2);
  EXPECT_THAT(out, HasSubstr("give --db too"));
}

TEST_F(BenchGateTest, LabelWithoutRepetitionsRepeatsEnoughForTheTest) {
  int rc = 0;
  std::string out = Run("bench --min-time 0.001 --label l --db k.db --filter 'relu/.*/podbench:relu/'", &rc);
  ASSERT_EQ(rc, 0) << out;
  EXPECT_THAT(out, HasSubstr("(median of 10)"));
  EXPECT_THAT(out, ::testing::Not(HasSubstr("needs 4 a side")));
  const auto benches = Stored("k.db", "l");
  ASSERT_EQ(benches.size(), 1u);
  EXPECT_EQ(benches[0].repetitions.size(), 10u);
  // Without --label, one repetition as before.
  out = Run("bench --min-time 0.001 --db k.db --filter 'relu/.*/podbench:relu/'", &rc);
  ASSERT_EQ(rc, 0) << out;
  EXPECT_THAT(out, HasSubstr("(median of 1)"));
}
#endif

}  // namespace
}  // namespace podbench::testing
