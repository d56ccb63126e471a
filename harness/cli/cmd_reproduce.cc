// podbench reproduce: Google's MLPerf v0.6 submission reproduced on the
// emulated TPU-v3 pod. Every registered workload with a google-v0.6 preset,
// on every slice of the system its preset has values for, in projected mode
// with the v0.6 number of scored runs (the same run loop as `podbench run`);
// then the fidelity table against the published results (the same table as
// `podbench scaling`), the published logs' verdicts and scores where they are
// at hand (the same rules and scoring as `check` and `score`), each score
// split into start-up, training, exposed evaluation and the final tail beside
// the same split read from Google's logs (rules/score_split.h), the seed
// papers' claims the registered models declare, tested by paired runs
// (harness/run/claims.h), the HTML report (as `report --html`, with the
// claims drawn) and a JSON summary, all in --out.
#include <unistd.h>

#include <algorithm>
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
#include "base/text.h"
#include "harness/cli/command.h"
#include "harness/cli/html_report.h"
#include "harness/cli/store_util.h"
#include "harness/run/claims.h"
#include "harness/run/log_check.h"
#include "harness/run/scored_runs.h"
#include "harness/run/settings.h"
#include "results/scaling.h"
#include "rules/score.h"
#include "rules/score_split.h"
#include "topology/slice.h"
#include "topology/system.h"
#include "workloads/projected_runs.h"
#include "workloads/registry.h"

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
  std::string claims = "all";     // "all", "none", "projected", or comma-separated claim ids
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
  const workloads::ModelRegistration* registration = nullptr;
  std::vector<workloads::SliceInfo> slices;
};

// Every workload with the preset and projected mode (or those --workloads
// names), each with every slice of the system (or of --slices) its preset
// accepts.
Result<std::vector<Target>> Plan(const ReproduceOptions& opt, const topology::SystemSpec& system) {
  std::vector<const workloads::ModelRegistration*> eligible;
  std::string names;
  for (const auto* r : workloads::AllWorkloads()) {
    if (!r->HasPreset(kPreset) || !r->Supports(workloads::Mode::kProjected)) continue;
    eligible.push_back(r);
    names += (names.empty() ? "" : ", ") + r->name();
  }
  std::vector<const workloads::ModelRegistration*> chosen = eligible;
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
    slices = workloads::PodSlices(system);
  } else {
    for (const std::string& name : SplitList(opt.slices)) {
      auto slice = topology::Slice::FromName(name, system);
      if (!slice.ok()) return slice.status().WithContext("--slices " + name);
      slices.push_back({name, slice->num_cores(), slice->num_chips()});
    }
  }
  std::vector<Target> plan;
  for (const auto* r : chosen) {
    Target t{r, workloads::PresetSlices(*r, kPreset, slices)};
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
  std::vector<fs::path> files;
  // Their scores split as rules/score_split.h reads them (medians), or why not.
  std::optional<rules::ScoreSplitMedians> split;
  std::string split_error;
};

bool SameBenchmark(const std::string& folder, const std::string& benchmark) {
  return folder == benchmark || (folder == "mask" && benchmark == "maskrcnn");
}

Result<std::map<std::pair<std::string, std::string>, PublishedLogs>> CheckPublished(
    const fs::path& dir, const std::map<std::string, std::string>& benchmark_of) {
  PODBENCH_ASSIGN_OR_RETURN(rules::ScoreReport report, rules::ScorePaths({dir}));
  std::map<std::pair<std::string, std::string>, PublishedLogs> out;  // (workload, slice)
  for (const rules::BenchmarkScore& s : report.scores) {
    for (const auto& [workload, benchmark] : benchmark_of) {
      if (!SameBenchmark(s.benchmark, benchmark)) continue;
      PublishedLogs& p = out[{workload, s.platform}];
      p.score_min = s.score_minutes;
      for (const rules::RunTime& run : s.runs) {
        p.files.push_back(run.file);
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
  for (auto& [key, p] : out) {
    auto split = rules::MedianScoreSplit(p.files);
    if (split.ok()) {
      p.split = std::move(split).value();
    } else {
      p.split_error = split.status().message();
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

std::string FidelityLine(const std::string& what, const results::Fidelity& f) {
  return fmt::format("  {:<12} time to train: median |err| {}%, worst {}% ({}); block: "
                     "median |err| {}%, worst {}%\n",
                     what, Txt(f.score.median_abs_pct, "{:.1f}"), Txt(f.score.worst_pct, "{:+.1f}"),
                     Plural(f.score.n, "slice"), Txt(f.block.median_abs_pct, "{:.1f}"), Txt(f.block.worst_pct, "{:+.1f}"));
}

double SecondsSince(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

// One invocation: the plan, then the scored sets, then the fidelity table,
// then the files in --out. Each step returns an error for Execute to report.
class Reproduction {
 public:
  Reproduction(const ReproduceOptions& opt, CliContext& ctx)
      : opt_(opt), ctx_(ctx), text_(opt.format == OutputFormat::kText) {}

  Status Prepare() {
    PODBENCH_ASSIGN_OR_RETURN(topology::LoadedSystem system, topology::LoadSystemOrDefault(""));
    system_ = system.spec;
    PODBENCH_ASSIGN_OR_RETURN(plan_, Plan(opt_, *system.spec));
    PODBENCH_ASSIGN_OR_RETURN(claims_, ChosenClaims());
    // The published logs are optional unless asked for by name.
    published_ = opt_.published.empty() ? fs::path(kDefaultPublished) : fs::path(opt_.published);
    std::error_code ec;
    have_published_ = fs::is_directory(published_, ec);
    if (!opt_.published.empty() && !have_published_) {
      return Status::NotFound("--published " + opt_.published + ": no such folder");
    }
    out_dir_ = opt_.out;
    log_dir_ = out_dir_ / "logs";
    fs::create_directories(log_dir_, ec);
    if (ec) return Status::IOError(log_dir_.string() + ": cannot create (" + ec.message() + ")");
    db_ = opt_.db.empty() ? (out_dir_ / "podbench.db").string() : opt_.db;
    PODBENCH_ASSIGN_OR_RETURN(store_, results::ResultsStore::Open(db_));
    return Status::Ok();
  }

  // One scored set per workload and slice, as `podbench run` makes it.
  Status RunSets() {
    size_t total = 0, done = 0;
    for (const Target& t : plan_) total += t.slices.size();
    if (text_) {
      ctx_.out << fmt::format(
          "podbench reproduce: Google's MLPerf v0.6 submission on the emulated TPU-v3 pod "
          "(projected mode, preset {}, base seed {}): {}, {}\n",
          kPreset, opt_.seed, Plural(static_cast<int64_t>(plan_.size()), "workload"),
          Plural(static_cast<int64_t>(total), "scored set"));
    }
    for (const Target& t : plan_) {
      const std::string& w = t.registration->name();
      for (const workloads::SliceInfo& slice : t.slices) {
        ++done;
        harness::RunRequest req;
        req.workload = w;
        req.slice = slice.name;
        req.mode = "projected";
        req.preset = kPreset;
        req.seed = opt_.seed;
        req.db = db_;
        req.log = (log_dir_ / (w + "-" + slice.name + ".log")).string();
        auto settings = harness::Normalize(req);
        if (!settings.ok()) return settings.status().WithContext(w + " " + slice.name);
        benchmark_of_[w] = settings->description.benchmark;
        harness::ScoredSetOptions so;
        if (text_ && isatty(STDERR_FILENO) == 1) {
          so.progress = &ctx_.err;
          so.progress_prefix = fmt::format("[{}/{}] {} {} ", done, total, w, slice.name);
        }
        const auto set_start = std::chrono::steady_clock::now();
        auto set = harness::RunScoredSet(*settings, *store_, so);
        if (!set.ok()) return set.status().WithContext(w + " " + slice.name);
        Record(w, slice.name, *set, SecondsSince(set_start), done, total);
      }
    }
    return Status::Ok();
  }

  // The fidelity table of this invocation's runs, with the published logs beside it.
  Status Fidelity() {
    std::map<std::pair<std::string, std::string>, PublishedLogs> logs;
    if (have_published_) {
      auto checked = CheckPublished(published_, benchmark_of_);
      if (!checked.ok()) return checked.status().WithContext("--published");
      logs = std::move(checked).value();
    }
    std::vector<results::ScalingRow> all_rows;
    table_ = fmt::format("{:<12} {:<12} {:>5} {:>4} {:>9} {:>8} {:>7} {:>8} {:>9} {:>7} {:>9} {:>9}\n",
                         "workload", "slice", "chips", "runs", "pred_min", "pub_min", "err%", "block_s",
                         "pub_blk_s", "err%", "pub_logs", "pub_score");
    workloads_json_ = nlohmann::json::array();
    for (const Target& t : plan_) {
      const std::string& w = t.registration->name();
      results::ScalingOptions so;
      so.preset = kPreset;
      PODBENCH_ASSIGN_OR_RETURN(results::ScalingTable table, results::ScalingFromStore(*store_, w, so, ids_[w]));
      // This invocation's scored sets are plain runs of this build: every one
      // is in `table.rows`. Other rows would mean a set that is not the
      // preset's, which the fidelity table must not hold.
      if (!table.others.empty()) {
        return Status::Internal(w + ": run " + results::IdRanges(table.others.front().run_ids) + " (" +
                                table.others.front().variant + ") is not a plain " + kPreset + " run");
      }
      std::vector<results::ScalingRow> mine;
      for (const auto& r : table.rows) {
        if (r.runs > 0) mine.push_back(r);
      }
      nlohmann::json slices = nlohmann::json::array();
      for (const results::ScalingRow& r : mine) {
        auto p = logs.find({w, r.slice});
        const PublishedLogs* pl = p == logs.end() ? nullptr : &p->second;
        table_ += fmt::format("{:<12} {:<12} {:>5} {:>4} {:>9} {:>8} {:>7} {:>8} {:>9} {:>7} {:>9} {:>9}\n",
                              w, r.slice, r.chips, r.runs, Txt(r.predicted_min, "{:.3f}"),
                              Txt(r.published_min, "{:.2f}"), Txt(r.error_pct, "{:+.1f}"),
                              Txt(r.block_s, "{:.2f}"), Txt(r.published_block_s, "{:.2f}"),
                              Txt(r.block_error_pct, "{:+.1f}"),
                              pl ? fmt::format("{}/{} ok", pl->pass, pl->logs) : "-",
                              pl ? Txt(pl->score_min, "{:.2f}") : "-");
        nlohmann::json j = results::ScalingRowToJson(r);
        j["set"] = set_json_[{w, r.slice}];
        j["published_logs"] = pl ? nlohmann::json{{"logs", pl->logs},
                                                  {"pass", pl->pass},
                                                  {"failing", pl->failing},
                                                  {"score_min", Opt(pl->score_min)}}
                                 : nlohmann::json(nullptr);
        PODBENCH_ASSIGN_OR_RETURN(j["score_split"], ScoreComposition(w, r.slice, pl));
        slices.push_back(std::move(j));
        for (const std::string& failing : pl ? pl->failing : std::vector<std::string>{}) {
          failing_logs_ += "  " + r.slice + "/" + benchmark_of_[w] + "/" + failing + "\n";
        }
      }
      const results::Fidelity f = results::SummarizeFidelity(mine);
      summaries_ += FidelityLine(w, f);
      workloads_json_.push_back({{"workload", w},
                                 {"benchmark", benchmark_of_[w]},
                                 {"scored_runs", t.registration->scored_runs()},
                                 {"slices", slices},
                                 {"fidelity", results::FidelityToJson(f)}});
      all_rows.insert(all_rows.end(), mine.begin(), mine.end());
    }
    overall_ = results::SummarizeFidelity(all_rows);
    summaries_ += FidelityLine("overall", overall_);
    return Status::Ok();
  }

  // The HTML report of the database and the JSON summary, in --out; then the output.
  Status Finish(std::chrono::steady_clock::time_point start) {
    const fs::path report = out_dir_ / "report.html";
    HtmlReportRequest hr;
    hr.path = report.string();
    hr.title = "podbench reproduce: Google's MLPerf v0.6 submission on the emulated TPU-v3 pod";
    hr.preamble = "Written by podbench reproduce from " + db_ + ": every workload with a " + kPreset +
                  " preset, projected on every slice its preset covers, with the v0.6 number of "
                  "scored runs, and the seed papers' claims by paired runs; logs in " + log_dir_.string() + ".";
    hr.claims = claim_rows_;
    PODBENCH_RETURN_IF_ERROR(WriteHtmlReport(*store_, hr));
    const double host_s = SecondsSince(start);
    nlohmann::json summary;
    summary["podbench"] = std::string(Version()) + " (git " + GitHash() + ")";
    summary["preset"] = kPreset;
    summary["mode"] = "projected";
    summary["seed"] = opt_.seed;
    summary["db"] = db_;
    summary["logs"] = log_dir_.string();
    summary["report"] = report.string();
    summary["published_logs"] =
        have_published_ ? nlohmann::json(published_.string()) : nlohmann::json(nullptr);
    summary["workloads"] = workloads_json_;
    summary["fidelity"] = results::FidelityToJson(overall_);
    summary["claims"] = claims_json_;
    summary["any_failed"] = any_failed_;
    summary["host_time_s"] = host_s;
    const fs::path summary_path = out_dir_ / "reproduce.json";
    std::ofstream f(summary_path, std::ios::out | std::ios::trunc);
    f << summary.dump(2) << "\n";
    f.close();
    if (!f) return Status::IOError(summary_path.string() + ": cannot write the summary");
    if (!text_) {
      ctx_.out << summary.dump(2) << "\n";
      return Status::Ok();
    }
    ctx_.out << "\nfidelity against Google's published MLPerf v0.6 results (error = (predicted - "
                "published) / published; pub_logs: published logs passing podbench's v0.6 rules, "
                "pub_score: their v0.6 score)\n"
             << table_ << "\nerrors per workload\n" << summaries_;
    ctx_.out << "\nwhere the time to train goes: start-up, training, exposed evaluation and the final tail, as "
                "shares of the score (non-train: all but training), predicted (the runs above) and read from "
                "Google's logs (medians over the slice's runs)\n"
             << fmt::format("{:<12} {:<12} {:>7} {:>7} {:>7} {:>7} {:>7}   {:>7} {:>7} {:>7} {:>7} {:>7}\n", "workload",
                            "slice", "start", "train", "eval", "tail", "non-tr", "start", "train", "eval", "tail",
                            "non-tr")
             << fmt::format("{:<25} {:-^40}   {:-^40}\n", "", " predicted ", " Google's logs ") << composition_;
    for (const auto& [w, how] : methods_) ctx_.out << "  how " << w << "'s logs were read: " << how << "\n";
    if (!windows_.empty()) {
      ctx_.out << "  the logs' evaluation windows (eval_start k - block_start k+1: the decode, and the training "
                  "the infeed had queued), medians over the slice's runs:\n"
               << fmt::format("  {:<12} {:<12} {:>9} {:>9} {:>12}\n", "workload", "slice", "first_s", "later_s",
                              "decode_s")
               << windows_;
    }
    if (!claim_rows_.empty()) {
      ctx_.out << "\nthe seed papers' claims (podbench's figure from paired runs; report.html draws them)\n"
               << fmt::format("{:<34} {:<18} {:>12} {:>12} {:<10} {}\n", "claim", "paper", "podbench", "paper",
                              "unit", "verdict");
      for (const results::ClaimRow& c : claim_rows_) {
        ctx_.out << fmt::format("{:<34} {:<18} {:>12} {:>12} {:<10} {}\n", c.id, c.paper,
                                Txt(c.podbench_figure, "{:.4g}"), Txt(c.paper_figure, "{:.4g}"), c.figure_unit,
                                c.verdict);
      }
    }
    if (have_published_) {
      ctx_.out << "published logs: " << published_.string() << "\n";
      if (!failing_logs_.empty()) {
        ctx_.out << "published logs that fail podbench's v0.6 rules (log: failing keys; "
                    "`podbench check` shows why)\n"
                 << failing_logs_;
      }
    } else {
      ctx_.out << "published logs: " << kDefaultPublished
               << " is not here (give --published DIR): no verdicts or scores of them\n";
    }
    std::error_code ec;
    const fs::path abs = fs::absolute(report, ec);
    ctx_.out << fmt::format("saved: {} (database), {}/ (logs), {} (summary)\nreport: {} (open file://{})\n",
                            db_, log_dir_.string(), summary_path.string(), report.string(),
                            ec ? report.string() : abs.string());
    ctx_.out << fmt::format("host time: {:.2f} s\n", host_s);
    return Status::Ok();
  }

  // The claims of the chosen workloads (--claims), each made and judged.
  Status TestClaims() {
    if (claims_.empty()) return Status::Ok();
    if (text_) {
      ctx_.out << fmt::format("\nthe seed papers' claims: {}, each by paired runs (logs in {})\n",
                              Plural(static_cast<int64_t>(claims_.size()), "claim"), (log_dir_ / "claims").string());
    }
    std::error_code ec;
    fs::create_directories(log_dir_ / "claims", ec);
    if (ec) return Status::IOError((log_dir_ / "claims").string() + ": cannot create (" + ec.message() + ")");
    harness::ClaimRunOptions o;
    o.db = db_;
    o.log_dir = log_dir_ / "claims";
    o.seed = opt_.seed;
    size_t done = 0;
    o.on_claim = [&](const harness::ClaimOutcome& c) {
      ++done;
      if (!text_) return;
      // The paper's number, or what a claim without one is judged against.
      const std::string paper = c.row.paper_figure ? "paper " + Txt(c.row.paper_figure, "{:.4g}") + " " + c.row.figure_unit
                                : c.row.reference_label.empty() ? std::string("the paper gives no number")
                                                                : "judged as " + c.row.reference_label;
      ctx_.out << fmt::format("  [{}/{}] {:<34} podbench {} {}, {}: {} ({:.2f} s host)\n", done, claims_.size(),
                              c.row.id, Txt(c.row.podbench_figure, "{:.4g}"), c.row.figure_unit, paper,
                              c.row.verdict, c.host_s);
    };
    claims_json_ = nlohmann::json::array();
    for (const workloads::ClaimSpec* c : claims_) {
      PODBENCH_ASSIGN_OR_RETURN(harness::ClaimOutcome out, harness::RunClaim(*c, *store_, o));
      claim_rows_.push_back(out.row);
      claims_json_.push_back(ClaimJson(out));
    }
    return Status::Ok();
  }

  bool any_failed() const { return any_failed_; }

 private:
  void Record(const std::string& w, const std::string& slice, const harness::ScoredSet& set, double host_s,
              size_t done, size_t total) {
    int pass = 0;
    nlohmann::json runs = nlohmann::json::array();
    for (const harness::CompletedRun& r : set.runs) {
      ids_[w].push_back(r.id);
      if (r.status == "success" && r.not_checked_note.empty()) ++pass;
      runs.push_back({{"id", r.id},
                      {"seed", r.seed},
                      {"status", r.status},
                      {"ttt_emulated_min", r.summary.ttt_emulated_s / 60},
                      {"log", r.log_path},
                      {"log_check", r.log_check}});
    }
    any_failed_ = any_failed_ || set.any_failed();
    set_json_[{w, slice}] = {{"runs", runs}, {"logs_pass", pass}, {"host_s", host_s}};
    if (!text_) return;
    ctx_.out << fmt::format("  [{}/{}] {:<12} {:<12} {}, {} of {} pass the v0.6 rules, "
                            "score {} min ({:.2f} s host)\n",
                            done, total, w, slice, Plural(static_cast<int64_t>(set.runs.size()), "run"), pass,
                            Plural(static_cast<int64_t>(set.runs.size()), "log"),
                            Txt(set.score_min, "{:.3f}"), host_s);
    for (const harness::CompletedRun& r : set.runs) {
      if (r.status != "success") ctx_.out << "    run " << r.id << ": " << r.status << ", " << r.log_check << "\n";
    }
  }

  // The claims --claims names among the plan's workloads' (all: every one).
  Result<std::vector<const workloads::ClaimSpec*>> ChosenClaims() const {
    std::vector<const workloads::ClaimSpec*> all;
    std::string known;
    for (const Target& t : plan_) {
      for (const workloads::ClaimSpec& c : t.registration->claims()) {
        all.push_back(&c);
        known += (known.empty() ? "" : ", ") + c.id;
      }
    }
    if (opt_.claims == "all") return all;
    if (opt_.claims == "none") return std::vector<const workloads::ClaimSpec*>{};
    if (opt_.claims == "projected") {  // both arms projected: seconds, no training
      std::vector<const workloads::ClaimSpec*> projected;
      for (const workloads::ClaimSpec* c : all) {
        if (c->base.mode == "projected" && c->variant.mode == "projected") projected.push_back(c);
      }
      return projected;
    }
    std::vector<const workloads::ClaimSpec*> chosen;
    for (const std::string& id : SplitList(opt_.claims)) {
      auto it = std::find_if(all.begin(), all.end(), [&](const auto* c) { return c->id == id; });
      if (it == all.end()) {
        return Status::InvalidArgument("--claims " + id + ": the chosen workloads declare no such claim (they "
                                       "declare: " + (known.empty() ? "none" : known) + ")");
      }
      chosen.push_back(*it);
    }
    return chosen;
  }

  static nlohmann::json ClaimJson(const harness::ClaimOutcome& c) {
    const results::ClaimRow& r = c.row;
    auto arm = [](const harness::ClaimArm& a, const workloads::ClaimRun& spec) {
      return nlohmann::json{{"label", a.label},      {"slice", spec.slice},   {"mode", spec.mode},
                            {"preset", spec.preset}, {"set", spec.sets},      {"run_ids", a.run_ids},
                            {"statuses", a.statuses}, {"device_step_s", a.device_step_s},
                            {"score_min", Opt(a.score_min)}, {"final_metric", a.final_metric}};
    };
    return {{"id", r.id},
            {"paper", r.paper},
            {"section", r.section},
            {"words", r.words},
            {"base", c.base.run_ids.empty() ? nlohmann::json(nullptr) : arm(c.base, c.spec->base)},
            {"variant", arm(c.variant, c.spec->variant)},
            {"quantity", r.quantity},
            {"base_value", Opt(r.base_value)},
            {"variant_value", Opt(r.variant_value)},
            {"podbench_figure", Opt(r.podbench_figure)},
            {"paper_figure", Opt(r.paper_figure)},
            {"unit", r.figure_unit},
            {"verdict", r.verdict},
            {"judged_against", r.reference_label},
            {"note", r.note},
            {"host_s", c.host_s}};
  }

  // The score of this invocation's runs of `w` on `slice` split into start-up,
  // training, exposed evaluation and the tail (each run composed again from
  // its seed: the same composition the runs were; means over the runs), and
  // the same split of Google's logs when they are at hand.
  Result<nlohmann::json> ScoreComposition(const std::string& w, const std::string& slice, const PublishedLogs* pl) {
    PODBENCH_ASSIGN_OR_RETURN(workloads::ProjectedRunModel m,
                              workloads::ModelProjectedRun(w, kPreset, slice, *system_));
    projection::ScoreSplit mean;
    int n = 0, mismatched = 0;
    for (const auto& run : set_json_[{w, slice}]["runs"]) {
      if (run["status"] != "success") continue;
      const uint64_t seed = run["seed"].get<uint64_t>();
      PODBENCH_ASSIGN_OR_RETURN(projection::ComposedRun c,
                                projection::ComposeRun(m.pricing, m.labels, m.plan.convergence.Draw(seed).label));
      mean += c.split;
      ++n;
      const double ttt = run["ttt_emulated_min"].get<double>() * 60;
      if (std::abs(c.split.total_s() - ttt) > 1e-6 * ttt) ++mismatched;
    }
    nlohmann::json j;
    auto parts = [](const projection::ScoreSplit& x) {
      const double t = x.total_s();
      auto pct = [&](double v) { return t > 0 ? 100 * v / t : 0.0; };
      return nlohmann::json{{"startup_s", x.startup_s},       {"training_s", x.training_s},
                            {"evaluation_s", x.evaluation_s}, {"tail_s", x.tail_s},
                            {"total_s", t},                   {"startup_pct", pct(x.startup_s)},
                            {"training_pct", pct(x.training_s)}, {"evaluation_pct", pct(x.evaluation_s)},
                            {"tail_pct", pct(x.tail_s)}};
    };
    if (n > 0) {
      j["predicted"] = parts(mean.Scaled(1.0 / n));
      j["predicted"]["runs"] = n;
      // Each run's log is the same composition: a mismatch is a bug.
      j["predicted"]["runs_not_matching_their_log"] = mismatched;
    }
    // A split's shares as the text table prints them: start, train, eval, tail, non-train.
    auto shares = [](const nlohmann::json& x) {
      return fmt::format(" {:>6.1f}% {:>6.1f}% {:>6.1f}% {:>6.1f}% {:>6.1f}%", x["startup_pct"].get<double>(),
                         x["training_pct"].get<double>(), x["evaluation_pct"].get<double>(),
                         x["tail_pct"].get<double>(), 100 - x["training_pct"].get<double>());
    };
    std::string row = fmt::format("{:<12} {:<12}", w, slice);
    if (n > 0) row += shares(j["predicted"]);
    if (pl != nullptr && pl->split) {
      const rules::ScoreSplitMedians& l = *pl->split;
      projection::ScoreSplit logs;
      logs.startup_s = l.startup_s;
      logs.training_s = l.training_s;
      logs.evaluation_s = l.eval_s;
      logs.tail_s = l.tail_s;
      j["logs"] = parts(logs);
      j["logs"]["runs"] = l.runs.size();
      j["logs"]["eval_separated"] = l.runs.empty() ? true : l.runs.front().eval_separated;
      j["logs"]["method"] = l.runs.empty() ? "" : l.runs.front().method;
      row += "  " + shares(j["logs"]);
      if (!l.runs.empty() && methods_.count(w) == 0) methods_[w] = l.runs.front().method;
      if (std::any_of(l.runs.begin(), l.runs.end(),
                      [](const rules::ScoreSplit& r) { return !r.eval_windows_s.empty(); })) {
        // The decode's share of a window is not read from the logs: the
        // column beside them is podbench's device evaluation (the decode).
        j["logs"]["first_eval_window_s"] = l.first_eval_window_s;
        j["logs"]["later_eval_window_s"] = l.later_eval_window_s;
        windows_ += fmt::format("  {:<12} {:<12} {:>9.2f} {:>9.2f} {:>12}\n", w, slice, l.first_eval_window_s,
                                l.later_eval_window_s,
                                m.pricing.eval ? fmt::format("{:.2f}", m.pricing.eval->device_s) : "-");
      }
    } else if (pl != nullptr) {
      j["logs"] = nullptr;
      j["logs_error"] = pl->split_error;
      row += "   (logs: " + pl->split_error + ")";
    }
    composition_ += row + "\n";
    return j;
  }

  const ReproduceOptions& opt_;
  CliContext& ctx_;
  const bool text_;
  std::vector<Target> plan_;
  fs::path published_, out_dir_, log_dir_;
  bool have_published_ = false;
  std::string db_;
  std::unique_ptr<results::ResultsStore> store_;
  std::map<std::string, std::vector<int64_t>> ids_;     // workload -> run ids made here
  std::map<std::string, std::string> benchmark_of_;     // workload -> v0.6 benchmark name
  std::map<std::pair<std::string, std::string>, nlohmann::json> set_json_;  // (workload, slice)
  bool any_failed_ = false;
  std::string table_, summaries_, failing_logs_, composition_, windows_;
  std::map<std::string, std::string> methods_;  // workload -> how its logs' split was read
  std::shared_ptr<const topology::SystemSpec> system_;
  std::vector<const workloads::ClaimSpec*> claims_;
  std::vector<results::ClaimRow> claim_rows_;
  nlohmann::json claims_json_ = nlohmann::json::array();
  nlohmann::json workloads_json_;
  results::Fidelity overall_;
};

void Execute(const ReproduceOptions& opt, CliContext& ctx) {
  const auto start = std::chrono::steady_clock::now();
  Reproduction r(opt, ctx);
  if (Status st = r.Prepare(); !st.ok()) return Fail(ctx, "reproduce", st);
  if (Status st = r.RunSets(); !st.ok()) return Fail(ctx, "reproduce", st);
  if (Status st = r.Fidelity(); !st.ok()) return Fail(ctx, "reproduce", st);
  if (Status st = r.TestClaims(); !st.ok()) return Fail(ctx, "reproduce", st);
  if (Status st = r.Finish(start); !st.ok()) return Fail(ctx, "reproduce", st);
  ctx.exit_code = r.any_failed() ? kExitVerdict : kExitOk;
}

}  // namespace

void AddReproduceCommand(Command app, CliContext& ctx) {
  Command sub = app.AddSubcommand(
      "reproduce",
      "Reproduce Google's MLPerf v0.6 results: every workload with a google-v0.6 preset, projected, "
      "fidelity table, HTML report");
  auto opt = std::make_shared<ReproduceOptions>();
  sub.Add("--workloads", opt->workloads,
          "Comma-separated workloads (default: every one with a google-v0.6 preset)")
      .NameList();
  sub.Add("--slices", opt->slices,
          "Comma-separated slices, e.g. tpu-v3-32,tpu-v3-2048 (default: every slice the "
          "preset has values for)")
      .NameList();
  sub.Add("--db", opt->db, "Results database (default: OUT/podbench.db)");
  sub.Add("--out", opt->out,
          "Folder for the logs, the database, reproduce.json and report.html (default: reproduce)");
  sub.Add("--published", opt->published,
          std::string("Google's published v0.6 logs (an <org> folder with results/<slice>/<benchmark>/; "
                      "default: ") + kDefaultPublished + " when present)");
  sub.Add("--seed", opt->seed, "Base seed; run i of each set uses seed+i (default 1)");
  sub.Add("--claims", opt->claims,
          "The seed papers' claims to test by paired runs: all (default), none, projected (those "
          "whose two arms are projected runs: seconds, no training), or comma-separated claim ids "
          "(the chosen workloads' registrations declare them)")
      .NameList();
  AddFormatOption(sub, &opt->format);
  sub.Callback([opt, &ctx] { Execute(*opt, ctx); });
}

}  // namespace podbench::cli
