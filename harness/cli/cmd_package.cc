// podbench package, sysdesc and repo: whole-submission checks (submission/).
#include <memory>
#include <ostream>

#include <nlohmann/json.hpp>

#include "base/input_path.h"
#include "base/text.h"
#include "harness/cli/command.h"
#include "submission/benchmark_meta.h"
#include "submission/package.h"
#include "submission/repo_check.h"
#include "submission/system_desc.h"
#include "submission/tree.h"

namespace podbench::cli {
namespace {

namespace fs = std::filesystem;
using submission::Severity;

std::string Dump(const nlohmann::json& j) { return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace); }

// ---- package ----

struct PackageCmdOptions {
  std::string folder;
  std::string usage = "training";
  std::string ruleset;
  std::string mlperf_logging;
  bool werror = false, quiet = false;
  bool rcp_bypass = false, rcp_bert_train_samples = false, seed_checker_bypass = false;
  int jobs = 2;
  OutputFormat format = OutputFormat::kText;
};

std::string Where(const submission::Finding& f) {
  std::string w = f.path.empty() ? "." : f.path;
  if (f.line > 0) w += ":" + std::to_string(f.line);
  return w;
}

nlohmann::json FindingJson(const submission::Finding& f) {
  nlohmann::json j{{"check", f.check}, {"path", f.path}, {"message", f.message}};
  if (f.line > 0) j["line"] = f.line;
  return j;
}

void PrintPackageText(const submission::PackageReport& r, bool quiet, std::ostream& out) {
  if (!quiet) {
    for (const auto& f : r.findings) {
      out << (f.severity == Severity::kError ? "  ERROR   " : "  WARNING ") << Where(f) << ": ";
      std::string text = f.message;
      for (size_t pos = 0; (pos = text.find('\n', pos)) != std::string::npos; pos += 5) text.replace(pos, 1, "\n    ");
      out << text << "\n";
    }
    int sys_fail = 0;
    for (const auto& s : r.systems) sys_fail += s.valid ? 0 : 1;
    int rcp_unchecked = 0, rcp_fail = 0, seed_fail = 0;
    for (const auto& b : r.benchmarks) {
      rcp_unchecked += b.rcp == submission::StepState::kNotChecked ? 1 : 0;
      rcp_fail += b.rcp == submission::StepState::kFail ? 1 : 0;
      seed_fail += b.seeds == submission::StepState::kFail ? 1 : 0;
    }
    out << "systems: " << r.systems.size() << " checked, " << sys_fail << " failing; benchmark folders: "
        << r.benchmarks.size() << "; logs: " << r.logs_checked << " checked, " << r.logs_failing
        << " failing; seeds: " << Plural(seed_fail, "folder") << " failing; RCP: " << Plural(rcp_fail, "folder")
        << " failing";
    if (rcp_unchecked > 0) out << ", " << rcp_unchecked << " not checked";
    out << "\n";
  }
  // A pass with RCP unchecked says so on the verdict line: it is not the
  // official verdict until RCP has been checked.
  int rcp_unchecked = 0;
  for (const auto& b : r.benchmarks) rcp_unchecked += b.rcp == submission::StepState::kNotChecked ? 1 : 0;
  out << (r.pass() ? "PASS" : "FAIL") << "  " << r.root << "  (" << r.usage << " " << r.ruleset << ": "
      << Plural(r.errors(), "error") << ", " << Plural(r.warnings(), "warning");
  if (rcp_unchecked > 0) out << "; RCP not checked for " << Plural(rcp_unchecked, "folder");
  out << ")\n";
}

nlohmann::json PackageJson(const submission::PackageReport& r) {
  nlohmann::json j;
  j["tree"] = r.root;
  j["usage"] = r.usage;
  j["ruleset"] = r.ruleset;
  j["verdict"] = r.pass() ? "PASS" : "FAIL";
  nlohmann::json errors = nlohmann::json::array(), warnings = nlohmann::json::array();
  for (const auto& f : r.findings) (f.severity == Severity::kError ? errors : warnings).push_back(FindingJson(f));
  j["errors"] = errors;
  j["warnings"] = warnings;
  nlohmann::json systems = nlohmann::json::array();
  for (const auto& s : r.systems) {
    systems.push_back({{"file", s.file}, {"system_name", s.system_name}, {"verdict", s.valid ? "PASS" : "FAIL"},
                       {"division", s.division}, {"errors", s.errors}});
  }
  j["systems"] = systems;
  nlohmann::json benchmarks = nlohmann::json::array();
  for (const auto& b : r.benchmarks) {
    nlohmann::json bj{{"path", b.path},
                      {"system", b.system},
                      {"benchmark", b.benchmark},
                      {"known", b.known},
                      {"division", b.closed ? "closed" : "open"},
                      {"result_files", b.result_files},
                      {"expected_result_files", b.expected_result_files ? nlohmann::json(*b.expected_result_files) : nlohmann::json()},
                      {"failing_logs", b.failing_logs},
                      {"allowed_failing_logs", b.allowed_failing_logs},
                      {"counts", submission::StepStateName(b.counts)},
                      {"compliance", submission::StepStateName(b.compliance)},
                      {"seeds", submission::StepStateName(b.seeds)},
                      {"rcp", submission::StepStateName(b.rcp)},
                      {"rcp_message", b.rcp_message}};
    if (b.rcp_scaling_factor) bj["rcp_scaling_factor"] = *b.rcp_scaling_factor;
    benchmarks.push_back(std::move(bj));
  }
  j["benchmarks"] = benchmarks;
  int rcp_unchecked = 0;
  for (const auto& b : r.benchmarks) rcp_unchecked += b.rcp == submission::StepState::kNotChecked ? 1 : 0;
  j["summary"] = {{"errors", r.errors()},       {"warnings", r.warnings()},         {"logs", r.logs_checked},
                  {"failing_logs", r.logs_failing}, {"rcp_not_checked", rcp_unchecked}};
  return j;
}

int RunPackage(const PackageCmdOptions& opt, CliContext& ctx) {
  // The RCP files are needed where the package check runs the RCP check (1.0.0 on).
  auto version = submission::ParseRuleset(opt.ruleset);
  const unsigned needs = submission::kComplianceRules |
                         (version.ok() && submission::RunsSeedAndRcpChecks(*version) ? submission::kRcpData : 0u);
  auto logging = submission::LoadMlperfLogging(opt.mlperf_logging, needs);
  if (!logging.ok()) {
    ctx.err << "podbench package: " << logging.status().message() << "\n";
    return kExitUsage;
  }
  submission::PackageOptions popt;
  popt.usage = opt.usage;
  popt.ruleset = opt.ruleset;
  popt.logging = *logging;
  popt.werror = opt.werror;
  popt.rcp_bypass = opt.rcp_bypass;
  popt.rcp_bert_train_samples = opt.rcp_bert_train_samples;
  popt.seed_checker_bypass = opt.seed_checker_bypass;
  popt.jobs = opt.jobs;
  auto rcp = submission::MakeRcpCheck();
  popt.rcp = rcp.get();
  auto report = submission::CheckPackage(opt.folder, popt);
  if (!report.ok()) {
    ctx.err << "podbench package: " << report.status().message() << "\n";
    return kExitUsage;
  }
  if (opt.format == OutputFormat::kJson) {
    ctx.out << Dump(PackageJson(*report)) << "\n";
  } else {
    PrintPackageText(*report, opt.quiet, ctx.out);
  }
  return report->pass() ? kExitOk : kExitVerdict;
}

// ---- sysdesc ----

struct SysdescCmdOptions {
  std::vector<std::string> files;
  std::string usage = "training";
  std::string ruleset;
  OutputFormat format = OutputFormat::kText;
};

int RunSysdesc(const SysdescCmdOptions& opt, CliContext& ctx) {
  if (auto v = submission::ParseRuleset(opt.ruleset); !v.ok()) {
    ctx.err << "podbench sysdesc: --ruleset: " << v.status().message() << "\n";
    return kExitUsage;
  }
  bool any_fail = false, io_error = false;
  nlohmann::json docs = nlohmann::json::array();
  for (const auto& file : opt.files) {
    // One file, read as the tree walk reads: no links out, bounded size.
    fs::path p(file);
    Result<InputPathKind> kind = ClassifyInputPath(p);
    if (kind.ok() && *kind == InputPathKind::kFolder) {
      kind = Status::InvalidArgument(file + ": a folder; give system description files (systems/<system>.json)");
    }
    if (!kind.ok()) {
      ctx.err << "podbench sysdesc: " << kind.status().message() << "\n";
      io_error = true;
      if (opt.format == OutputFormat::kJson) {
        docs.push_back({{"file", file}, {"verdict", "ERROR"}, {"errors", {kind.status().message()}}});
      }
      continue;
    }
    auto tree = submission::WalkTree(p.has_parent_path() ? p.parent_path() : fs::path("."), submission::Usage::kTraining,
                                     submission::WalkLimits{0, 100000, int64_t{1} << 30});
    Result<std::string> text = tree.ok() ? submission::ReadTreeFile(*tree, p.filename().string(), 16 << 20)
                                         : Result<std::string>(tree.status());
    if (!text.ok()) {
      ctx.err << "podbench sysdesc: " << file << ": " << text.status().message() << "\n";
      io_error = true;
      if (opt.format == OutputFormat::kJson) {
        docs.push_back({{"file", file}, {"verdict", "ERROR"}, {"errors", {text.status().message()}}});
      }
      continue;
    }
    auto r = submission::CheckSystemDesc(*text, file, opt.usage, opt.ruleset);
    any_fail = any_fail || !r.valid;
    if (opt.format == OutputFormat::kJson) {
      docs.push_back({{"file", file}, {"system_name", r.system_name}, {"verdict", r.valid ? "PASS" : "FAIL"},
                      {"division", r.division}, {"errors", r.errors}});
      if (r.line > 0) docs.back()["line"] = r.line;
      continue;
    }
    for (const auto& e : r.errors) ctx.out << "  ERROR " << (r.line > 0 ? file + ":" + std::to_string(r.line) + ": " : "") << e << "\n";
    ctx.out << (r.valid ? "PASS" : "FAIL") << "  " << file << "  (" << submission::SystemDescSummaryLine(r) << ")\n";
  }
  if (opt.format == OutputFormat::kJson) ctx.out << Dump({{"files", docs}}) << "\n";
  if (io_error) return kExitUsage;
  return any_fail ? kExitVerdict : kExitOk;
}

// ---- repo ----

struct RepoCmdOptions {
  std::string folder;
  OutputFormat format = OutputFormat::kText;
};

int RunRepo(const RepoCmdOptions& opt, CliContext& ctx) {
  auto tree = submission::WalkTree(opt.folder, submission::Usage::kTraining);
  if (!tree.ok()) {
    ctx.err << "podbench repo: " << tree.status().message() << "\n";
    return kExitUsage;
  }
  auto r = submission::CheckRepository(*tree);
  if (opt.format == OutputFormat::kJson) {
    nlohmann::json links = nlohmann::json::array();
    for (const auto& p : r.link_problems) links.push_back({{"path", p.path}, {"message", p.message}});
    ctx.out << Dump({{"tree", opt.folder}, {"verdict", r.pass ? "PASS" : "FAIL"}, {"git_unfriendly_names", r.bad_names},
                     {"files_over_50MiB", r.large_files}, {"links", links}})
            << "\n";
  } else {
    for (const auto& n : r.bad_names) ctx.out << "  ERROR   " << n << ": git-unfriendly name (starts with '.' or holds a space)\n";
    for (const auto& n : r.large_files) ctx.out << "  ERROR   " << n << ": larger than 50 MiB\n";
    for (const auto& p : r.link_problems) ctx.out << "  ERROR   " << submission::FormatProblem(p) << "\n";
    ctx.out << (r.pass ? "PASS" : "FAIL") << "  " << opt.folder << "\n";
  }
  return r.pass ? kExitOk : kExitVerdict;
}

}  // namespace

void AddPackageCommand(Command app, CliContext& ctx) {
  Command sub = app.AddSubcommand("package", "Check a submitter's whole MLPerf submission tree, as the official package checker does");
  auto opt = std::make_shared<PackageCmdOptions>();
  sub.Add("folder", opt->folder, "The submitter's folder (systems/, results/, benchmarks/)").Required();
  sub.Add("--usage", opt->usage, "training or hpc (default training)").Choices({"training", "hpc"});
  sub.Add("--ruleset", opt->ruleset, "Rule set version, e.g. 1.0.0, 4.0.0").Required();
  sub.Add("--mlperf-logging", opt->mlperf_logging,
          "The mlperf_logging folder of an official checkout (holding compliance_checker/, rcp_checker/, result_summarizer/)")
      .Required();
  sub.AddFlag("--werror", opt->werror, "Treat compliance warnings as errors");
  sub.AddFlag("--quiet", opt->quiet, "Print only the verdict");
  sub.AddFlag("--rcp-bypass", opt->rcp_bypass, "Bypass failed RCP checks (as the official --rcp-bypass)");
  sub.AddFlag("--rcp-bert-train-samples", opt->rcp_bert_train_samples, "BERT's RCP reads train_samples, not epoch_num");
  sub.AddFlag("--seed-checker-bypass", opt->seed_checker_bypass, "Skip the seed checker");
  sub.Add("-j,--jobs", opt->jobs, "Logs checked in parallel (default 2)").Range(1, 64);
  AddFormatOption(sub, &opt->format);
  sub.Callback([opt, &ctx] { ctx.exit_code = RunPackage(*opt, ctx); });
}

void AddSysdescCommand(Command app, CliContext& ctx) {
  Command sub = app.AddSubcommand("sysdesc", "Check MLPerf system description files (systems/<system>.json)");
  auto opt = std::make_shared<SysdescCmdOptions>();
  sub.Add("files", opt->files, "System description JSON files").Required();
  sub.Add("--usage", opt->usage, "training or hpc (default training)").Choices({"training", "hpc"});
  sub.Add("--ruleset", opt->ruleset, "Rule set version, e.g. 1.0.0, 4.0.0").Required();
  AddFormatOption(sub, &opt->format);
  sub.Callback([opt, &ctx] { ctx.exit_code = RunSysdesc(*opt, ctx); });
}

void AddRepoCommand(Command app, CliContext& ctx) {
  Command sub = app.AddSubcommand("repo", "Check a submission tree for what git handles badly, as the official repo checker does");
  auto opt = std::make_shared<RepoCmdOptions>();
  sub.Add("folder", opt->folder, "The submitter's folder").Required();
  AddFormatOption(sub, &opt->format);
  sub.Callback([opt, &ctx] { ctx.exit_code = RunRepo(*opt, ctx); });
}

}  // namespace podbench::cli
