// podbench check: MLPerf compliance checking of logs.
#include <algorithm>
#include <atomic>
#include <filesystem>
#include <memory>
#include <ostream>
#include <thread>

#include <nlohmann/json.hpp>

#include "base/input_path.h"
#include "base/text.h"
#include "harness/cli/command.h"
#include "rules/checker.h"
#include "rules/mllog/reader.h"

namespace podbench::cli {
namespace {

namespace fs = std::filesystem;

struct CheckCmdOptions {
  std::string usage = "training";
  std::string ruleset = "0.6.0";
  std::string rules_dir;
  std::string config;
  bool werror = false;
  bool quiet = false;
  int jobs = 2;
  std::vector<std::string> paths;
  OutputFormat format = OutputFormat::kText;
  bool json_lines = false;  // --format jsonl: one log a line, no summary
};

// Log files named on the command line: files as given, folders searched
// recursively (sorted, so output order is stable). A path that is neither a
// regular file nor a folder, or a folder with no file in it, is an error
// naming it (ClassifyInputPath).
Status CollectLogs(const std::vector<std::string>& paths, std::vector<fs::path>* out) {
  for (const auto& p : paths) {
    PODBENCH_ASSIGN_OR_RETURN(const InputPathKind kind, ClassifyInputPath(p));
    std::error_code ec;
    if (kind == InputPathKind::kFolder) {
      std::vector<fs::path> found;
      for (auto it = fs::recursive_directory_iterator(p, ec); !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
        if (it->is_regular_file(ec)) found.push_back(it->path());
      }
      if (ec) return Status::IOError(p + ": " + ec.message());
      if (found.empty()) return Status::NotFound(p + ": no files in this folder or below it; nothing to check");
      std::sort(found.begin(), found.end());
      out->insert(out->end(), found.begin(), found.end());
    } else {
      out->push_back(p);
    }
  }
  return Status::Ok();
}

// "<log>:<line>: " for a message from one log line, else "".
std::string WhereInLog(const rules::CheckResult& r, const rules::CheckMessage& m) {
  return m.line > 0 ? r.log + ":" + std::to_string(m.line) + ": " : "";
}

void PrintText(const rules::CheckResult& r, bool quiet, std::ostream& out) {
  if (!quiet) {
    if (!r.printed.empty()) out << r.printed;
    // Errors grouped per key, then the messages not tied to a key; the log
    // line a message comes from first, the official wording after it.
    for (const auto& m : r.errors) {
      std::string label = m.key.empty() ? "(log)" : m.key;
      std::string text = m.text;
      size_t pos = 0;
      while ((pos = text.find('\n', pos)) != std::string::npos) {
        text.replace(pos, 1, "\n    ");
        pos += 5;
      }
      out << "  ERROR " << WhereInLog(r, m) << "[" << label << "] " << text << "\n";
    }
    for (const auto& m : r.warnings) out << "  WARNING " << WhereInLog(r, m) << "[" << m.key << "] " << m.text << "\n";
  }
  out << (r.pass ? "PASS" : "FAIL") << "  " << r.log;
  if (!r.pass) out << "  (" << Plural(static_cast<int64_t>(r.errors.size()), "error") << ")";
  out << "\n";
}

// One log's verdict as JSON: {"log", "verdict": "PASS" or "FAIL", "error_keys",
// "errors", "error_lines", "warning_keys"}; error_lines[i] is the 1-based log
// line errors[i] comes from, null when none.
nlohmann::json LogJson(const rules::CheckResult& r) {
  nlohmann::json j;
  j["log"] = r.log;
  j["verdict"] = r.pass ? "PASS" : "FAIL";
  j["error_keys"] = r.error_keys;
  nlohmann::json errors = nlohmann::json::array();
  nlohmann::json lines = nlohmann::json::array();
  for (const auto& m : r.errors) {
    errors.push_back(m.text);
    lines.push_back(m.line > 0 ? nlohmann::json(m.line) : nlohmann::json(nullptr));
  }
  j["errors"] = errors;
  j["error_lines"] = lines;
  j["warning_keys"] = r.warning_keys;
  return j;
}

// A log that could not be checked (unreadable): verdict "ERROR" and why.
nlohmann::json UncheckedLogJson(const fs::path& log, const Status& why) {
  return {{"log", log.string()},         {"verdict", "ERROR"},
          {"error_keys", nlohmann::json::array()}, {"errors", {why.message()}},
          {"error_lines", {nullptr}},          {"warning_keys", nlohmann::json::array()}};
}

std::string Dump(const nlohmann::json& j, int indent) {
  return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

int RunCheck(const CheckCmdOptions& opt, CliContext& ctx) {
  std::vector<fs::path> logs;
  Status st = CollectLogs(opt.paths, &logs);
  if (!st.ok()) {
    ctx.err << "podbench check: " << st.message() << "\n";
    return kExitUsage;
  }
  std::unique_ptr<rules::RuleSource> source;
  if (opt.rules_dir.empty()) {
    if (opt.usage != "training" || opt.ruleset != "0.6.0") {
      ctx.err << "podbench check: podbench's built-in rules are training 0.6.0; give --rules-dir for "
              << opt.usage << " " << opt.ruleset << "\n";
      return kExitUsage;
    }
    source = rules::EmbeddedSource();
  } else {
    std::error_code ec;
    if (!fs::is_directory(opt.rules_dir, ec)) {
      ctx.err << "podbench check: --rules-dir " << opt.rules_dir << " is not a folder\n";
      return kExitUsage;
    }
    source = rules::DirectorySource(opt.rules_dir);
  }
  rules::CheckOptions copt;
  copt.config = opt.config.empty() ? rules::DefaultConfig(opt.usage, opt.ruleset) : opt.config;
  copt.format = rules::FormatForRuleset(opt.ruleset);
  copt.werror = opt.werror;
  // The entry file must load: a missing or broken one is a usage error, not a log verdict.
  auto rule_set = std::make_shared<rules::RuleSet>(std::move(source));
  auto entry = rule_set->Load(copt.config);
  if (!entry.ok()) {
    ctx.err << "podbench check: entry rule file " << copt.config << ": " << entry.status().message() << "\n";
    return kExitUsage;
  }
  rules::Checker checker(rule_set, copt);
  // podbench's built-in v0.6 rules read either format, as `podbench run
  // --log-format` writes them: each log in the format it is written in. An
  // official rules folder reads its ruleset's format only, as the official
  // checker does.
  rules::CheckOptions copt_mllog = copt;
  copt_mllog.format = mllog::Format::kMllog;
  rules::Checker mllog_checker(rule_set, copt_mllog);
  const bool per_log_format = opt.rules_dir.empty();

  std::vector<Result<rules::CheckResult>> results(logs.size(), Status::Internal("not checked"));
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i = next++; i < logs.size(); i = next++) {
      auto format = per_log_format ? mllog::DetectFormat(logs[i], 1 << 16) : Result<mllog::Format>(copt.format);
      const bool mllog = format.ok() && *format == mllog::Format::kMllog;
      results[i] = (mllog ? mllog_checker : checker).CheckFile(logs[i]);
    }
  };
  int threads = std::max(1, std::min<int>(opt.jobs, static_cast<int>(logs.size())));
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();

  bool io_error = false, any_fail = false;
  size_t passed = 0, failed = 0, unchecked = 0;
  const bool json = opt.format == OutputFormat::kJson;
  nlohmann::json logs_json = nlohmann::json::array();
  for (size_t i = 0; i < logs.size(); ++i) {
    if (!results[i].ok()) {
      ctx.err << "podbench check: " << logs[i].string() << ": " << results[i].status().message() << "\n";
      io_error = true;
      ++unchecked;
      if (json) logs_json.push_back(UncheckedLogJson(logs[i], results[i].status()));
      if (json && opt.json_lines) ctx.out << Dump(logs_json.back(), -1) << "\n";
      continue;
    }
    const auto& r = *results[i];
    if (r.pass) {
      ++passed;
    } else {
      ++failed;
      any_fail = true;
    }
    if (!json) {
      PrintText(r, opt.quiet, ctx.out);
      continue;
    }
    logs_json.push_back(LogJson(r));
    if (opt.json_lines) ctx.out << Dump(logs_json.back(), -1) << "\n";
  }
  if (json && !opt.json_lines) {
    nlohmann::json doc;
    doc["logs"] = std::move(logs_json);
    doc["summary"] = {{"logs", logs.size()}, {"pass", passed}, {"fail", failed}, {"unchecked", unchecked}};
    ctx.out << Dump(doc, 2) << "\n";
  }
  if (!json && !opt.quiet && logs.size() > 1) {
    ctx.out << passed << " of " << logs.size() << " logs pass\n";
  }
  if (io_error) return kExitUsage;
  return any_fail ? kExitVerdict : kExitOk;
}

}  // namespace

void AddCheckCommand(Command app, CliContext& ctx) {
  Command sub = app.AddSubcommand("check", "Check MLPerf logs against MLPerf compliance rule files");
  auto opt = std::make_shared<CheckCmdOptions>();
  sub.Add("--usage", opt->usage, "training or hpc").Choices({"training", "hpc"});
  sub.Add("--ruleset", opt->ruleset, "Rule set version, e.g. 0.6.0, 0.7.0, 1.0.0 (default 0.6.0)");
  sub.Add("--rules-dir", opt->rules_dir,
          "Folder laid out like mlperf_logging/compliance_checker (default: podbench's built-in v0.6 rules)");
  sub.Add("--config", opt->config, "Entry rule file, relative to the rules folder (default: {usage}_{ruleset}/common.yaml)");
  sub.AddFlag("--werror", opt->werror, "Treat warnings as errors");
  sub.AddFlag("--quiet", opt->quiet, "Print only the verdicts");
  sub.Add("-j,--jobs", opt->jobs, "Logs checked in parallel (default 2)").Range(1, 64);
  sub.Add("logs", opt->paths, "Log files or folders (searched recursively)").Required();
  AddFormatOption(sub, &opt->format, false, &opt->json_lines);
  sub.Callback([opt, &ctx] { ctx.exit_code = RunCheck(*opt, ctx); });
}

}  // namespace podbench::cli
