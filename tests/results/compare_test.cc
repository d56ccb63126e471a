// The Mann-Whitney U test against hand-computed p-values, run-set parsing,
// and the regression verdict of Compare.
#include "results/compare.h"

#include <random>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "results/bench_samples.h"
#include "results/export.h"
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

TEST(UTestTest, MinimumPValueIsWhatTheTestGivesSeparatedSamples) {
  // Fully separated, untied samples give the most extreme U; MannWhitneyU
  // then returns exactly the smallest p it can, by whichever method it uses.
  for (int n1 : {1, 2, 3, 4, 5, 8, 9, 10, 20}) {
    for (int n2 : {1, 3, 4, 8, 9, 12}) {
      std::vector<double> x, y;
      for (int i = 0; i < n1; ++i) x.push_back(100 + i);
      for (int i = 0; i < n2; ++i) y.push_back(i);
      EXPECT_NEAR(MannWhitneyU(x, y).p_value, MinimumPValue(n1, n2), 1e-12) << n1 << " vs " << n2;
    }
  }
  EXPECT_NEAR(MinimumPValue(9, 9), 4.12295e-4, 1e-8);  // the normal approximation
}

TEST(UTestTest, FewestRunsForTheTestToReachAlpha) {
  // 3 a side give at best 0.1, 4 a side 0.029 (exact test).
  EXPECT_EQ(MinimumRunsPerSide(0.05), 4);
  EXPECT_EQ(MinimumRunsPerSide(0.1), 4);     // 3 a side gives exactly 0.1, not below
  EXPECT_EQ(MinimumRunsPerSide(0.101), 3);
  EXPECT_EQ(MinimumRunsPerSide(0.01), 5);    // 2/252 = 0.0079
  // Unequal sizes at 0.05: 2 / C(n1+n2, n1) < 0.05 needs C > 40.
  EXPECT_EQ(MinimumOtherSide(1, 0.05), 40);  // 2/41
  EXPECT_EQ(MinimumOtherSide(2, 0.05), 8);   // 2/45
  EXPECT_EQ(MinimumOtherSide(3, 0.05), 5);   // 2/56; 3 against 4 gives 2/35 = 0.057
  EXPECT_EQ(MinimumOtherSide(4, 0.05), 4);
  EXPECT_EQ(MinimumOtherSide(10, 0.05), 2);  // 2/11 = 0.18 against 1, 2/66 against 2
}

TEST(UTestTest, FewestRunsSkipTheStepWhereTheMethodChanges) {
  // 8 a side (exact) reach 1.55e-4, 9 a side (normal approximation) only
  // 4.12e-4, 10 a side 1.8e-4: at 3e-4 the test needs 10, not 8.
  ASSERT_LT(MinimumPValue(8, 8), 3e-4);
  ASSERT_GE(MinimumPValue(9, 9), 3e-4);
  ASSERT_LT(MinimumPValue(10, 10), 3e-4);
  EXPECT_EQ(MinimumRunsPerSide(3e-4), 10);
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
  EXPECT_EQ(ttt.verdict, RowVerdict::kRegression);
  EXPECT_TRUE(c->regression());
}

// Medians over runs of different workloads, slices or modes mean nothing,
// nor does a verdict between two workloads: refused, naming the runs.
TEST(CompareTest, RunsOfDifferentKindsAreRefused) {
  auto kinds = [](std::vector<RunRecord> runs, const char* workload, const char* slice, const char* mode,
                  int64_t first_id) {
    for (RunRecord& r : runs) {
      r.id = first_id++;
      r.run.workload = workload;
      r.run.slice = slice;
      r.run.mode = mode;
    }
    return runs;
  };
  std::vector<RunRecord> toy = kinds(Runs({1, 2, 3}), "toy", "tpu-v3-8", "functional", 1);
  std::vector<RunRecord> mixed = toy;
  mixed.push_back(kinds(Runs({4}), "resnet", "tpu-v3-32", "projected", 9)[0]);
  auto c = Compare(mixed, toy, {});
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.status().message(), HasSubstr("the baseline mixes runs of different kinds: run 1 is toy on tpu-v3-8, "
                                              "functional, run 9 is resnet on tpu-v3-32, projected"));
  c = Compare(toy, kinds(Runs({1, 2, 3}), "resnet", "tpu-v3-8", "functional", 4), {});
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.status().message(), HasSubstr("compare runs of one workload and mode"));
  c = Compare(toy, kinds(Runs({1, 2, 3}), "toy", "tpu-v3-8", "projected", 4), {});
  ASSERT_FALSE(c.ok());
  // Another slice of the same workload and mode is a comparison a user may want.
  c = Compare(toy, kinds(Runs({1, 2, 3}), "toy", "tpu-v3-32", "functional", 4), {});
  EXPECT_TRUE(c.ok()) << c.status().ToString();
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
  EXPECT_EQ(c->metrics[0].verdict, RowVerdict::kOk);  // tested: 5 a side
  EXPECT_FALSE(c->regression());
  EXPECT_TRUE(c->pass());
}

TEST(CompareTest, HigherIsBetterMetricsRegressWhenTheyDrop) {
  CompareOptions o;
  o.metrics = {"throughput"};
  auto c = Compare(Runs({1, 1, 1, 1}, 1.0), Runs({1, 1, 1, 1}, 2.0), o);
  ASSERT_TRUE(c.ok());
  EXPECT_NEAR(c->metrics[0].worse_pct, 50, 1e-9);
  EXPECT_TRUE(c->regression());
}

TEST(CompareTest, TooFewRunsAreOverThresholdNotTestedNeverSignificant) {
  CompareOptions o;
  o.metrics = {"time_to_train"};
  auto c = Compare(Runs({100, 100}), Runs({150, 150}), o);
  ASSERT_TRUE(c.ok());
  const MetricComparison& m = c->metrics[0];
  EXPECT_FALSE(m.tested());
  EXPECT_FALSE(m.significant);
  EXPECT_EQ(m.verdict, RowVerdict::kOverThresholdUntested);
  EXPECT_STREQ(RowVerdictText(m.verdict), "over threshold, not tested");
  EXPECT_EQ(m.note, "2 runs a side; the U test needs 4 a side at alpha 0.05");
  EXPECT_TRUE(m.fails_gate);
  EXPECT_FALSE(c->regression());
  EXPECT_EQ(c->verdict(), GateVerdict::kFailUntested);
  EXPECT_EQ(GateSummary(*c, o),
            "FAIL: over threshold, not tested (2 runs a side; the U test needs 4 a side at alpha 0.05; "
            "threshold 5% worse)");
  // --untested pass: the same row, and the gate passes, saying so.
  o.untested = UntestedPolicy::kPass;
  c = Compare(Runs({100, 100}), Runs({150, 150}), o);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->metrics[0].verdict, RowVerdict::kOverThresholdUntested);
  EXPECT_FALSE(c->metrics[0].fails_gate);
  EXPECT_TRUE(c->pass());
  EXPECT_EQ(GateSummary(*c, o),
            "PASS (threshold 5% worse, alpha 0.05); 1 row over threshold, not tested, passes under "
            "--untested pass (2 runs a side; the U test needs 4 a side at alpha 0.05)");
}

TEST(CompareTest, UnequalSizesSayWhatTheOtherSideNeeds) {
  EXPECT_EQ(UntestedReason(3, 2, 0.05), "3 against 2 runs; the U test needs 4 a side at alpha 0.05, or 8 against 2");
  EXPECT_EQ(UntestedReason(1, 1, 0.05), "1 run a side; the U test needs 4 a side at alpha 0.05");
  // 3 against 5 is enough at 0.05: tested.
  CompareOptions o;
  o.metrics = {"time_to_train"};
  auto c = Compare(Runs({100, 101, 99}), Runs({120, 121, 119, 122, 120}), o);
  ASSERT_TRUE(c.ok());
  EXPECT_TRUE(c->metrics[0].tested());
  EXPECT_EQ(c->metrics[0].verdict, RowVerdict::kRegression);
  EXPECT_EQ(c->verdict(), GateVerdict::kFailSignificant);
}

TEST(CompareTest, AlphaOutsideZeroToOneIsRefused) {
  for (double alpha : {0.0, 1.0, -0.1}) {
    CompareOptions o;
    o.alpha = alpha;
    auto c = Compare(Runs({1, 2, 3, 4}), Runs({1, 2, 3, 4}), o);
    ASSERT_FALSE(c.ok()) << alpha;
    EXPECT_THAT(c.status().message(), HasSubstr("--alpha")) << alpha;
  }
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

// ---------------------------------------------------------------- the gate's verdict

// `n` values around `center`, spread +-2% by a fixed pseudo-random sequence
// (std::mt19937's output is the same on every platform).
std::vector<double> Noisy(int n, double center, unsigned seed) {
  std::mt19937 gen(seed);
  std::vector<double> v;
  for (int i = 0; i < n; ++i) v.push_back(center * (1 + 0.02 * (2.0 * double(gen()) / double(gen.max()) - 1)));
  return v;
}

struct GateCase {
  int n;             // runs a side
  bool shifted;      // the candidate 20% slower, else the same distribution
  RowVerdict row;
  bool tested;
  GateVerdict gate;
};

class GateTest : public ::testing::TestWithParam<GateCase> {};

// 3 against 3 cannot be tested at 0.05: a 20% slowdown is "over threshold,
// not tested" (failing the gate by default), never "significant"; 5 and 10 a
// side are tested, and the slowdown is a REGRESSION.
TEST_P(GateTest, VerdictFollowsTheEvidence) {
  const GateCase& g = GetParam();
  BenchSamples base{"BM_k", {}, false}, cand{"BM_k", {}, false};
  for (double t : Noisy(g.n, 1000, 1)) base.repetitions.push_back({t, std::nullopt, 100});
  for (double t : Noisy(g.n, g.shifted ? 1200 : 1000, 2)) cand.repetitions.push_back({t, std::nullopt, 100});
  auto c = CompareBenchmarks({base}, {cand}, {});
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  const MetricComparison& m = c->benchmarks[0];
  EXPECT_EQ(m.verdict, g.row) << RowVerdictText(m.verdict) << " (" << m.note << ")";
  EXPECT_EQ(m.tested(), g.tested);
  EXPECT_EQ(m.utest.has_value(), g.tested);
  if (!g.tested) {
    EXPECT_FALSE(m.significant);
  }
  if (g.shifted) {
    EXPECT_NEAR(m.worse_pct, 20, 4);
  }
  EXPECT_EQ(c->verdict(), g.gate);
  EXPECT_EQ(c->pass(), g.gate == GateVerdict::kPass);
  const std::string summary = GateSummary(*c, {});
  EXPECT_THAT(summary, ::testing::StartsWith(GateVerdictText(g.gate)));
  if (!g.tested) {
    EXPECT_THAT(summary, ::testing::Not(HasSubstr("significant")));
  }
  // The JSON document carries the same.
  const nlohmann::json j = ComparisonToJson(*c, {});
  EXPECT_EQ(j["verdict"], GateVerdictText(g.gate));
  EXPECT_EQ(j["pass"], g.gate == GateVerdict::kPass);
  EXPECT_EQ(j["benchmarks"][0]["tested"], g.tested);
  EXPECT_EQ(j["benchmarks"][0]["verdict"], RowVerdictText(g.row));
  EXPECT_EQ(j["benchmarks"][0]["p_value"].is_null(), !g.tested);
}

INSTANTIATE_TEST_SUITE_P(
    ThreeFiveTen, GateTest,
    ::testing::Values(GateCase{3, false, RowVerdict::kWithinThresholdUntested, false, GateVerdict::kPass},
                      GateCase{3, true, RowVerdict::kOverThresholdUntested, false, GateVerdict::kFailUntested},
                      GateCase{5, false, RowVerdict::kOk, true, GateVerdict::kPass},
                      GateCase{5, true, RowVerdict::kRegression, true, GateVerdict::kFailSignificant},
                      GateCase{10, false, RowVerdict::kOk, true, GateVerdict::kPass},
                      GateCase{10, true, RowVerdict::kRegression, true, GateVerdict::kFailSignificant}),
    [](const ::testing::TestParamInfo<GateCase>& param) {
      return std::to_string(param.param.n) + "a_side_" + (param.param.shifted ? "20pct_slower" : "same");
    });

TEST(GateSummaryTest, RegressionAndUntestedRowsAreBothNamed) {
  BenchSamples a{"BM_a", {}, false}, a2{"BM_a", {}, false}, b{"BM_b", {}, false}, b2{"BM_b", {}, false};
  for (double t : Noisy(5, 1000, 1)) a.repetitions.push_back({t, std::nullopt, 1});
  for (double t : Noisy(5, 1200, 2)) a2.repetitions.push_back({t, std::nullopt, 1});
  for (double t : Noisy(3, 1000, 3)) b.repetitions.push_back({t, std::nullopt, 1});
  for (double t : Noisy(3, 1200, 4)) b2.repetitions.push_back({t, std::nullopt, 1});
  auto c = CompareBenchmarks({a, b}, {a2, b2}, {});
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->verdict(), GateVerdict::kFailSignificant);
  EXPECT_EQ(c->untested_over_threshold(), 1);
  EXPECT_EQ(GateSummary(*c, {}),
            "FAIL: significant regression (threshold 5% worse, alpha 0.05); also 1 row over threshold, not "
            "tested (3 runs a side; the U test needs 4 a side at alpha 0.05)");
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
  EXPECT_EQ(c->benchmarks[0].verdict, RowVerdict::kRegression);
  EXPECT_EQ(c->benchmarks[1].verdict, RowVerdict::kOk);
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

// A time of zero or less, or one that overflows, is refused naming the
// benchmark: a rise from 0 to 1 ns showed as +0.00% and passed.
TEST(GoogleBenchmarkJsonTest, ATimeThatIsNotPositiveAndFiniteIsRefusedNamingTheBenchmark) {
  for (const char* t : {"0", "-1", "1e308"}) {
    const std::string text = std::string(R"({"benchmarks": [{"name": "gemm", "real_time": )") + t +
                             R"(, "time_unit": "s"}]})";
    auto b = ParseGoogleBenchmarkJson(text, "cand.json");
    ASSERT_FALSE(b.ok()) << t;
    EXPECT_THAT(b.status().message(), HasSubstr("cand.json: benchmark 'gemm' has real_time")) << t;
  }
  auto broken = ParseGoogleBenchmarkJson("{", "cand.json");
  ASSERT_FALSE(broken.ok());
  EXPECT_EQ(broken.status().message(), "cand.json: not valid JSON");
  // A stddev aggregate of 0 is a statistic, not a time: it is skipped.
  auto ok = ParseGoogleBenchmarkJson(
      R"({"benchmarks": [{"name": "g", "real_time": 2}, {"name": "g_stddev", "run_name": "g", "run_type": "aggregate",
          "aggregate_name": "stddev", "real_time": 0}]})",
      "base.json");
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
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
