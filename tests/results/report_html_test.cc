// The HTML report's data and rendering from a store filled through its own
// API: scaling against the published values, the breakdown over the store's
// categories, ablations told apart by hyperparameters, accuracy curves with
// stored targets, labelled comparisons; and a page with nothing external.
#include "results/report_html.h"

#include <string_view>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "results/report_data.h"
#include "results/report_svg.h"
#include "tests/testing/temp_dir.h"

namespace podbench::results {
namespace {

using ::podbench::testing::TempDir;
using ::testing::HasSubstr;
using ::testing::Not;

size_t Count(std::string_view text, std::string_view what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string_view::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

constexpr const char* kPresetHp = R"({"allreduce": "torus2d", "global_batch_size": 32768})";

class ReportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = ResultsStore::Open(dir_ / "r.db");
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    store_ = std::move(s).value();
  }

  // A finished run with evaluations every `gap` emulated seconds.
  int64_t AddRun(const std::string& workload, const std::string& slice, int64_t chips,
                 const std::string& mode, const std::string& preset, const std::string& hp,
                 const std::string& label, double step_s, double ttt_s, std::vector<double> accuracy,
                 double gap, const std::vector<std::string>& sets = {}) {
    NewRun r;
    // As `run` stores them (harness/run/settings.h FlagsJson): the --set
    // overrides and the built-in system.
    r.flags_json = nlohmann::json{{"set", sets}, {"system", ""}, {"system_fingerprint", "builtin"}}.dump();
    r.workload = workload;
    r.slice = slice;
    r.cores = chips * 2;
    r.chips = chips;
    r.mode = mode;
    r.preset = preset;
    r.hyperparameters_json = hp;
    r.label = label;
    r.git_hash = "abc";
    auto id = store_->BeginRun(r);
    EXPECT_TRUE(id.ok());
    std::vector<EvalRecord> evals;
    for (size_t i = 0; i < accuracy.size(); ++i) {
      evals.push_back({static_cast<double>(i + 1), "accuracy", accuracy[i], gap * static_cast<double>(i + 1), 0});
    }
    EXPECT_TRUE(store_->AddEvals(*id, evals).ok());
    EXPECT_TRUE(store_->SetTargets(*id, {{"accuracy", 0.9, true}}).ok());
    StepBreakdown b;
    b.steps = 100;
    b.mxu_s = step_s * 100 * 0.7;
    b.collectives_s = step_s * 100 * 0.3;
    b.evaluation_s = 1;
    EXPECT_TRUE(store_->SetBreakdown(*id, b).ok());
    RunOutcome o;
    o.status = "success";
    o.ttt_emulated_s = ttt_s;
    o.step_time_s = step_s;
    o.throughput = 1000 / step_s;
    EXPECT_TRUE(store_->FinishRun(*id, o).ok());
    return *id;
  }

  ReportData Build() {
    auto baseline = [](const RunRecord& r) -> std::optional<nlohmann::json> {
      if (r.run.workload != "resnet") return std::nullopt;
      return nlohmann::json::parse(kPresetHp);
    };
    auto d = BuildReportData(*store_, baseline);
    EXPECT_TRUE(d.ok()) << d.status().ToString();
    return d.ok() ? *d : ReportData{};
  }

  void FillStore() {
    for (int i = 0; i < 3; ++i) {
      AddRun("resnet", "tpu-v3-32", 16, "projected", "google-v0.6", kPresetHp, "", 0.134, 2500 + i, {0.5, 0.7},
             160);
      AddRun("resnet", "tpu-v3-2048", 1024, "projected", "google-v0.6", kPresetHp, "", 0.027, 78 + i,
             {0.5, 0.7}, 4);
      AddRun("resnet", "tpu-v3-2048", 1024, "projected", "google-v0.6",
             R"({"allreduce": "ring", "global_batch_size": 32768})", "", 0.029, 82 + i, {0.5, 0.7}, 4.2,
             {"allreduce=ring"});
    }
    for (int i = 0; i < 4; ++i) {
      AddRun("toy", "tpu-v3-8", 4, "functional", "", "{}", "base", 0.01, 100 + i, {0.5, 0.8, 0.93}, 10);
      AddRun("toy", "tpu-v3-8", 4, "functional", "", "{}", "slow", 0.01, 200 + i, {0.3, 0.6, 0.91}, 20);
    }
  }

  TempDir dir_;
  std::unique_ptr<ResultsStore> store_;
};

TEST_F(ReportTest, GathersEveryKindOfDataFromTheStore) {
  FillStore();
  ReportData d = Build();
  EXPECT_EQ(d.runs, 17);
  ASSERT_EQ(d.workloads.size(), 2u);
  const WorkloadReportData& rn = d.workloads[0];
  EXPECT_EQ(rn.workload, "resnet");
  EXPECT_EQ(rn.scaling_preset, "google-v0.6");
  // Two slices run, the other published ones listed; ablation runs left out.
  std::vector<std::string> with_runs;
  for (const ScalingRow& r : rn.scaling) {
    if (r.runs > 0) {
      with_runs.push_back(r.slice);
      EXPECT_EQ(r.runs, 3) << r.slice;
      EXPECT_TRUE(r.published_min.has_value());
    }
  }
  EXPECT_THAT(with_runs, ::testing::ElementsAre("tpu-v3-32", "tpu-v3-2048"));
  EXPECT_EQ(rn.scaling.size(), 6u);
  EXPECT_DOUBLE_EQ(*rn.scaling.back().step_time_s, 0.027);
  EXPECT_DOUBLE_EQ(*rn.scaling.back().block_s, 4);
  EXPECT_EQ(rn.fidelity.score.n, 2);
  // Breakdown: the store's categories, per step, baseline runs only.
  EXPECT_THAT(rn.breakdown.categories, ::testing::Contains("mxu"));
  EXPECT_THAT(rn.breakdown.categories, ::testing::Contains("evaluation"));
  ASSERT_EQ(rn.breakdown.bars.size(), 2u);
  EXPECT_EQ(rn.breakdown.bars[1].slice, "tpu-v3-2048");
  double total = 0;
  for (size_t c = 0; c < rn.breakdown.categories.size(); ++c) {
    if (rn.breakdown.categories[c] != "evaluation") total += rn.breakdown.bars[1].ms_per_step[c];
  }
  EXPECT_NEAR(total, 27, 1e-9);
  // The ring runs are an ablation of the 2048 slice.
  ASSERT_EQ(rn.ablations.size(), 1u);
  const AblationRow& a = rn.ablations[0];
  EXPECT_EQ(a.name, "allreduce=ring");
  EXPECT_EQ(a.changes[0].baseline, "torus2d");
  EXPECT_EQ(a.baseline_runs, 3);
  EXPECT_EQ(a.ablation_runs, 3);
  EXPECT_DOUBLE_EQ(*a.baseline_step_s, 0.027);
  EXPECT_DOUBLE_EQ(*a.ablation_step_s, 0.029);
  EXPECT_DOUBLE_EQ(*a.ablation_score_min, 83.0 / 60);
  // ... and the scaling table lists them in their own row, with their ids.
  ASSERT_EQ(rn.scaling_others.size(), 1u);
  EXPECT_EQ(rn.scaling_others[0].variant, "set allreduce=ring");
  EXPECT_THAT(rn.scaling_others[0].run_ids, ::testing::ElementsAre(3, 6, 9));
  EXPECT_THAT(rn.scaling.back().run_ids, ::testing::ElementsAre(2, 5, 8));
  EXPECT_TRUE(rn.accuracy.empty());
  EXPECT_TRUE(rn.comparisons.empty());

  const WorkloadReportData& toy = d.workloads[1];
  EXPECT_TRUE(toy.scaling.empty());
  EXPECT_EQ(toy.breakdown.mode, "functional");
  EXPECT_EQ(toy.functional_runs, 8);
  ASSERT_EQ(toy.accuracy.size(), 8u);
  EXPECT_EQ(toy.accuracy[0].points.size(), 3u);
  ASSERT_TRUE(toy.accuracy[0].target.has_value());
  EXPECT_DOUBLE_EQ(toy.accuracy[0].target->target, 0.9);
  ASSERT_EQ(toy.comparisons.size(), 1u);
  EXPECT_EQ(toy.comparisons[0].base_label, "base");
  EXPECT_EQ(toy.comparisons[0].cand_label, "slow");
  EXPECT_TRUE(toy.comparisons[0].comparison.regression());  // twice the time to train
}

// Runs with the preset's hyperparameters but another system file, or from
// another build, are not the preset's: never in its scaling row.
TEST_F(ReportTest, AnotherSystemOrAnotherBuildIsNotInThePresetRow) {
  FillStore();
  // Same hyperparameters, another system file.
  NewRun r;
  r.workload = "resnet";
  r.slice = "tpu-v3-2048";
  r.chips = 1024;
  r.cores = 2048;
  r.mode = "projected";
  r.preset = "google-v0.6";
  r.hyperparameters_json = kPresetHp;
  r.git_hash = "abc";
  r.flags_json = R"({"set": [], "system": "slow.yaml", "system_fingerprint": "fnv1a64:00000000000000ff"})";
  RunOutcome o;
  o.status = "success";
  o.ttt_emulated_s = 300;
  o.step_time_s = 0.1;
  auto a = store_->BeginRun(r);
  ASSERT_TRUE(a.ok());
  ASSERT_TRUE(store_->FinishRun(*a, o).ok());
  ReportData d = Build();
  const WorkloadReportData& rn = d.workloads[0];
  EXPECT_EQ(rn.scaling.back().runs, 3);
  ASSERT_EQ(rn.scaling_others.size(), 2u);
  EXPECT_EQ(rn.scaling_others[1].variant, "system slow.yaml (fnv1a64:00000000000000ff)");
  bool named = false;
  for (const AblationRow& row : rn.ablations) named = named || row.name == rn.scaling_others[1].variant;
  EXPECT_TRUE(named) << "the other system is an ablation by name";

  // A plain run of another build, stored last: the newest plain run, so
  // its build makes the row.
  r.flags_json = R"({"set": [], "system": "", "system_fingerprint": "builtin"})";
  r.git_hash = "def";
  auto b = store_->BeginRun(r);
  ASSERT_TRUE(b.ok());
  ASSERT_TRUE(store_->FinishRun(*b, o).ok());
  d = Build();
  const WorkloadReportData& rn2 = d.workloads[0];
  // The newest plain run's build (def) makes the 2048 row; abc's three are another build's.
  EXPECT_EQ(rn2.scaling.back().runs, 1);
  EXPECT_THAT(rn2.scaling.back().run_ids, ::testing::ElementsAre(*b));
  bool older = false;
  for (const ScalingRow& row : rn2.scaling_others) older = older || row.variant == "build abc";
  EXPECT_TRUE(older);
}

TEST_F(ReportTest, PageHasAFigureWithATableForEveryPlotAndNothingExternal) {
  FillStore();
  HtmlReportOptions o;
  o.generator = "podbench test <&>";
  const std::string html = RenderHtmlReport(Build(), o);
  for (const char* id : {"resnet-scaling-score", "resnet-scaling-block", "resnet-breakdown",
                         "resnet-ablation-step", "resnet-ablation-score", "toy-accuracy-accuracy",
                         "toy-compare", "toy-breakdown"}) {
    EXPECT_THAT(html, HasSubstr("data-plot=\"" + std::string(id) + "\"")) << id;
    EXPECT_THAT(html, HasSubstr("<table data-table=\"" + std::string(id) + "\"")) << id;
  }
  EXPECT_THAT(html, HasSubstr("data-empty=\"resnet-accuracy\""));
  EXPECT_THAT(html, HasSubstr("podbench test &lt;&amp;&gt;"));
  EXPECT_THAT(html, Not(HasSubstr("<script")));
  EXPECT_THAT(html, Not(HasSubstr("@import")));
  EXPECT_THAT(html, Not(HasSubstr("url(")));
  EXPECT_THAT(html, Not(HasSubstr("src=")));
  // The only URL is the SVG namespace; links stay within the page.
  EXPECT_EQ(Count(html, "http"), Count(html, "xmlns=\"http://www.w3.org/2000/svg\""));
  EXPECT_EQ(Count(html, "href=\""), Count(html, "href=\"#w-"));
  EXPECT_EQ(Count(html, "href=\"#w-"), 2u);
  EXPECT_THAT(html, HasSubstr("@media print"));
  EXPECT_THAT(html, HasSubstr("@media (max-width"));
}

TEST_F(ReportTest, EmptyStoreSaysSo) {
  const std::string html = RenderHtmlReport(Build(), {});
  EXPECT_THAT(html, HasSubstr("data-empty=\"runs\""));
  EXPECT_THAT(html, Not(HasSubstr("<svg")));
}

// The seed papers' claims reproduce tested: one figure per claim (the two
// arms as bars, the paper's level as a line), and one table of every claim
// with both figures and the verdict, marked good or bad.
TEST_F(ReportTest, ClaimsAreDrawnAsPairedBarsWithThePapersLevel) {
  ReportData data = Build();
  ClaimRow a;
  a.id = "resnet-2d-gradient-summation";
  a.paper = "Ying et al. 2018";
  a.section = "2-D torus all-reduce";
  a.words = "over 1.5x <faster>";
  a.quantity = "gradients per step (ms)";
  a.base_label = "1-D ring";
  a.variant_label = "2-D torus";
  a.base_value = 5.0;
  a.variant_value = 3.1;
  a.reference = 5.0 / 1.5;
  a.reference_label = "paper: >= 1.5 x";
  a.figure_unit = "x";
  a.podbench_figure = 5.0 / 3.1;
  a.paper_figure = 1.5;
  a.verdict = "agrees";
  ClaimRow b = a;
  b.id = "resnet-lars-large-batch";
  b.reference.reset();
  b.paper_figure.reset();
  b.base_value.reset();
  b.verdict = "not reproduced at this scale";
  data.claims = {a, b};
  const std::string html = RenderHtmlReport(data, {});
  EXPECT_THAT(html, HasSubstr("href=\"#claims\""));
  EXPECT_THAT(html, HasSubstr("data-plot=\"claim-resnet-2d-gradient-summation\""));
  EXPECT_THAT(html, HasSubstr("data-plot=\"claim-resnet-lars-large-batch\""));
  EXPECT_THAT(html, HasSubstr("data-table=\"claims\""));
  EXPECT_THAT(html, HasSubstr("paper: &gt;= 1.5 x"));
  EXPECT_THAT(html, HasSubstr("over 1.5x &lt;faster&gt;"));  // escaped
  EXPECT_THAT(html, Not(HasSubstr("<faster>")));
  EXPECT_THAT(html, HasSubstr("<td class=\"good\">agrees</td>"));
  EXPECT_THAT(html, HasSubstr("not reproduced at this scale"));
  // Two bars for the first claim, one (the base measured nothing) for the second.
  const size_t first = html.find("data-plot=\"claim-resnet-2d-gradient-summation\"");
  EXPECT_THAT(html.substr(first, 200), HasSubstr("data-marks=\"2\""));
  const size_t second = html.find("data-plot=\"claim-resnet-lars-large-batch\"");
  EXPECT_THAT(html.substr(second, 200), HasSubstr("data-marks=\"1\""));
  // Without claims the section is not there at all.
  EXPECT_THAT(RenderHtmlReport(Build(), {}), Not(HasSubstr("data-section=\"claims\"")));
}

TEST(SvgTest, LinePlotCountsItsMarksAndSkipsNonPositiveValuesOnLogAxes) {
  svg::LinePlot p;
  p.id = "p";
  p.title = "t";
  p.x = {"chips", true, {}, std::nullopt, std::nullopt};
  p.y = {"min", true, {}, std::nullopt, std::nullopt};
  p.series = {{"a", {{16, 42}, {1024, 1.3}, {64, 0}}, "", svg::Marker::kCircle, true, false}};
  const std::string s = svg::RenderLinePlot(p);
  EXPECT_THAT(s, HasSubstr("data-marks=\"2\""));
  EXPECT_EQ(Count(s, "class=\"mark\""), 2u);
  EXPECT_THAT(s, HasSubstr(">1000<"));  // a 1-2-5 tick of the log axis
  EXPECT_THAT(s, HasSubstr("viewBox=\"0 0 480 "));
}

TEST(SvgTest, StackedAndGroupedBarsDrawOneMarkPerPositiveValue) {
  svg::StackedBars sb{"s", "t", "ms", {"a", "b"}, {"x", "y"}, {{1, 2}, {0, 3}}};
  EXPECT_THAT(svg::RenderStackedBars(sb), HasSubstr("data-marks=\"3\""));
  svg::GroupedBars gb;
  gb.id = "g";
  gb.title = "t";
  gb.y_label = "%";
  gb.groups = {"g1", "g2"};
  gb.series = {"s1", "s2"};
  gb.values = {{1.0, -2.0}, {std::nullopt, 4.0}};
  gb.references = {{5, "threshold", "#B00020"}};
  const std::string s = svg::RenderGroupedBars(gb);
  EXPECT_THAT(s, HasSubstr("data-marks=\"3\""));
  EXPECT_THAT(s, HasSubstr("threshold"));
}

TEST(SvgTest, EscapesText) {
  EXPECT_EQ(svg::Escape("a<b & \"c\" 'd'>"), "a&lt;b &amp; &quot;c&quot; &#39;d&#39;&gt;");
}

}  // namespace
}  // namespace podbench::results
