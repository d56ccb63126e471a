// podbench reproduce: Google's MLPerf v0.6 submission reproduced on the
// emulated TPU-v3 pod. Every registered workload with a google-v0.6 preset,
// on every slice of the system its preset has values for, in projected mode
// with the v0.6 number of scored runs (the same run loop as `podbench run`);
// then the fidelity table against the published results (the same table as
// `podbench scaling`), the published logs' verdicts and scores where they are
// at hand (the same rules and scoring as `check` and `score`), the HTML
// report (as `report --html`) and a JSON summary, all in --out.
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <ostream>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "base/version.h"
#include "harness/cli/command.h"
#include "harness/cli/html_report.h"
#include "harness/cli/store_util.h"
#include "harness/run/log_check.h"
#include "harness/run/scored_runs.h"
#include "harness/run/settings.h"
#include "results/scaling.h"
#include "rules/score.h"
#include "topology/slice.h"
#include "topology/system.h"

namespace podbench::cli {
namespace {

namespace fs = std::filesystem;

constexpr const char* kPreset = "google-v0.6";
constexpr const char* kDefaultPublished = "../shared/fixtures/logs/v0.6/Google";

struct ReproduceOptions {
  std::string workloads, slices;  // comma-separated; empty = all
  std::string db;                 // empty = <out>/podbench.db
  std::string out = "reproduce";
  std::string published;          // empty = kDefaultPublished when it exists
  uint64_t seed = 1;
  OutputFormat format = OutputFormat::kText;
};

std::vector<std::string> SplitList(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, ',');) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

// One workload and the slices its google-v0.6 preset has values for.
struct Target {
  const workloads::WorkloadRegistration* registration = nullptr;
  std::vector<workloads::SliceInfo> slices;
};

// Every workload with the preset and projected mode (or those --workloads
// names), each with every slice of the system (or of --slices) its preset
// accepts.
Result<std::vector<Target>> Plan(const ReproduceOptions& opt, const topology::SystemSpec& system) {
  std::vector<const workloads::WorkloadRegistration*> eligible;
  std::string names;
  for (const auto* r : workloads::AllWorkloads()) {
    const auto& p = r->presets();
    if (std::find(p.begin(), p.end(), kPreset) == p.end() || !r->Supports(workloads::Mode::kProjected)) {
      continue;
    }
    eligible.push_back(r);
    names += (names.empty() ? "" : ", ") + r->name();
  }
  std::vector<const workloads::WorkloadRegistration*> chosen = eligible;
  if (!opt.workloads.empty()) {
    chosen.clear();
    for (const std::string& w : SplitList(opt.workloads)) {
      auto it = std::find_if(eligible.begin(), eligible.end(),
                             [&](const auto* r) { return r->name() == w; });
      if (it == eligible.end()) {
        return Status::InvalidArgument("--workloads " + w + ": no projected workload with a " + kPreset +
                                       " preset has this name (those with one: " +
                                       (names.empty() ? "none" : names) + ")");
      }
      chosen.push_back(*it);
    }
  }
  std::vector<workloads::SliceInfo> slices;
  if (opt.slices.empty()) {
    for (const auto& [cores, grid] : system.pod.slices) {
      PODBENCH_ASSIGN_OR_RETURN(workloads::SliceInfo s,
                                harness::ParseSlice(system.name + "-" + std::to_string(cores), system));
      slices.push_back(s);
    }
  } else {
    for (const std::string& name : SplitList(opt.slices)) {
      auto slice = topology::Slice::FromName(name, system);
      if (!slice.ok()) return slice.status().WithContext("--slices " + name);
      slices.push_back({name, slice->num_cores(), slice->num_chips()});
    }
  }
  std::vector<Target> plan;
  for (const auto* r : chosen) {
    Target t{r, {}};
    auto workload = r->Create();
    for (const workloads::SliceInfo& s : slices) {
      if (workload->Preset(kPreset, s).ok()) t.slices.push_back(s);
    }
    if (!t.slices.empty()) plan.push_back(std::move(t));
  }
  if (plan.empty()) {
    return Status::InvalidArgument("no workload's " + std::string(kPreset) +
                                   " preset has values for the slices asked for (--slices " +
                                   opt.slices + ")");
  }
  return plan;
}

// The published logs of one benchmark on one slice: podbench's v0.6 rules'
// verdicts and the v0.6 score (`podbench check` and `podbench score`).
struct PublishedLogs {
  int logs = 0, pass = 0;
  std::optional<double> score_min;
  std::vector<std::string> failing;  // file: keys
};

bool SameBenchmark(const std::string& folder, const std::string& benchmark) {
  return folder == benchmark || (folder == "mask" && benchmark == "maskrcnn");
}

Result<std::map<std::pair<std::string, std::string>, PublishedLogs>> CheckPublished(
    const fs::path& dir, const std::map<std::string, std::string>& benchmark_of) {
  PODBENCH_ASSIGN_OR_RETURN(std::vector<rules::BenchmarkScore> scores, rules::ScoreDirs({dir}));
  std::map<std::pair<std::string, std::string>, PublishedLogs> out;  // (workload, slice)
  for (const rules::BenchmarkScore& s : scores) {
    for (const auto& [workload, benchmark] : benchmark_of) {
      if (!SameBenchmark(s.benchmark, benchmark)) continue;
      PublishedLogs& p = out[{workload, s.platform}];
      p.score_min = s.score_minutes;
      for (const rules::RunTime& run : s.runs) {
        PODBENCH_ASSIGN_OR_RETURN(rules::CheckResult r, harness::CheckWithV06Rules(run.file));
        ++p.logs;
        if (r.pass) {
          ++p.pass;
        } else {
          std::string keys;
          for (const auto& k : r.error_keys) keys += (keys.empty() ? "" : ", ") + k;
          p.failing.push_back(fs::path(run.file).filename().string() + ": " + keys);
        }
      }
    }
  }
  return out;
}

nlohmann::json Opt(const std::optional<double>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}
std::string Txt(const std::optional<double>& v, const char* spec) {
  return v ? fmt::format(fmt::runtime(spec), *v) : std::string("-");
}

void Execute(const ReproduceOptions& opt, CliContext& ctx) {
  const auto start = std::chrono::steady_clock::now();
  auto seconds_since = [](std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
  };
  auto system = topology::LoadSystemOrDefault("");
  if (!system.ok()) return Fail(ctx, "reproduce", system.status());
  auto plan = Plan(opt, *system->spec);
  if (!plan.ok()) return Fail(ctx, "reproduce", plan.status());
  // The published logs are optional unless asked for by name.
  fs::path published = opt.published.empty() ? fs::path(kDefaultPublished) : fs::path(opt.published);
  std::error_code ec;
  const bool have_published = fs::is_directory(published, ec);
  if (!opt.published.empty() && !have_published) {
    return Fail(ctx, "reproduce", Status::NotFound("--published " + opt.published + ": no such folder"));
  }
  const fs::path out_dir(opt.out);
  const fs::path log_dir = out_dir / "logs";
  fs::create_directories(log_dir, ec);
  if (ec) {
    return Fail(ctx, "reproduce", Status::IOError(log_dir.string() + ": cannot create (" + ec.message() + ")"));
  }
  const std::string db = opt.db.empty() ? (out_dir / "podbench.db").string() : opt.db;
  auto store = results::ResultsStore::Open(db);
  if (!store.ok()) return Fail(ctx, "reproduce", store.status());

  const bool text = opt.format == OutputFormat::kText;
  const bool terminal = text && isatty(STDERR_FILENO) == 1;
  size_t total = 0;
  for (const Target& t : *plan) total += t.slices.size();
  if (text) {
    ctx.out << fmt::format(
        "podbench reproduce: Google's MLPerf v0.6 submission on the emulated TPU-v3 pod "
        "(projected mode, preset {}, base seed {}): {} workload{}, {} scored sets\n",
        kPreset, opt.seed, plan->size(), plan->size() == 1 ? "" : "s", total);
  }

  // The runs, one scored set per workload and slice.
  std::map<std::string, std::vector<int64_t>> ids;           // workload -> run ids
  std::map<std::string, std::string> benchmark_of;           // workload -> v0.6 benchmark
  std::map<std::pair<std::string, std::string>, nlohmann::json> set_json;  // (workload, slice)
  bool any_log_failed = false;
  size_t done = 0;
  for (const Target& t : *plan) {
    const std::string& w = t.registration->name();
    for (const workloads::SliceInfo& slice : t.slices) {
      ++done;
      harness::RunRequest req;
      req.workload = w;
      req.slice = slice.name;
      req.mode = "projected";
      req.preset = kPreset;
      req.seed = opt.seed;
      req.db = db;
      req.log = (log_dir / (w + "-" + slice.name + ".log")).string();
      auto settings = harness::Normalize(req);
      if (!settings.ok()) return Fail(ctx, "reproduce", settings.status().WithContext(w + " " + slice.name));
      benchmark_of[w] = settings->description.benchmark;
      harness::ScoredSetOptions so;
      if (terminal) {
        so.progress = &ctx.err;
        so.progress_prefix = fmt::format("[{}/{}] {} {} ", done, total, w, slice.name);
      }
      const auto set_start = std::chrono::steady_clock::now();
      auto set = harness::RunScoredSet(*settings, **store, so);
      if (!set.ok()) return Fail(ctx, "reproduce", set.status().WithContext(w + " " + slice.name));
      const double host_s = seconds_since(set_start);
      int pass = 0;
      nlohmann::json runs = nlohmann::json::array();
      for (const harness::CompletedRun& r : set->runs) {
        ids[w].push_back(r.id);
        if (r.log_verdict == harness::LogVerdict::kPass) ++pass;
        runs.push_back({{"id", r.id},
                        {"seed", r.seed},
                        {"status", r.summary.success ? "success" : "aborted"},
                        {"ttt_emulated_min", r.summary.ttt_emulated_s / 60},
                        {"log", r.log_path},
                        {"log_check", harness::LogVerdictText(r)}});
      }
      any_log_failed = any_log_failed || set->any_log_failed;
      set_json[{w, slice.name}] = {{"runs", runs}, {"logs_pass", pass}, {"host_s", host_s}};
      if (text) {
        ctx.out << fmt::format("  [{}/{}] {:<12} {:<12} {} runs, {} of {} logs pass the v0.6 rules, "
                               "score {} min ({:.2f} s host)\n",
                               done, total, w, slice.name, set->runs.size(), pass, set->runs.size(),
                               Txt(set->score_min, "{:.3f}"), host_s);
        for (const harness::CompletedRun& r : set->runs) {
          if (r.log_verdict == harness::LogVerdict::kFail) ctx.out << "    " << harness::LogVerdictText(r) << "\n";
        }
      }
    }
  }

  // The fidelity table, from the runs just made.
  std::map<std::pair<std::string, std::string>, PublishedLogs> logs;
  if (have_published) {
    auto checked = CheckPublished(published, benchmark_of);
    if (!checked.ok()) return Fail(ctx, "reproduce", checked.status().WithContext("--published"));
    logs = std::move(checked).value();
  }
  std::vector<results::ScalingRow> all_rows;
  nlohmann::json workloads_json = nlohmann::json::array();
  std::string table;
  table += fmt::format("{:<12} {:<12} {:>5} {:>4} {:>9} {:>8} {:>7} {:>8} {:>9} {:>7} {:>9} {:>9}\n",
                       "workload", "slice", "chips", "runs", "pred_min", "pub_min", "err%", "block_s",
                       "pub_blk_s", "err%", "pub_logs", "pub_score");
  std::string summaries;
  for (const Target& t : *plan) {
    const std::string& w = t.registration->name();
    results::ScalingOptions so;
    so.preset = kPreset;
    auto rows = results::ScalingFromStore(**store, w, so, ids[w]);
    if (!rows.ok()) return Fail(ctx, "reproduce", rows.status());
    std::vector<results::ScalingRow> mine;
    for (const auto& r : *rows) {
      if (r.runs > 0) mine.push_back(r);
    }
    nlohmann::json slices = nlohmann::json::array();
    for (const results::ScalingRow& r : mine) {
      auto p = logs.find({w, r.slice});
      const PublishedLogs* pl = p == logs.end() ? nullptr : &p->second;
      table += fmt::format("{:<12} {:<12} {:>5} {:>4} {:>9} {:>8} {:>7} {:>8} {:>9} {:>7} {:>9} {:>9}\n",
                           w, r.slice, r.chips, r.runs, Txt(r.predicted_min, "{:.3f}"),
                           Txt(r.published_min, "{:.2f}"), Txt(r.error_pct, "{:+.1f}"),
                           Txt(r.block_s, "{:.2f}"), Txt(r.published_block_s, "{:.2f}"),
                           Txt(r.block_error_pct, "{:+.1f}"),
                           pl ? fmt::format("{}/{} ok", pl->pass, pl->logs) : "-",
                           pl ? Txt(pl->score_min, "{:.2f}") : "-");
      nlohmann::json j = results::ScalingToJson({r})[0];
      j["set"] = set_json[{w, r.slice}];
      if (pl) {
        j["published_logs"] = {{"logs", pl->logs}, {"pass", pl->pass}, {"failing", pl->failing},
                               {"score_min", Opt(pl->score_min)}};
      } else {
        j["published_logs"] = nullptr;
      }
      slices.push_back(std::move(j));
    }
    const results::Fidelity f = results::SummarizeFidelity(mine);
    summaries += fmt::format("  {:<12} time to train: median |err| {}%, worst {}% ({} slices); block: "
                             "median |err| {}%, worst {}%\n",
                             w, Txt(f.score.median_abs_pct, "{:.1f}"), Txt(f.score.worst_pct, "{:+.1f}"),
                             f.score.n, Txt(f.block.median_abs_pct, "{:.1f}"),
                             Txt(f.block.worst_pct, "{:+.1f}"));
    workloads_json.push_back({{"workload", w},
                              {"benchmark", benchmark_of[w]},
                              {"scored_runs", t.registration->scored_runs()},
                              {"slices", slices},
                              {"fidelity", results::FidelityToJson(f)}});
    all_rows.insert(all_rows.end(), mine.begin(), mine.end());
  }
  const results::Fidelity overall = results::SummarizeFidelity(all_rows);
  summaries += fmt::format("  {:<12} time to train: median |err| {}%, worst {}% ({} slices); block: "
                           "median |err| {}%, worst {}%\n",
                           "overall", Txt(overall.score.median_abs_pct, "{:.1f}"),
                           Txt(overall.score.worst_pct, "{:+.1f}"), overall.score.n,
                           Txt(overall.block.median_abs_pct, "{:.1f}"),
                           Txt(overall.block.worst_pct, "{:+.1f}"));

  // The HTML report of the database, and the JSON summary.
  const fs::path report = out_dir / "report.html";
  HtmlReportRequest hr;
  hr.path = report.string();
  hr.title = "podbench reproduce: Google's MLPerf v0.6 submission on the emulated TPU-v3 pod";
  hr.preamble = "Written by podbench reproduce from " + db + ": every workload with a " + kPreset +
                " preset, projected on every slice its preset covers, with the v0.6 number of "
                "scored runs; logs in " + log_dir.string() + ".";
  Status st = WriteHtmlReport(**store, hr);
  if (!st.ok()) return Fail(ctx, "reproduce", st);
  const double host_s = seconds_since(start);
  nlohmann::json summary;
  summary["podbench"] = std::string(Version()) + " (git " + GitHash() + ")";
  summary["preset"] = kPreset;
  summary["mode"] = "projected";
  summary["seed"] = opt.seed;
  summary["db"] = db;
  summary["logs"] = log_dir.string();
  summary["report"] = report.string();
  summary["published_logs"] = have_published ? nlohmann::json(published.string()) : nlohmann::json(nullptr);
  summary["workloads"] = workloads_json;
  summary["fidelity"] = results::FidelityToJson(overall);
  summary["any_log_failed"] = any_log_failed;
  summary["host_time_s"] = host_s;
  const fs::path summary_path = out_dir / "reproduce.json";
  {
    std::ofstream f(summary_path, std::ios::out | std::ios::trunc);
    f << summary.dump(2) << "\n";
    f.close();
    if (!f) return Fail(ctx, "reproduce", Status::IOError(summary_path.string() + ": cannot write"));
  }
  if (text) {
    ctx.out << "\nfidelity against Google's published MLPerf v0.6 results (error = (predicted - "
               "published) / published; pub_logs: published logs passing podbench's v0.6 rules, "
               "pub_score: their v0.6 score)\n"
            << table << "\nerrors per workload\n" << summaries;
    if (have_published) {
      ctx.out << "published logs: " << published.string() << "\n";
    } else {
      ctx.out << "published logs: " << kDefaultPublished
              << " is not here (give --published DIR): no verdicts or scores of them\n";
    }
    std::error_code aec;
    const fs::path abs = fs::absolute(report, aec);
    ctx.out << fmt::format("saved: {} (database), {}/ (logs), {} (summary)\nreport: {} (open file://{})\n",
                           db, log_dir.string(), summary_path.string(), report.string(),
                           aec ? report.string() : abs.string());
    ctx.out << fmt::format("host time: {:.2f} s\n", host_s);
  } else {
    ctx.out << summary.dump(2) << "\n";
  }
  ctx.exit_code = any_log_failed ? kExitVerdict : kExitOk;
}

}  // namespace

void AddReproduceCommand(CLI::App& app, CliContext& ctx) {
  auto* sub = app.add_subcommand(
      "reproduce",
      "Reproduce Google's MLPerf v0.6 results: every workload with a google-v0.6 preset, projected, "
      "fidelity table, HTML report");
  auto opt = std::make_shared<ReproduceOptions>();
  sub->add_option("--workloads", opt->workloads,
                  "Comma-separated workloads (default: every one with a google-v0.6 preset)");
  sub->add_option("--slices", opt->slices,
                  "Comma-separated slices, e.g. tpu-v3-32,tpu-v3-2048 (default: every slice the "
                  "preset has values for)");
  sub->add_option("--db", opt->db, "Results database (default: OUT/podbench.db)");
  sub->add_option("--out", opt->out,
                  "Folder for the logs, the database, reproduce.json and report.html (default: reproduce)");
  sub->add_option("--published", opt->published,
                  std::string("Google's published v0.6 logs (an <org> folder with results/<slice>/<benchmark>/; "
                              "default: ") + kDefaultPublished + " when present)");
  sub->add_option("--seed", opt->seed, "Base seed; run i of each set uses seed+i (default 1)");
  AddFormatOption(sub, &opt->format);
  sub->callback([opt, &ctx] { Execute(*opt, ctx); });
}

}  // namespace podbench::cli
