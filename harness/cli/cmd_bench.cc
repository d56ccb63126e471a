// podbench bench: kernel benchmarks beside oneDNN and OpenBLAS; with --db the
// results are also saved to the results store (tables kernel_bench and
// kernel_bench_repetitions), tagged with --label.
#include <algorithm>
#include <memory>
#include <ostream>
#include <sstream>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "base/text.h"
#include "base/stats.h"
#include "base/version.h"
#include "harness/cli/command.h"
#include "harness/cli/store_util.h"
#include "kernels/bench_hook.h"
#include "kernels/dispatch/dispatch.h"
#include "results/bench_samples.h"
#include "results/compare.h"
#include "results/store.h"

namespace podbench::cli {
namespace {

// Repetitions of `bench --label` without --repetitions: well above the 4 a
// side that the U test of `podbench compare` needs at its default alpha 0.05
// (results::MinimumRunsPerSide), so that the stored set can be tested at all,
// with a margin for the test to see a few percent through a shared machine's
// noise (10 a side: the smallest p is about 2e-4).
constexpr int kLabelledRepetitions = 10;

struct BenchOptions {
  kernels::BenchRequest request;
  bool repetitions_given = false;  // --repetitions on the command line
  std::string db;  // empty: not saved
  std::string label;  // the benchmark set, for `podbench compare`
  OutputFormat format = OutputFormat::kText;
};

// One KernelBenchRecord per benchmark of a Google Benchmark JSON report, with
// every repetition. Names are "<family>/<shape>/<kernel>/...". `errored`
// receives the benchmarks that reported an error (a skip: "skipped: needs
// ..."), by name, with the message.
Result<std::vector<results::KernelBenchRecord>> RecordsFromJson(
    const std::string& json, const std::string& label,
    std::vector<std::pair<std::string, std::string>>* errored) {
  PODBENCH_ASSIGN_OR_RETURN(std::vector<results::BenchSamples> samples,
                            results::ParseGoogleBenchmarkJson(json, "the benchmark report", errored));
  char host[256] = "unknown";
  gethostname(host, sizeof host - 1);
  std::vector<results::KernelBenchRecord> out;
  for (const results::BenchSamples& b : samples) {
    results::KernelBenchRecord r;
    std::vector<std::string> parts;
    std::stringstream ss(b.name);
    for (std::string p; std::getline(ss, p, '/');) parts.push_back(p);
    r.kernel = parts.size() > 2 ? parts[2] : b.name;
    r.shape = parts.size() > 1 ? parts[0] + "/" + parts[1] : b.name;
    for (size_t i = 3; i < parts.size(); ++i) r.shape += "/" + parts[i];  // threads:N, real_time
    // "<dtype>_gemm__<isa>_<tile>" names its ISA; other podbench rows are the dispatched kernel (its
    // winner is the row's label) or a lowering; the rest are peers.
    r.isa = r.kernel.find("__") != std::string::npos    ? r.kernel.substr(r.kernel.find("__") + 2)
            : r.kernel.rfind("podbench:", 0) == 0 ? r.kernel.substr(9)
                                                    : "peer";
    std::vector<double> times;
    for (const results::BenchRepetition& rep : b.repetitions) {
      times.push_back(rep.real_time_ns);
      r.iterations += rep.iterations;
    }
    r.median_ns = Median(times);
    r.git_hash = GitHash();
    r.host = host;
    r.label = label;
    r.name = b.name;
    if (!b.median_only) r.repetitions = b.repetitions;
    out.push_back(std::move(r));
  }
  return out;
}

int Run(BenchOptions& opt, CliContext& ctx) {
  kernels::BenchRunner runner = kernels::GetBenchRunner();
  if (runner == nullptr) {
    ctx.err << "podbench bench: this podbench was built without benchmarks "
               "(configure with -DPODBENCH_BENCHMARKS=ON)\n";
    return kExitUnavailable;
  }
  // PODBENCH_KERNELS, PODBENCH_KERNEL_CACHE, PODBENCH_CPU_ISA.
  if (Status st = kernels::dispatch::CheckKernelEnvironment(); !st.ok()) {
    Fail(ctx, "bench", st);
    return kExitUsage;
  }
  if (opt.request.list) return runner(opt.request, ctx.out, ctx.err);
  if (opt.db.empty() && !opt.label.empty()) {
    ctx.err << "podbench bench: --label " << opt.label << " names a set in the results store: give --db too\n";
    return kExitUsage;
  }
  if (!opt.label.empty()) {
    const double alpha = results::CompareOptions{}.alpha;
    const int needed = results::MinimumRunsPerSide(alpha);
    if (!opt.repetitions_given) {
      opt.request.repetitions = std::max(kLabelledRepetitions, needed);
    } else if (opt.request.repetitions < needed) {
      ctx.err << "podbench bench: --repetitions " << opt.request.repetitions << " under --label " << opt.label
              << ": `podbench compare` needs " << needed << " a side for its U test at alpha " << alpha
              << "; with fewer, a row worse than the threshold is 'over threshold, not tested'\n";
    }
  }
  if (opt.db.empty()) {
    opt.request.json = opt.format == OutputFormat::kJson;
    return runner(opt.request, ctx.out, ctx.err);
  }
  // Open the store first: a bad --db fails before minutes of measuring.
  auto store = results::ResultsStore::Open(opt.db);
  if (!store.ok()) {
    Fail(ctx, "bench", store.status());
    return kExitUsage;
  }
  std::ostringstream json;
  opt.request.json = true;
  int rc = runner(opt.request, json, ctx.err);
  if (rc != 0) return rc;
  std::vector<std::pair<std::string, std::string>> skipped;
  auto records = RecordsFromJson(json.str(), opt.label, &skipped);
  if (!records.ok()) {
    for (const auto& [name, why] : skipped) ctx.err << name << "  " << why << "\n";
    Fail(ctx, "bench", records.status());
    return kExitUsage;
  }
  for (const auto& r : *records) {
    Status st = (*store)->AddKernelBench(r);
    if (!st.ok()) {
      Fail(ctx, "bench", st);
      return kExitUsage;
    }
  }
  if (opt.format == OutputFormat::kJson) {
    ctx.out << json.str();
  } else {
    for (const auto& r : *records) {
      ctx.out << r.shape << "  " << r.kernel << "  " << r.median_ns / 1e6 << " ms (median of "
              << std::max<size_t>(1, r.repetitions.size()) << ")\n";
    }
    for (const auto& [name, why] : skipped) ctx.out << name << "  " << why << "\n";
  }
  ctx.err << "podbench bench: saved " << Plural(static_cast<long long>(records->size()), "result") << " to "
          << opt.db << (opt.label.empty() ? "" : " under label " + opt.label) << "\n";
  return kExitOk;
}

}  // namespace

void AddBenchCommand(Command app, CliContext& ctx) {
  Command sub = app.AddSubcommand("bench", "Benchmark the kernels and their dispatch at workload shapes, beside oneDNN and OpenBLAS");
  auto opt = std::make_shared<BenchOptions>();
  sub.Add("--filter", opt->request.filter,
          "Only benchmarks whose full name (as --list prints it) matches this regex anywhere "
          "(default: all); one that matches none exits 2");
  sub.AddFlag("--list", opt->request.list,
              "List the full names of the benchmarks --filter selects, and measure nothing");
  Option reps = sub.Add("--repetitions", opt->request.repetitions,
                        "Repetitions of each benchmark; above 1 the table shows median, mean and "
                        "stddev, JSON and --db keep every repetition too (default: 1; with --label, " +
                            std::to_string(kLabelledRepetitions) +
                            ", so that `podbench compare` can test the set)")
                   .Range(1, 1000);
  sub.Add("--min-time", opt->request.min_time_s,
          "Minimum seconds measured per benchmark and repetition (default: 0.2)")
      .Range(0.001, 100.0);
  sub.AddFlag("--interleave,!--no-interleave", opt->request.interleave,
              "With --repetitions above 1, run every selected benchmark's repetitions in one random "
              "interleaved order, so a shared machine's drift falls on all contenders alike (default: on; "
              "--no-interleave runs each benchmark's repetitions back to back)");
  sub.Add("--db", opt->db,
          "Also save the results (every repetition, and the median) to this results database");
  sub.Add("--label", opt->label,
          "Tag the saved results (a benchmark set for `podbench compare`; needs --db; "
          "repetitions default to " + std::to_string(kLabelledRepetitions) + ")");
  AddFormatOption(sub, &opt->format);
  sub.Callback([opt, reps, &ctx] {
    opt->repetitions_given = reps.Count() > 0;
    ctx.exit_code = Run(*opt, ctx);
  });
}

}  // namespace podbench::cli
