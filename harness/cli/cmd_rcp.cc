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
  return {{"name", r.name},         {"benchmark", r.benchmark},     {"bs", r.bs},
          {"mean", r.mean},         {"stdev", r.stdev},             {"max_speedup", r.max_speedup},
          {"min_epochs", r.min_epochs}};
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
  auto v = submission::CheckRcp(runs, ro,
                                submission::FileRcpLoader(opt.mlperf_logging, opt.usage, opt.ruleset, opt.custom_rcps));
  if (opt.format == OutputFormat::kJson) {
    nlohmann::json j;
    j["folder"] = opt.dir;
    j["verdict"] = v.pass ? "PASS" : "FAIL";
    j["message"] = v.message;
    j["official_crash"] = v.official_crash;
    j["benchmark"] = v.benchmark ? nlohmann::json(*v.benchmark) : nlohmann::json(nullptr);
    j["global_batch_size"] = v.bs ? nlohmann::json(*v.bs) : nlohmann::json(nullptr);
    j["runs"] = logs.size();
    j["epochs"] = v.epochs ? nlohmann::json(*v.epochs) : nlohmann::json(nullptr);
    j["submission_mean"] = v.submission_mean ? nlohmann::json(*v.submission_mean) : nlohmann::json(nullptr);
    j["rcp"] = v.record ? RecordJson(*v.record) : nlohmann::json(nullptr);
    j["norm_factor"] = v.norm_factor;
    ctx.out << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  } else {
    for (const auto& l : v.log) ctx.out << l << "\n";
    if (v.record) {
      const auto& r = *v.record;
      const std::string bs = std::floor(r.bs) == r.bs && std::fabs(r.bs) < 1e15
                                 ? std::to_string(static_cast<int64_t>(r.bs))
                                 : submission::PyRepr(r.bs);
      ctx.out << "INFO -  RCP record " << r.name << ": BS " << bs << ", mean "
              << submission::PyRepr(r.mean) << ", stdev " << submission::PyRepr(r.stdev) << ", max speedup "
              << submission::PyRepr(r.max_speedup) << ", min epochs " << submission::PyRepr(r.min_epochs) << "\n";
    }
    if (v.pass) {
      ctx.out << "INFO - " << v.message << ", RCP test PASSED\n";
    } else if (v.official_crash) {
      ctx.out << "ERROR - " << v.message << ", RCP test FAILED\n";
    } else {
      ctx.out << "ERROR - " << v.message
              << ", RCP test FAILED (--rcp-bypass lets it pass, as the package checker's --rcp_bypass does)\n";
    }
  }
  return v.pass ? kExitOk : kExitVerdict;
}

}  // namespace

void AddRcpCommand(CLI::App& app, CliContext& ctx) {
  auto* sub = app.add_subcommand(
      "rcp", "RCP check of one benchmark's results folder (mlperf_logging's rcp_checker; writes nothing there)");
  auto opt = std::make_shared<RcpCmdOptions>();
  sub->add_option("dir", opt->dir, "A results folder: results/<system>/<benchmark> with result_*.txt")->required();
  sub->add_option("--usage", opt->usage, "training or hpc")->check(CLI::IsMember({"training", "hpc"}));
  sub->add_option("--ruleset", opt->ruleset, "Rule-set version, e.g. 4.0.0 (default 6.0.0, as the official tool)");
  sub->add_option("--rcp-pass", opt->rcp_pass, "pruned (default) or full RCP set")
      ->check(CLI::IsMember({"pruned", "full"}));
  sub->add_option("--custom-rcps", opt->custom_rcps, "An RCP JSON file to use instead of the official one");
  sub->add_flag("--bert-train-samples", opt->bert_train_samples,
                "BERT: convergence in train_samples rather than epoch_num");
  sub->add_flag("--rcp-bypass", opt->bypass,
                "A failed RCP found/interpolation/missing check passes (the package checker's --rcp_bypass)");
  sub->add_option("--mlperf-logging", opt->mlperf_logging,
                  "The official mlperf_logging folder (holds rcp_checker/<usage>_<ruleset>/rcps_*.json)");
  AddFormatOption(sub, &opt->format);
  sub->callback([opt, &ctx] { ctx.exit_code = RunRcp(*opt, ctx); });
}

}  // namespace podbench::cli
