// The Mann-Whitney U test against hand-computed p-values, run-set parsing,
// and the regression verdict of Compare.
#include "results/compare.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "results/bench_samples.h"
#include "results/run_set.h"
#include "results/utest.h"

namespace podbench::results {
namespace {

using ::testing::HasSubstr;

TEST(UTestTest, ExactSeparatedSamplesOfThree) {
  // U = 0; only 1 of the C(6,3) = 20 orderings is this extreme on each side.
  UTestResult r = MannWhitneyU({1, 2, 3}, {4, 5, 6});
  EXPECT_TRUE(r.exact);
  EXPECT_EQ(r.u, 0);
  EXPECT_NEAR(r.p_value, 2.0 / 20, 1e-12);
}

TEST(UTestTest, ExactSeparatedSamplesOfFour) {
  UTestResult r = MannWhitneyU({5, 6, 7, 8}, {1, 2, 3, 4});
  EXPECT_TRUE(r.exact);
  EXPECT_EQ(r.u, 16);
  EXPECT_NEAR(r.p_value, 2.0 / 70, 1e-12);
}

TEST(UTestTest, ExactInterleaved) {
  // U = 3 (3>2, 5>2, 5>4). Orderings of 3 vs 3 with U <= 3: partitions of
  // 0,1,2,3 into at most 3 parts <= 3: 1+1+2+3 = 7 of 20, times two sides.
  UTestResult r = MannWhitneyU({1, 3, 5}, {2, 4, 6});
  EXPECT_TRUE(r.exact);
  EXPECT_EQ(r.u, 3);
  EXPECT_NEAR(r.p_value, 14.0 / 20, 1e-12);
}

TEST(UTestTest, NormalApproximationForLargeSamples) {
  // 9 vs 9 separated: U = 81, mu = 40.5, sigma^2 = 81*19/12,
  // z = (81 - 40.5 - 0.5) / sigma = 3.5321, p = erfc(z / sqrt 2).
  std::vector<double> x, y;
  for (int i = 0; i < 9; ++i) {
    x.push_back(10 + i);
    y.push_back(i);
  }
  UTestResult r = MannWhitneyU(x, y);
  EXPECT_FALSE(r.exact);
  EXPECT_EQ(r.u, 81);
  EXPECT_NEAR(r.p_value, 4.12295e-4, 1e-8);
}

TEST(UTestTest, NormalApproximationWithTieCorrection) {
  // Pooled 1,2,2,2,3,3,3,4: midranks 1, 3, 6, 8; rank sum of x = 13, U = 3.
  // Tie term 2 * (27 - 3) = 48; sigma^2 = 16/12 * (9 - 48/56) = 10.857;
  // z = (13 - 8 - 0.5) / sqrt(10.857) = 1.3657, p = 0.17203.
  UTestResult r = MannWhitneyU({1, 2, 2, 3}, {2, 3, 3, 4});
  EXPECT_FALSE(r.exact);
  EXPECT_EQ(r.u, 3);
  EXPECT_NEAR(r.p_value, 0.172034, 1e-6);
}

TEST(UTestTest, AllEqualIsNoEvidence) {
  EXPECT_EQ(MannWhitneyU({2, 2, 2}, {2, 2}).p_value, 1.0);
}

TEST(UTestTest, MinimumExactPValue) {
  EXPECT_NEAR(MinimumExactPValue(3, 3), 0.1, 1e-12);
  EXPECT_NEAR(MinimumExactPValue(4, 4), 2.0 / 70, 1e-12);
}

TEST(RunSetTest, ParsesIdsRangesLabelsAndGit) {
  auto f = ParseRunSet("1,3-5,9");
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->ids, (std::vector<int64_t>{1, 9}));
  ASSERT_EQ(f->id_ranges.size(), 1u);
  EXPECT_EQ(f->id_ranges[0], (std::pair<int64_t, int64_t>{3, 5}));
  EXPECT_EQ(ParseRunSet("label:nightly")->label, "nightly");
  EXPECT_EQ(ParseRunSet("baseline")->label, "baseline");
  EXPECT_EQ(ParseRunSet("git:ab12")->git_hash, "ab12");
}

TEST(RunSetTest, RejectsMalformedSpecs) {
  for (const char* bad : {"", "1,,2", "5-3", "0", "x:y", "label:", "3-"}) {
    auto f = ParseRunSet(bad);
    ASSERT_FALSE(f.ok()) << bad;
    EXPECT_THAT(f.status().message(), HasSubstr("run set '" + std::string(bad) + "'"));
  }
}

std::vector<RunRecord> Runs(const std::vector<double>& ttt, double step = 1.0) {
  std::vector<RunRecord> out;
  for (double t : ttt) {
    RunRecord r;
    r.complete = true;
    r.status = "success";
    r.outcome.ttt_emulated_s = t;
    r.outcome.step_time_s = step;
    r.outcome.throughput = 100 / step;
    out.push_back(r);
  }
  return out;
}

TEST(CompareTest, SignificantSlowdownBeyondThresholdIsARegression) {
  auto c = Compare(Runs({100, 101, 99, 100, 102}), Runs({120, 121, 119, 122, 120}), {});
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  const MetricComparison& ttt = c->metrics[0];
  EXPECT_EQ(ttt.metric.name, "time_to_train");
  EXPECT_NEAR(ttt.worse_pct, 20.0, 1e-9);
  ASSERT_TRUE(ttt.utest.has_value());
  EXPECT_TRUE(ttt.significant);
  EXPECT_TRUE(ttt.regression);
  EXPECT_TRUE(c->regression());
}

TEST(CompareTest, SmallSlowdownWithinThresholdPasses) {
  CompareOptions o;
  o.max_regression_pct = 25;
  auto c = Compare(Runs({100, 101, 99, 100, 102}), Runs({120, 121, 119, 122, 120}), o);
  ASSERT_TRUE(c.ok());
  EXPECT_TRUE(c->metrics[0].significant);
  EXPECT_FALSE(c->regression());
}

TEST(CompareTest, NoisyOverlapIsNotSignificant) {
  auto c = Compare(Runs({100, 130, 90, 125, 95}), Runs({98, 131, 128, 92, 126}), {});
  ASSERT_TRUE(c.ok());
  EXPECT_GT(c->metrics[0].worse_pct, 5);
  EXPECT_FALSE(c->metrics[0].significant);
  EXPECT_FALSE(c->regression());
}

TEST(CompareTest, HigherIsBetterMetricsRegressWhenTheyDrop) {
  CompareOptions o;
  o.metrics = {"throughput"};
  auto c = Compare(Runs({1, 1, 1, 1}, 1.0), Runs({1, 1, 1, 1}, 2.0), o);
  ASSERT_TRUE(c.ok());
  EXPECT_NEAR(c->metrics[0].worse_pct, 50, 1e-9);
  EXPECT_TRUE(c->regression());
}

TEST(CompareTest, TooFewRepetitionsFallBackToTheThreshold) {
  auto c = Compare(Runs({100, 100}), Runs({150, 150}), {});
  ASSERT_TRUE(c.ok());
  EXPECT_FALSE(c->metrics[0].utest.has_value());
  EXPECT_THAT(c->metrics[0].note, HasSubstr("too few repetitions"));
  EXPECT_TRUE(c->regression());
}

TEST(CompareTest, UnfinishedAndAbortedRunsDoNotCountForTimeToTrain) {
  auto base = Runs({100, 100, 100, 100});
  auto cand = Runs({100, 100, 100, 100});
  cand[0].complete = false;
  cand[0].outcome.ttt_emulated_s = 1e9;
  cand[1].status = "aborted";
  auto c = Compare(base, cand, {});
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->metrics[0].cand.size(), 2u);
  EXPECT_EQ(c->metrics[1].cand.size(), 3u);  // step time of the aborted run counts
}

TEST(CompareTest, UnknownMetricIsRefused) {
  CompareOptions o;
  o.metrics = {"latency"};
  auto c = Compare(Runs({1}), Runs({1}), o);
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.status().message(), HasSubstr("unknown metric 'latency'"));
}

// ---------------------------------------------------------------- benchmark sets

// Ten repetitions around `ns` with a +-1% spread, as real measurements have.
BenchSamples Reps(const std::string& name, double ns) {
  BenchSamples b{name, {}, false};
  for (int i = 0; i < 10; ++i) b.repetitions.push_back({ns * (1 + 0.002 * (i - 5)), std::nullopt, 100});
  return b;
}

TEST(CompareBenchmarksTest, TenPercentSlowerRepetitionsRegress) {
  auto c = CompareBenchmarks({Reps("BM_a", 1000), Reps("BM_b", 50)},
                             {Reps("BM_a", 1100), Reps("BM_b", 50)}, {});
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  ASSERT_EQ(c->benchmarks.size(), 2u);
  EXPECT_TRUE(c->metrics.empty());
  EXPECT_EQ(c->benchmarks[0].metric.name, "BM_a");
  EXPECT_NEAR(c->benchmarks[0].worse_pct, 10, 1e-6);
  ASSERT_TRUE(c->benchmarks[0].utest.has_value());
  EXPECT_LT(c->benchmarks[0].utest->p_value, 0.001);
  EXPECT_TRUE(c->benchmarks[0].regression);
  EXPECT_FALSE(c->benchmarks[1].regression);
  EXPECT_TRUE(c->regression());
}

TEST(CompareBenchmarksTest, EqualRepetitionsPass) {
  auto c = CompareBenchmarks({Reps("BM_a", 1000)}, {Reps("BM_a", 1000)}, {});
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->benchmarks[0].worse_pct, 0);
  EXPECT_GT(c->benchmarks[0].utest->p_value, 0.5);
  EXPECT_FALSE(c->regression());
}

TEST(CompareBenchmarksTest, FasterCandidateIsNotARegression) {
  auto c = CompareBenchmarks({Reps("BM_a", 1000)}, {Reps("BM_a", 800)}, {});
  ASSERT_TRUE(c.ok());
  EXPECT_NEAR(c->benchmarks[0].worse_pct, -20, 1e-6);
  EXPECT_TRUE(c->benchmarks[0].significant);
  EXPECT_FALSE(c->regression());
}

TEST(CompareBenchmarksTest, SignificantButWithinTheThresholdPasses) {
  CompareOptions o;
  o.max_regression_pct = 15;
  auto c = CompareBenchmarks({Reps("BM_a", 1000)}, {Reps("BM_a", 1100)}, o);
  ASSERT_TRUE(c.ok());
  EXPECT_TRUE(c->benchmarks[0].significant);
  EXPECT_FALSE(c->regression());
}

TEST(CompareBenchmarksTest, OneSidedBenchmarksAreListedNotGated) {
  auto c = CompareBenchmarks({Reps("BM_a", 1000), Reps("BM_old", 1)},
                             {Reps("BM_a", 1000), Reps("BM_new", 1e9)}, {});
  ASSERT_TRUE(c.ok());
  ASSERT_EQ(c->benchmarks.size(), 3u);
  EXPECT_THAT(c->benchmarks[1].note, HasSubstr("only in the baseline"));
  EXPECT_THAT(c->benchmarks[2].note, HasSubstr("only in the candidate"));
  EXPECT_FALSE(c->regression());
  auto none = CompareBenchmarks({Reps("BM_a", 1)}, {Reps("BM_b", 1)}, {});
  ASSERT_FALSE(none.ok());
  EXPECT_THAT(none.status().message(), HasSubstr("no benchmark in common"));
}

TEST(GoogleBenchmarkJsonTest, ReadsRepetitionsAndSkipsAggregates) {
  const char* json = R"({"context": {"date": "x"}, "benchmarks": [
    {"name": "BM_x/8/min_time:0.010/repeats:2", "run_name": "BM_x/8/min_time:0.010/repeats:2",
     "run_type": "iteration", "repetitions": 2, "repetition_index": 0, "iterations": 10, "real_time": 1.5, "cpu_time": 1.4, "time_unit": "us"},
    {"name": "BM_x/8", "run_name": "BM_x/8", "run_type": "iteration", "repetitions": 2,
     "repetition_index": 1, "iterations": 10, "real_time": 2.5, "cpu_time": 2.4, "time_unit": "us"},
    {"name": "BM_x/8_mean", "run_name": "BM_x/8", "run_type": "aggregate", "aggregate_name": "mean",
     "iterations": 2, "real_time": 2.0, "cpu_time": 1.9, "time_unit": "us"},
    {"name": "BM_y", "run_name": "BM_y", "run_type": "iteration", "iterations": 1,
     "real_time": 3, "time_unit": "ms"},
    {"name": "BM_bad", "run_name": "BM_bad", "run_type": "iteration", "error_occurred": true,
     "error_message": "boom", "iterations": 0, "real_time": 0, "time_unit": "ns"},
    {"name": "BM_z_median", "run_name": "BM_z", "run_type": "aggregate", "aggregate_name": "median",
     "iterations": 5, "real_time": 7, "time_unit": "ns"}
  ]})";
  auto b = ParseGoogleBenchmarkJson(json, "base.json");
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  ASSERT_EQ(b->size(), 3u);
  EXPECT_EQ((*b)[0].name, "BM_x/8");
  ASSERT_EQ((*b)[0].repetitions.size(), 2u);
  EXPECT_DOUBLE_EQ((*b)[0].repetitions[1].real_time_ns, 2500);
  EXPECT_DOUBLE_EQ(*(*b)[0].repetitions[1].cpu_time_ns, 2400);
  EXPECT_FALSE((*b)[0].median_only);
  EXPECT_DOUBLE_EQ((*b)[1].repetitions[0].real_time_ns, 3e6);
  EXPECT_FALSE((*b)[1].repetitions[0].cpu_time_ns.has_value());
  EXPECT_EQ((*b)[2].name, "BM_z");
  EXPECT_TRUE((*b)[2].median_only);
}

TEST(GoogleBenchmarkJsonTest, NotAReportIsAnErrorNamingTheFile) {
  for (const char* text : {"", "{}", "[1, 2]", R"({"benchmarks": []})",
                           R"({"benchmarks": [{"name": "a", "real_time": 1, "time_unit": "fortnights"}]})"}) {
    auto b = ParseGoogleBenchmarkJson(text, "cand.json");
    ASSERT_FALSE(b.ok()) << text;
    EXPECT_THAT(b.status().message(), HasSubstr("cand.json")) << text;
  }
}

TEST(GoogleBenchmarkJsonTest, StoredRecordsPoolRepetitionsByName) {
  KernelBenchRecord a;
  a.kernel = "k";
  a.shape = "gemm/m8";
  a.name = "gemm/m8/k";
  a.repetitions = {{1, std::nullopt, 1}, {2, std::nullopt, 1}};
  KernelBenchRecord b = a;
  b.repetitions = {{3, std::nullopt, 1}};
  KernelBenchRecord old;  // saved before schema version 2: a median only
  old.kernel = "k2";
  old.shape = "conv/s";
  old.median_ns = 9;
  auto s = SamplesFromRecords({a, b, old});
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].repetitions.size(), 3u);
  EXPECT_EQ(s[1].name, "conv/s/k2");
  EXPECT_TRUE(s[1].median_only);
  EXPECT_EQ(s[1].repetitions[0].real_time_ns, 9);
}

}  // namespace
}  // namespace podbench::results
