// podbench rcp: the RCP check of one benchmark's result folder, as
// mlperf_logging's rcp_checker does it (submission/rcp.h), without writing
// scaling.json into the folder.
#include <cmath>
#include <cstdio>
#include <memory>
#include <ostream>

#include <nlohmann/json.hpp>

#include "harness/cli/command.h"
#include "submission/pynum.h"
#include "submission/rcp.h"
#include "submission/summary.h"

namespace podbench::cli {
namespace {

namespace fs = std::filesystem;

struct RcpCmdOptions {
  std::string dir;
  std::string usage = "training";
  std::string ruleset = "6.0.0";
  std::string rcp_pass = "pruned";
  std::string custom_rcps;
  std::string mlperf_logging;
  bool bert_train_samples = false;
  bool bypass = false;
  OutputFormat format = OutputFormat::kText;
};

nlohmann::json RecordJson(const submission::RcpRecord& r) {
  nlohmann::json j{{"name", r.name},         {"benchmark", r.benchmark},     {"bs", r.bs},
                   {"mean", r.mean},         {"stdev", r.stdev},             {"max_speedup", r.max_speedup},
                   {"min_epochs", r.min_epochs}, {"epochs", r.epochs}};
  j["hyperparams"] = nlohmann::json::parse(r.hyperparams, nullptr, false);
  if (!r.interpolated_from.empty()) j["interpolated_from"] = r.interpolated_from;
  return j;
}

// A number as Python's repr prints it (the official tool's digits), a whole
// number without ".0".
std::string Num(double x) {
  return std::floor(x) == x && std::fabs(x) < 1e15 ? std::to_string(static_cast<int64_t>(x)) : submission::PyRepr(x);
}

std::string NumList(const std::vector<double>& xs) {
  std::string out;
  for (double x : xs) out += (out.empty() ? "" : ", ") + Num(x);
  return out;
}

// The check in podbench's words: one "name  value" line per fact, every
// number the official tool logs (at full precision), then the verdict line.
void PrintText(const RcpCmdOptions& opt, const std::vector<submission::ResultLog>& logs,
               const std::vector<submission::RunConvergence>& runs, const submission::RcpVerdict& v, std::ostream& out) {
  auto line = [&](const std::string& name, const std::string& value) {
    out << "  " << name << std::string(name.size() < 21 ? 21 - name.size() : 1, ' ') << value << "\n";
  };
  out << "RCP check of " << opt.dir << " (" << opt.usage << " " << opt.ruleset << ", " << opt.rcp_pass << " RCPs)\n";
  if (v.benchmark) line("benchmark", *v.benchmark);
  line("global batch size", v.bs && *v.bs != -1 ? Num(*v.bs) : "unknown (missing, or the logs disagree)");
  for (size_t i = 0; i < runs.size() && i < logs.size(); ++i) {
    line(i == 0 ? "runs (epochs)" : "", logs[i].path.filename().string() + "  " +
                                            (runs[i].converged ? Num(runs[i].epochs) : std::string("did not converge")));
  }
  if (v.submission_mean) line("submission mean", Num(*v.submission_mean) + "  (olympic mean of the runs)");
  if (v.record) {
    const auto& r = *v.record;
    std::string which = r.name + "  (batch size " + Num(r.bs);
    if (!r.interpolated_from.empty()) {
      which += ", interpolated between " + r.interpolated_from[0] + " and " + r.interpolated_from[1];
    }
    line("RCP", which + ")");
    if (!r.epochs.empty()) line("RCP runs (epochs)", std::to_string(r.epochs.size()) + ": " + NumList(r.epochs));
    if (r.hyperparams != "{}") line("RCP hyperparameters", r.hyperparams);
    line("RCP mean", Num(r.mean));
    line("RCP stdev", Num(r.stdev));
    line("max speedup", Num(r.max_speedup));
    line("min epochs", Num(r.min_epochs) + "  (RCP mean / max speedup: the least submission mean that passes)");
    if (v.submission_mean) {
      // The official comparison: pass when the submission mean >= RCP mean / max speedup.
      const double mean = *v.submission_mean;
      if (mean < r.mean / r.max_speedup) {
        line("score normalization", "none: the submission mean " + Num(mean) + " is below min epochs (faster than the RCP allows)");
      } else if (mean < r.mean) {
        line("score normalization", Num(r.mean) + " / " + Num(mean) + " = " + Num(v.norm_factor) +
                                        "  (faster than the RCP mean, within the max speedup)");
      } else {
        line("score normalization", "1  (not faster than the RCP mean)");
      }
    }
  }
  for (const auto& l : v.log) {
    if (l.rfind("WARNING -  ", 0) == 0) out << "  WARNING " << l.substr(11) << "\n";
    if (l.rfind("INFO -  bert_train_samples", 0) == 0) out << "  NOTE " << l.substr(8) << "\n";
  }
  out << (v.pass ? "PASS" : "FAIL") << "  " << opt.dir << "  (" << v.message;
  if (!v.pass && !v.official_crash) out << "; --rcp-bypass lets it pass, as the package checker's --rcp_bypass does";
  out << ")\n";
}

int RunRcp(const RcpCmdOptions& opt, CliContext& ctx) {
  std::error_code ec;
  if (!fs::is_directory(opt.dir, ec)) {
    ctx.err << "podbench rcp: " << opt.dir << " is not a folder\n";
    return kExitUsage;
  }
  if (opt.mlperf_logging.empty() && opt.custom_rcps.empty()) {
    ctx.err << "podbench rcp: give --mlperf-logging DIR (the official mlperf_logging folder, which holds "
               "rcp_checker/) or --custom-rcps FILE\n";
    return kExitUsage;
  }
  std::vector<std::string> problems;
  auto logs = submission::ReadResultLogs(opt.dir, int64_t{1} << 30, &problems);
  bool unreadable = false;
  for (const auto& p : problems) {
    ctx.err << "podbench rcp: " << p << "\n";
    unreadable |= p.rfind("ERROR", 0) == 0;
  }
  if (unreadable) return kExitUsage;
  std::vector<submission::RunConvergence> runs;
  for (const auto& l : logs) runs.push_back(submission::ReadRunConvergence(l.text, opt.ruleset, opt.bert_train_samples));
  submission::RcpOptions ro;
  ro.usage = opt.usage;
  ro.ruleset = opt.ruleset;
  ro.pass = opt.rcp_pass == "full" ? submission::RcpPass::kFull : submission::RcpPass::kPruned;
  ro.bert_train_samples = opt.bert_train_samples;
  ro.bypass = opt.bypass;
  // The official RCP files missing a benchmark is a verdict (as the official
  // checker's); the --custom-rcps file the user gave failing to load is bad
  // input, exit 2, naming it.
  Status custom_rcps_error;
  const submission::RcpLoader files =
      submission::FileRcpLoader(opt.mlperf_logging, opt.usage, opt.ruleset, opt.custom_rcps);
  auto v = submission::CheckRcp(runs, ro, [&](const std::string& benchmark) {
    Result<submission::RcpTable> table = files(benchmark);
    if (!table.ok() && !opt.custom_rcps.empty()) custom_rcps_error = table.status();
    return table;
  });
  if (!custom_rcps_error.ok()) {
    ctx.err << "podbench rcp: --custom-rcps " << custom_rcps_error.message() << "\n";
    return kExitUsage;
  }
  if (opt.format == OutputFormat::kJson) {
    nlohmann::json j;
    j["folder"] = opt.dir;
    j["verdict"] = v.pass ? "PASS" : "FAIL";
    j["message"] = v.message;
    j["official_crash"] = v.official_crash;
    j["rcp_pass"] = opt.rcp_pass;
    j["benchmark"] = v.benchmark ? nlohmann::json(*v.benchmark) : nlohmann::json(nullptr);
    j["global_batch_size"] = v.bs ? nlohmann::json(*v.bs) : nlohmann::json(nullptr);
    j["runs"] = logs.size();
    nlohmann::json run_epochs = nlohmann::json::array();
    for (size_t i = 0; i < runs.size() && i < logs.size(); ++i) {
      run_epochs.push_back({{"file", logs[i].path.filename().string()},
                            {"epochs", runs[i].converged ? nlohmann::json(runs[i].epochs) : nlohmann::json(nullptr)}});
    }
    j["run_epochs"] = run_epochs;
    j["epochs"] = v.epochs ? nlohmann::json(*v.epochs) : nlohmann::json(nullptr);
    j["submission_mean"] = v.submission_mean ? nlohmann::json(*v.submission_mean) : nlohmann::json(nullptr);
    j["rcp"] = v.record ? RecordJson(*v.record) : nlohmann::json(nullptr);
    j["norm_factor"] = v.norm_factor;
    nlohmann::json warnings = nlohmann::json::array();
    for (const auto& l : v.log) {
      if (l.rfind("WARNING -  ", 0) == 0) warnings.push_back(l.substr(11));
    }
    j["warnings"] = warnings;
    ctx.out << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  } else {
    PrintText(opt, logs, runs, v, ctx.out);
  }
  return v.pass ? kExitOk : kExitVerdict;
}

}  // namespace

void AddRcpCommand(Command app, CliContext& ctx) {
  Command sub = app.AddSubcommand(
      "rcp", "RCP check of one benchmark's results folder (mlperf_logging's rcp_checker; writes nothing there)");
  auto opt = std::make_shared<RcpCmdOptions>();
  sub.Add("dir", opt->dir, "A results folder: results/<system>/<benchmark> with result_*.txt").Required();
  sub.Add("--usage", opt->usage, "training or hpc").Choices({"training", "hpc"});
  sub.Add("--ruleset", opt->ruleset, "Rule-set version, e.g. 4.0.0 (default 6.0.0, as the official tool)");
  sub.Add("--rcp-pass", opt->rcp_pass, "pruned (default) or full RCP set")
      .Choices({"pruned", "full"});
  sub.Add("--custom-rcps", opt->custom_rcps, "An RCP JSON file to use instead of the official one");
  sub.AddFlag("--bert-train-samples", opt->bert_train_samples,
              "BERT: convergence in train_samples rather than epoch_num");
  sub.AddFlag("--rcp-bypass", opt->bypass,
              "A failed RCP found/interpolation/missing check passes (the package checker's --rcp_bypass)");
  sub.Add("--mlperf-logging", opt->mlperf_logging,
          "The official mlperf_logging folder (holds rcp_checker/<usage>_<ruleset>/rcps_*.json)");
  AddFormatOption(sub, &opt->format);
  sub.Callback([opt, &ctx] { ctx.exit_code = RunRcp(*opt, ctx); });
}

}  // namespace podbench::cli
