// podbench compare: compare two run sets or two benchmark sets, a CI
// regression gate. Sets come from the results store, or from two Google
// Benchmark JSON files.
#include <filesystem>
#include <fstream>
#include <memory>
#include <ostream>
#include <sstream>

#include "base/text.h"
#include "harness/cli/command.h"
#include "harness/cli/store_util.h"
#include "results/bench_samples.h"
#include "results/compare.h"
#include "results/export.h"
#include "results/run_set.h"

namespace podbench::cli {

namespace {
struct CompareCliOptions {
  std::string db = "podbench.db";
  std::string base, cand, workload, metrics, only;
  std::string untested = "fail";  // --untested
  results::CompareOptions compare;
  OutputFormat format = OutputFormat::kText;
};

std::vector<std::string> SplitCommas(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, ',');) out.push_back(item);
  return out;
}

bool IsFile(const std::string& path) {
  std::error_code ec;
  return std::filesystem::is_regular_file(path, ec);
}

Result<std::vector<results::BenchSamples>> ReadBenchmarkJson(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::IOError(path + ": cannot read");
  std::stringstream text;
  text << in.rdbuf();
  return results::ParseGoogleBenchmarkJson(text.str(), path);
}

void Emit(const results::Comparison& c, const CompareCliOptions& opt, CliContext& ctx) {
  switch (opt.format) {
    case OutputFormat::kText: results::WriteComparisonText(ctx.out, c, opt.compare); break;
    case OutputFormat::kCsv: results::WriteComparisonCsv(ctx.out, c); break;
    case OutputFormat::kJson:
      ctx.out << results::ComparisonToJson(c, opt.compare).dump(2) << "\n";
      break;
  }
  ctx.exit_code = c.pass() ? kExitOk : kExitVerdict;
}

// BASE and CAND as Google Benchmark JSON files, as compare.py reads them.
void CompareFiles(const CompareCliOptions& opt, CliContext& ctx) {
  if (!IsFile(opt.base) || !IsFile(opt.cand)) {
    const std::string& file = IsFile(opt.base) ? opt.base : opt.cand;
    const std::string& other = IsFile(opt.base) ? opt.cand : opt.base;
    return Fail(ctx, "compare",
                Status::InvalidArgument(file + " is a file (Google Benchmark JSON) but " + other +
                                        " is not: give two JSON files or two sets of the store"));
  }
  auto base = ReadBenchmarkJson(opt.base);
  if (!base.ok()) return Fail(ctx, "compare", base.status());
  auto cand = ReadBenchmarkJson(opt.cand);
  if (!cand.ok()) return Fail(ctx, "compare", cand.status());
  auto c = results::CompareBenchmarks(*base, *cand, opt.compare);
  if (!c.ok()) return Fail(ctx, "compare", c.status().WithContext(opt.base + " vs " + opt.cand));
  Emit(*c, opt, ctx);
}

// Both sides of one kind (runs or benchmarks) must be present, or neither.
Status BothOrNeither(size_t base, size_t cand, const CompareCliOptions& opt, const char* kind) {
  if ((base == 0) == (cand == 0)) return Status::Ok();
  const std::string& empty = base == 0 ? opt.base : opt.cand;
  const std::string& full = base == 0 ? opt.cand : opt.base;
  return Status::NotFound(opt.db + ": set '" + full + "' has " +
                          Plural(static_cast<long long>(base + cand), kind) + " but '" + empty +
                          "' has none (--only runs|benchmarks gates one kind)");
}

void CompareStored(const CompareCliOptions& opt, CliContext& ctx) {
  auto bf = results::ParseRunSet(opt.base);
  if (!bf.ok()) return Fail(ctx, "compare", bf.status());
  auto cf = results::ParseRunSet(opt.cand);
  if (!cf.ok()) return Fail(ctx, "compare", cf.status());
  bf->workload = cf->workload = opt.workload;
  auto store = OpenExistingStore(opt.db, ctx, "compare");
  if (!store) return;
  std::vector<results::RunRecord> base, cand;
  if (opt.only != "benchmarks") {
    auto b = store->ListRuns(*bf);
    if (!b.ok()) return Fail(ctx, "compare", b.status());
    auto c = store->ListRuns(*cf);
    if (!c.ok()) return Fail(ctx, "compare", c.status());
    base = std::move(b).value();
    cand = std::move(c).value();
  }
  // Benchmark sets are named by label or git hash; ids name runs only.
  std::vector<results::KernelBenchRecord> base_bench, cand_bench;
  const bool by_id = !bf->ids.empty() || !bf->id_ranges.empty() || !cf->ids.empty() ||
                     !cf->id_ranges.empty();
  if (opt.only != "runs" && !by_id) {
    auto b = store->KernelBenches(*bf);
    if (!b.ok()) return Fail(ctx, "compare", b.status());
    auto c = store->KernelBenches(*cf);
    if (!c.ok()) return Fail(ctx, "compare", c.status());
    base_bench = std::move(b).value();
    cand_bench = std::move(c).value();
  }
  if (base.empty() && cand.empty() && base_bench.empty() && cand_bench.empty()) {
    const char* what = opt.only == "runs"         ? "run"
                       : opt.only == "benchmarks" ? "benchmark"
                                                  : "run or benchmark";
    return Fail(ctx, "compare",
                Status::NotFound(opt.db + ": set '" + opt.base + "' matches no " + what));
  }
  if (Status st = BothOrNeither(base.size(), cand.size(), opt, "run"); !st.ok()) {
    return Fail(ctx, "compare", st);
  }
  if (Status st = BothOrNeither(base_bench.size(), cand_bench.size(), opt, "benchmark"); !st.ok()) {
    return Fail(ctx, "compare", st);
  }
  results::Comparison all;
  if (!base.empty()) {
    auto c = results::Compare(base, cand, opt.compare);
    if (!c.ok()) return Fail(ctx, "compare", c.status());
    all.metrics = std::move(c->metrics);
  }
  if (!base_bench.empty()) {
    auto c = results::CompareBenchmarks(results::SamplesFromRecords(base_bench),
                                        results::SamplesFromRecords(cand_bench), opt.compare);
    if (!c.ok()) return Fail(ctx, "compare", c.status());
    all.benchmarks = std::move(c->benchmarks);
  }
  Emit(all, opt, ctx);
}

}  // namespace

void AddCompareCommand(Command app, CliContext& ctx) {
  Command sub = app.AddSubcommand(
      "compare",
      "Compare two run sets or benchmark sets (medians and the Mann-Whitney U test); exit 1 on a "
      "significant regression, or on a row over the threshold with too few runs to test "
      "(--untested)");
  auto opt = std::make_shared<CompareCliOptions>();
  sub.Add("base", opt->base,
          "Baseline set: ids (3,4,5 or 3-7), label:NAME (or NAME), git:PREFIX; or a Google "
          "Benchmark JSON file")
      .Required();
  sub.Add("cand", opt->cand, "Candidate set, same syntax (a JSON file when BASE is one)")
      .Required();
  sub.Add("--max-regression", opt->compare.max_regression_pct,
          "Allowed regression of a median, in percent (default 5)")
      .NonNegative();
  sub.Add("--alpha", opt->compare.alpha,
          "Significance level of the U test, above 0 and below 1 (default 0.05; the test "
          "then needs at least " +
              std::to_string(results::MinimumRunsPerSide(results::CompareOptions{}.alpha)) +
              " runs a side)");
  sub.Add("--untested", opt->untested,
          "A row over the threshold with too few runs for the U test to reach alpha: "
          "'fail' fails the gate (default), 'pass' lets it pass; either way its verdict "
          "reads 'over threshold, not tested'")
      .Choices({"fail", "pass"});
  sub.Add("--metrics", opt->metrics,
          "Comma-separated run metrics to gate on (default time_to_train,step_time,throughput;"
          " also host_time)");
  sub.Add("--workload", opt->workload, "Only runs of this workload, in both sets");
  sub.Add("--only", opt->only,
          "Gate only runs or only benchmarks (default: whatever both sets hold)")
      .Choices({"runs", "benchmarks"});
  sub.Add("--db", opt->db, "Results database (SQLite; default podbench.db)");
  AddFormatOption(sub, &opt->format, true);
  sub.Callback([opt, &ctx] {
    opt->compare.untested =
        opt->untested == "pass" ? results::UntestedPolicy::kPass : results::UntestedPolicy::kFail;
    if (!opt->metrics.empty()) opt->compare.metrics = SplitCommas(opt->metrics);
    for (const auto& m : opt->compare.metrics) {
      if (auto def = results::FindMetric(m); !def.ok()) return Fail(ctx, "compare", def.status());
    }
    if (IsFile(opt->base) || IsFile(opt->cand)) return CompareFiles(*opt, ctx);
    CompareStored(*opt, ctx);
  });
}

}  // namespace podbench::cli
