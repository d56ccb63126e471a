#include "submission/package.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <charconv>
#include <map>
#include <memory>
#include <set>
#include <thread>
#include <tuple>

#include "base/text.h"
#include "rules/checker.h"
#include "rules/mllog/reader.h"
#include "submission/benchmark_meta.h"

namespace podbench::submission {
namespace {

namespace fs = std::filesystem;

// What a system description says, as far as the package check needs it.
struct SystemInfo {
  bool found = false;
  bool closed = true;  // unknown division: treated as closed, so seeds and RCP still run
};

// A package_checker_params file's switches. The official checker compares
// each line as readlines() returns it (newline included) with "rcp-bypass" and
// "seed-checker-bypass", so only a last line without a newline counts; kept.
struct Params {
  bool present = false, rcp_bypass = false, seed_bypass = false;
};

Params ReadParams(const Tree& tree, const std::string& rel, std::vector<Finding>* findings) {
  Params p;
  auto it = std::find_if(tree.files.begin(), tree.files.end(), [&](const Entry& e) { return e.path == rel; });
  if (it == tree.files.end()) return p;
  p.present = true;
  auto text = ReadTreeFile(tree, rel, 1 << 20);
  if (!text.ok()) {
    findings->push_back({Severity::kError, "files", rel, 0, text.status().message()});
    return p;
  }
  size_t last_nl = text->rfind('\n');
  std::string last = last_nl == std::string::npos ? *text : text->substr(last_nl + 1);
  p.rcp_bypass = last == "rcp-bypass";
  p.seed_bypass = last == "seed-checker-bypass";
  return p;
}

// Python's int() of a logged seed value; false when it would raise.
bool SeedAsInt(const mllog::Value& v, int64_t* out) {
  if (v.is_int()) { *out = v.as_int(); return true; }
  if (v.is_bool()) { *out = v.as_bool() ? 1 : 0; return true; }
  if (v.is_float()) {
    double d = v.as_float();
    if (!std::isfinite(d)) return false;
    *out = static_cast<int64_t>(d);
    return true;
  }
  if (v.is_string()) {
    std::string s = v.as_string();
    size_t b = s.find_first_not_of(" \t\n\r\f\v"), e = s.find_last_not_of(" \t\n\r\f\v");
    if (b == std::string::npos) return false;
    s = s.substr(b, e - b + 1);
    const char* first = s.data();
    if (*first == '+') ++first;
    auto [ptr, ec] = std::from_chars(first, s.data() + s.size(), *out);
    return ec == std::errc() && ptr == s.data() + s.size();
  }
  return false;
}

std::string MetaString(const mllog::Value* v) {
  if (v == nullptr) return "";
  return v->is_string() ? v->as_string() : v->ToJson();
}

// One seed checker error: the result file it concerns, the 1-based line (0: none).
struct SeedError {
  std::string path;
  int64_t line = 0;
  std::string message;
};

// The seed checker's rules over one benchmark folder's result files.
std::vector<SeedError> CheckSeeds(const Tree& tree, const std::vector<Entry>& results, mllog::Format format) {
  std::vector<SeedError> errors;
  std::map<std::tuple<std::string, std::string, int64_t>, std::string> seen;  // (file, lineno, seed) -> result file
  for (const auto& e : results) {
    std::vector<mllog::LineError> parse_errors;
    auto records = mllog::ReadLog(tree.root / e.path, format, &parse_errors);
    if (!records.ok()) {
      errors.push_back({e.path, 0, "Error found when querying seeds from " + e.path + ": " + records.status().message()});
      continue;
    }
    if (!parse_errors.empty()) {
      errors.push_back({e.path, parse_errors[0].file_line,
                        "Error found when querying seeds from " + e.path + ": " +
                            Plural(static_cast<int64_t>(parse_errors.size()), "log line") +
                            " had parsing errors (first: line " + std::to_string(parse_errors[0].file_line) + ": " +
                            parse_errors[0].message + ")"});
      continue;
    }
    std::vector<std::tuple<std::string, std::string, int64_t>> seeds;
    std::string bad;
    int64_t bad_line = 0;
    // The line of each seed, for a duplicate's message.
    std::vector<int64_t> seed_lines;
    for (const auto& r : *records) {
      if (r.key != "seed") continue;
      const mllog::Value& meta = r.metadata();
      const mllog::Value* file = meta.is_dict() ? meta.Find("file") : nullptr;
      const mllog::Value* lineno = meta.is_dict() ? meta.Find("lineno") : nullptr;
      int64_t seed = 0;
      if (file == nullptr || lineno == nullptr) {
        bad = "line " + std::to_string(r.file_line) + ": the seed's metadata has no " + (file ? "lineno" : "file");
        bad_line = r.file_line;
        break;
      }
      if (!SeedAsInt(r.payload(), &seed)) {
        bad = "line " + std::to_string(r.file_line) + ": seed " + r.payload().ToJson() + " is not an integer";
        bad_line = r.file_line;
        break;
      }
      seeds.emplace_back(MetaString(file), MetaString(lineno), seed);
      seed_lines.push_back(r.file_line);
    }
    if (!bad.empty()) {
      errors.push_back({e.path, bad_line, "Error found when querying seeds from " + e.path + ": " + bad});
      continue;
    }
    if (seeds.empty()) errors.push_back({e.path, 0, "Result file " + e.path + " logs no seed."});
    for (size_t i = 0; i < seeds.size(); ++i) {
      const auto& s = seeds[i];
      auto [it, inserted] = seen.emplace(s, e.path);
      if (!inserted) {
        errors.push_back({e.path, seed_lines[i],
                          "Result file " + e.path + " logs seed " + std::to_string(std::get<2>(s)) + " on " +
                              std::get<0>(s) + ":" + std::get<1>(s) + ". However, result file " + it->second +
                              " already logs the same seed on the same line."});
      }
    }
  }
  return errors;
}

std::string BenchmarkFolderOf(const std::string& path) {
  return path.substr(0, path.rfind('/'));
}

}  // namespace

const char* StepStateName(StepState s) {
  switch (s) {
    case StepState::kPass: return "pass";
    case StepState::kFail: return "fail";
    case StepState::kNotChecked: return "not checked";
    case StepState::kSkipped: return "skipped";
  }
  return "?";
}

bool PackageReport::pass() const { return errors() == 0; }

int PackageReport::errors() const {
  return static_cast<int>(std::count_if(findings.begin(), findings.end(),
                                        [](const Finding& f) { return f.severity == Severity::kError; }));
}

int PackageReport::warnings() const { return static_cast<int>(findings.size()) - errors(); }

Result<PackageReport> CheckPackage(const fs::path& folder, const PackageOptions& options) {
  PODBENCH_ASSIGN_OR_RETURN(RulesetVersion version, ParseRuleset(options.ruleset));
  PODBENCH_ASSIGN_OR_RETURN(std::vector<std::string> allowed, AllowedBenchmarks(options.usage, options.ruleset));
  PODBENCH_RETURN_IF_ERROR(CheckRulesetParts(options.logging, options.usage, options.ruleset, kComplianceRules));
  const Usage usage = options.usage == "hpc" ? Usage::kHpc : Usage::kTraining;
  PODBENCH_ASSIGN_OR_RETURN(Tree tree, WalkTree(folder, usage, options.limits));

  PackageReport rep;
  rep.root = folder.string();
  rep.usage = options.usage;
  rep.ruleset = options.ruleset;
  auto& findings = rep.findings;
  auto add = [&](Severity s, const char* check, std::string path, std::string msg, int64_t line = 0) {
    findings.push_back({s, check, std::move(path), line, std::move(msg)});
  };

  for (const auto& p : tree.problems) add(p.severity, "tree", p.path, p.message);
  if (!tree.has_results_dir) add(Severity::kError, "results", "results", "no results/ folder: nothing to check");

  // System descriptions.
  const bool full_sysdesc = version.AtLeast(1, 0);
  std::map<std::string, SystemInfo> systems;
  for (const auto& e : tree.system_files) {
    auto text = ReadTreeFile(tree, e.path, 16 << 20);
    SystemDescResult r;
    if (!text.ok()) {
      r.file = e.path;
      r.errors.push_back(text.status().message());
    } else {
      r = CheckSystemDesc(*text, e.path, options.usage, options.ruleset);
    }
    std::string name = e.path.substr(8, e.path.size() - 8 - 5);  // systems/<name>.json
    systems[name] = {true, r.division != "open"};  // anything but "open" is checked as closed
    if (full_sysdesc) {
      if (!r.valid) add(Severity::kError, "systems", e.path, SystemDescSummaryLine(r), r.line);
    } else {
      // Before 1.0.0 the official checker reads only `division`; podbench
      // still reports what stops it from being read.
      for (const auto& why : r.errors) {
        if (why.rfind("not ", 0) == 0 || why.find("division") != std::string::npos) {
          add(Severity::kError, "systems", e.path, why, r.line);
        }
      }
    }
    rep.systems.push_back(std::move(r));
  }
  for (const auto& other : tree.systems_other) {
    add(Severity::kWarning, "files", other, "not a system description (systems/ holds <system>.json files); ignored");
  }

  // Compliance of every result file of every known benchmark, in parallel.
  rules::CheckOptions copt;
  copt.config = rules::DefaultConfig(options.usage, options.ruleset);
  copt.format = rules::FormatForRuleset(options.ruleset);
  copt.werror = options.werror;
  auto rule_set = std::make_shared<rules::RuleSet>(rules::DirectorySource(options.logging.compliance_checker));
  if (auto entry = rule_set->Load(copt.config); !entry.ok()) {
    return entry.status().WithContext("compliance rules " + copt.config);
  }
  rules::Checker checker(rule_set, copt);
  struct LogJob {
    const Entry* entry;
    Result<rules::CheckResult> result = Status::Internal("not checked");
  };
  std::vector<LogJob> jobs;
  std::set<std::string> known(allowed.begin(), allowed.end());
  for (const auto& b : tree.benchmark_dirs) {
    if (!known.count(b.benchmark)) continue;
    for (const auto& e : b.result_files) jobs.push_back({&e});
  }
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i = next++; i < jobs.size(); i = next++) {
      const Entry& e = *jobs[i].entry;
      if (e.bytes > options.limits.max_file_bytes) {
        jobs[i].result = Status::FailedPrecondition(std::to_string(e.bytes) + " bytes, larger than the bound of " +
                                                    std::to_string(options.limits.max_file_bytes) + " bytes; not read");
        continue;
      }
      fs::path path = tree.root / e.path;
      if (e.symlink) {
        std::error_code ec;
        path = fs::canonical(path, ec);
        if (ec) {
          jobs[i].result = Status::IOError(ec.message());
          continue;
        }
      }
      jobs[i].result = checker.CheckFile(path);
    }
  };
  const int threads = std::max(1, std::min<int>(options.jobs, static_cast<int>(jobs.size())));
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  std::map<std::string, std::vector<const LogJob*>> by_folder;
  for (const auto& j : jobs) by_folder[BenchmarkFolderOf(j.entry->path)].push_back(&j);

  const Params global_params{};
  std::map<std::string, Params> system_params;
  for (const auto& b : tree.benchmark_dirs) {
    BenchmarkReport br;
    br.path = b.path;
    br.system = b.system;
    br.benchmark = b.benchmark;
    br.known = known.count(b.benchmark) > 0;
    br.result_files = static_cast<int>(b.result_files.size());
    br.allowed_failing_logs = AllowedFailingLogs(b.benchmark);

    const std::string system_rel = "results/" + b.system;
    if (!system_params.count(b.system)) {
      system_params[b.system] = ReadParams(tree, system_rel + "/package_checker_params", &findings);
    }
    const Params& sys_params = system_params[b.system];
    auto sys = systems.find(b.system);
    if (sys == systems.end()) {
      add(Severity::kError, "systems", b.path,
          "no system description systems/" + b.system + ".json for this system (the division is unknown; checked as closed)");
      systems[b.system] = {false, true};
      sys = systems.find(b.system);
    }
    br.closed = sys->second.closed;

    if (!br.known) {
      add(Severity::kWarning, "results", b.path,
          "Skipping benchmark: " + b.benchmark + " (not a benchmark of " + options.usage + " " + options.ruleset +
              "; its results are not checked)");
      rep.benchmarks.push_back(std::move(br));
      continue;
    }
    const Params params = ReadParams(tree, b.path + "/package_checker_params", &findings);

    // Result-file count.
    br.expected_result_files = ResultFileCount(options.usage, b.benchmark);
    if (!br.expected_result_files) {
      br.counts = StepState::kFail;
      add(Severity::kError, "results", b.path,
          "no run count is known for benchmark " + b.benchmark + " (" + options.usage + "); cannot check the number of result files");
    } else if (b.scaling == "weak") {
      br.counts = br.result_files >= *br.expected_result_files ? StepState::kPass : StepState::kFail;
      if (br.counts == StepState::kFail) {
        add(Severity::kError, "results", b.path,
            "Expected at least " + std::to_string(*br.expected_result_files) + " runs, but detected " +
                std::to_string(br.result_files) + " runs.");
      }
    } else {
      br.counts = br.result_files == *br.expected_result_files ? StepState::kPass : StepState::kFail;
      if (br.counts == StepState::kFail) {
        add(Severity::kError, "results", b.path,
            "Incorrect number of files in dir, or wrong file names in directory " + b.path + ", found " +
                std::to_string(br.result_files) + ", expected " + std::to_string(*br.expected_result_files));
      }
    }
    // Names: what the official glob '*' sees besides result_*.txt (hidden names excluded).
    int visible_other = 0;
    for (const auto& o : b.other_files) {
      std::string base = o.path.substr(o.path.rfind('/') + 1);
      if (base[0] != '.') ++visible_other;
    }
    for (const auto& d : b.subdirs) {
      std::string base = d.substr(d.rfind('/') + 1);
      if (base[0] != '.') ++visible_other;
    }
    const int all_files = br.result_files + visible_other;
    if (all_files > br.result_files + (params.present ? 1 : 0)) {
      add(Severity::kWarning, "files", b.path,
          "Detected " + std::to_string(all_files) + " total files in directory " + b.path +
              ", but some do not conform to naming convention, should you rename them to result_*.txt ?");
    }
    if (br.result_files < all_files) {
      std::string names;
      for (const auto& o : b.other_files) names += (names.empty() ? "" : ", ") + o.path.substr(o.path.rfind('/') + 1);
      for (const auto& d : b.subdirs) names += (names.empty() ? "" : ", ") + d.substr(d.rfind('/') + 1) + "/";
      add(Severity::kWarning, "files", b.path, "Unknown files in result directory: " + names);
    }
    for (const auto& d : b.subdirs) {
      if (d.substr(d.rfind('/') + 1) == "power") {
        add(Severity::kWarning, "files", d, "power measurements are not checked by podbench");
      }
    }

    // Compliance.
    for (const LogJob* j : by_folder[b.path]) {
      ++rep.logs_checked;
      const std::string& log = j->entry->path;
      if (!j->result.ok()) {
        ++br.failing_logs;
        add(Severity::kError, "compliance", log, "not checked: " + j->result.status().message());
        continue;
      }
      const rules::CheckResult& r = *j->result;
      if (r.pass) continue;
      ++br.failing_logs;
      for (const auto& m : r.errors) {
        add(Severity::kError, "compliance", log, (m.key.empty() ? "" : "[" + m.key + "] ") + m.text, m.line);
      }
    }
    rep.logs_failing += br.failing_logs;
    br.compliance = StepState::kPass;
    if (br.failing_logs == 1 && b.benchmark != "unet3d") {
      add(Severity::kWarning, "compliance", b.path, "1 file does not comply, accepting this under olympic scoring");
    } else if (br.failing_logs > 0 && br.failing_logs <= 4 && b.benchmark == "unet3d") {
      add(Severity::kWarning, "compliance", b.path,
          std::to_string(br.failing_logs) + " files do not comply, accepting this under olympic scoring");
    } else if (br.failing_logs > 0) {
      br.compliance = StepState::kFail;
      add(Severity::kError, "compliance", b.path,
          std::to_string(br.failing_logs) + " files do not comply, directory cannot be accepted");
    }
    // Error messages of accepted failing logs stay listed, as warnings.
    if (br.compliance == StepState::kPass && br.failing_logs > 0) {
      for (auto& f : findings) {
        if (f.check == "compliance" && f.severity == Severity::kError && BenchmarkFolderOf(f.path) == b.path) {
          f.severity = Severity::kWarning;
        }
      }
    }

    if (RunsSeedAndRcpChecks(version) && br.closed) {
      if (options.seed_checker_bypass || sys_params.seed_bypass || params.seed_bypass || global_params.seed_bypass) {
        br.seeds = StepState::kSkipped;
        add(Severity::kWarning, "seeds", b.path, "Bypassing Seed Checker");
      } else {
        auto seed_errors = CheckSeeds(tree, b.result_files, copt.format);
        br.seeds = seed_errors.empty() ? StepState::kPass : StepState::kFail;
        for (const auto& m : seed_errors) add(Severity::kError, "seeds", m.path, m.message, m.line);
      }
      if (b.benchmark != "minigo") {
        if (options.rcp == nullptr) {
          br.rcp = StepState::kNotChecked;
          br.rcp_message = "podbench has no RCP checker in this build";
        } else {
          RcpRequest req{&tree, &b, options.usage, options.ruleset, &options.logging,
                         options.rcp_bypass || sys_params.rcp_bypass || params.rcp_bypass,
                         options.rcp_bert_train_samples};
          RcpOutcome out = options.rcp->Check(req);
          br.rcp_message = out.message;
          br.rcp_scaling_factor = out.scaling_factor;
          switch (out.state) {
            case RcpOutcome::State::kPass: br.rcp = StepState::kPass; break;
            case RcpOutcome::State::kFail:
              br.rcp = StepState::kFail;
              add(Severity::kError, "rcp", b.path, "RCP Test Failed: " + out.message);
              break;
            case RcpOutcome::State::kNotChecked: br.rcp = StepState::kNotChecked; break;
          }
        }
      }
    }
    rep.benchmarks.push_back(std::move(br));
  }

  if (usage == Usage::kHpc) {
    // hpc results sit under a scaling folder; the official checker asserts
    // it (a traceback), podbench reports it.
    for (const auto& d : tree.dirs) {
      if (d.rfind("results/", 0) != 0 || std::count(d.begin(), d.end(), '/') != 2) continue;
      const std::string scaling = d.substr(d.rfind('/') + 1);
      if (scaling != "strong" && scaling != "weak") {
        add(Severity::kError, "results", d,
            "hpc results belong in results/<system>/strong/<benchmark> or results/<system>/weak/<benchmark>, not under '" +
                scaling + "'");
      }
    }
  }
  if (tree.has_results_dir && tree.benchmark_dirs.empty()) {
    add(Severity::kWarning, "results", "results", "no benchmark folders found: no result was checked");
  }
  for (const auto& m : tree.results_misplaced) {
    add(Severity::kWarning, "files", m, "not inside a benchmark folder (results/<system>/<benchmark>/); ignored");
  }
  for (const auto& x : tree.extra_files) {
    add(Severity::kWarning, "files", x, "outside systems/, results/ and benchmarks/; ignored");
  }
  return rep;
}

}  // namespace podbench::submission
