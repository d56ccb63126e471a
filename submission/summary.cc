#include "submission/summary.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "base/utf8.h"
#include "results/export.h"
#include "rules/checker.h"
#include "rules/mllog/reader.h"
#include "rules/rule_set.h"
#include "rules/score.h"
#include "submission/benchmark_meta.h"
#include "submission/pynum.h"
#include "submission/tree.h"

namespace podbench::submission {
namespace {

namespace fs = std::filesystem;
using ojson = nlohmann::ordered_json;

// ---- Python value semantics on JSON values ----

std::string PyStr(const ojson& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "True" : "False";
  if (v.is_number_integer()) return v.dump();
  if (v.is_number_float()) return PyRepr(v.get<double>());
  if (v.is_null()) return "None";
  return v.dump();
}

// Python's int(x) for a JSON value; nullopt where Python raises.
std::optional<int64_t> PyInt(const ojson& v) {
  if (v.is_boolean()) return v.get<bool>() ? 1 : 0;
  if (v.is_number_integer()) return v.get<int64_t>();
  if (v.is_number_float()) {
    const double d = v.get<double>();
    if (!std::isfinite(d) || std::fabs(d) > 9.2e18) return std::nullopt;
    return static_cast<int64_t>(d);
  }
  if (!v.is_string()) return std::nullopt;
  std::string s = v.get<std::string>();
  size_t b = s.find_first_not_of(" \t\n\r\f\v");
  size_t e = s.find_last_not_of(" \t\n\r\f\v");
  if (b == std::string::npos) return std::nullopt;
  s = s.substr(b, e - b + 1);
  size_t i = 0;
  bool neg = false;
  if (s[0] == '+' || s[0] == '-') {
    neg = s[0] == '-';
    i = 1;
  }
  std::string digits;
  for (; i < s.size(); ++i) {
    if (std::isdigit(static_cast<unsigned char>(s[i]))) {
      digits += s[i];
    } else if (s[i] == '_' && !digits.empty() && i + 1 < s.size() && std::isdigit(static_cast<unsigned char>(s[i + 1]))) {
      continue;
    } else {
      return std::nullopt;
    }
  }
  if (digits.empty() || digits.size() > 18) return std::nullopt;
  const int64_t n = std::stoll(digits);
  return neg ? -n : n;
}

bool PyTruthy(const ojson& v) {
  if (v.is_null()) return false;
  if (v.is_boolean()) return v.get<bool>();
  if (v.is_number()) return v.get<double>() != 0;
  // (ojson's empty() is false for every string, "" included: read the text.)
  if (v.is_string()) return !v.get_ref<const std::string&>().empty();
  if (v.is_array() || v.is_object()) return !v.empty();
  return true;
}

std::string PathText(const fs::path& p) { return p.generic_string(); }

// ---- Reading the tree through the shared walk (submission/tree.h): never
// written, links that leave it not followed, depth, entries and sizes bounded ----

struct Reader {
  const Tree* tree = nullptr;
  fs::path shown;  // the folder as the user named it: messages show paths under it
  int64_t max_bytes = 0;
  std::vector<std::string>* messages = nullptr;
  std::set<std::string> files, dirs;

  Reader(const Tree* t, fs::path shown_root, int64_t max, std::vector<std::string>* out)
      : tree(t), shown(std::move(shown_root)), max_bytes(max), messages(out) {
    for (const auto& f : t->files) files.insert(f.path);
    dirs.insert(t->dirs.begin(), t->dirs.end());
    for (const auto& p : t->problems) {
      messages->push_back(std::string(p.severity == Severity::kError ? "ERROR: " : "WARNING: ") + Shown(p.path) + ": " +
                          p.message);
    }
  }

  std::string Shown(const std::string& rel) const { return PathText(rel.empty() ? shown : shown / rel); }
  bool HasFile(const std::string& rel) const { return files.count(rel) > 0; }
  bool HasDir(const std::string& rel) const { return dirs.count(rel) > 0; }

  // Names of the folders (or files) directly in the folder `rel` ("" = the root), sorted.
  std::vector<std::string> List(const std::string& rel, bool want_dirs) const {
    const std::string prefix = rel.empty() ? "" : rel + "/";
    std::vector<std::string> out;
    for (const auto& p : want_dirs ? dirs : files) {
      if (p.compare(0, prefix.size(), prefix) != 0) continue;
      const std::string name = p.substr(prefix.size());
      if (!name.empty() && name.find('/') == std::string::npos) out.push_back(name);
    }
    return out;  // std::set order: byte order
  }

  Result<std::string> Read(const std::string& rel) const {
    auto text = ReadTreeFile(*tree, rel, max_bytes);
    if (!text.ok()) return Status(text.status()).WithContext(Shown(rel));
    return text;
  }

  // A JSON file; the error message is the official one's wording.
  Result<ojson> ReadJson(const std::string& rel) const {
    PODBENCH_ASSIGN_OR_RETURN(std::string text, Read(rel));
    // nlohmann's parser would skip a byte-order mark; the official tool stops.
    ojson j = StartsWithUtf8Bom(text) ? ojson(ojson::value_t::discarded) : ojson::parse(text, nullptr, false);
    if (j.is_discarded()) return Status::Corruption("ERROR: Could not decode JSON struct in " + Shown(rel));
    return j;
  }
};

// ---- One benchmark folder ----

using Log = ResultLog;

struct FolderScan {
  std::string rel;                // the folder, relative to the tree's root
  std::vector<Log> logs;          // result_*.txt, sorted by name
  bool has_power = false;
};

bool IsResultName(const std::string& name) {
  return name.size() >= 11 && name.rfind("result_", 0) == 0 && name.compare(name.size() - 4, 4, ".txt") == 0;
}

FolderScan ScanFolder(const Reader& rd, const std::string& rel) {
  FolderScan s;
  s.rel = rel;
  for (const auto& name : rd.List(rel, false)) {
    if (!IsResultName(name)) continue;
    const std::string file = rel.empty() ? name : rel + "/" + name;
    auto text = rd.Read(file);
    if (!text.ok()) {
      rd.messages->push_back("ERROR: " + text.status().message());
      continue;
    }
    s.logs.push_back({rd.Shown(file), std::move(*text)});
  }
  const auto subdirs = rd.List(rel, true);
  s.has_power = std::find(subdirs.begin(), subdirs.end(), "power") != subdirs.end();
  return s;
}

struct Scored {
  std::optional<double> score;
  double scaling_factor = 1.0;
  std::vector<std::pair<std::string, double>> run_minutes;
  // The kept runs, in the order read: file name, run_start and run_stop (ms).
  struct Run {
    std::string file;
    double start = 0, stop = 0;
  };
  std::vector<Run> runs;
  int dropped = 0, max_dropped = 1;
};

// The reason a log is a dropped run ("Compliance check
// failed", "Parse error", "run_start not recorded", "run_stop not recorded"),
// or "" with *start and *stop set (ms).
std::string RunSpan(const Log& log, const rules::Checker& checker, mllog::Format format, double* start, double* stop) {
  auto check = checker.CheckText(log.text, PathText(log.path));
  if (!check.pass) return "Compliance check failed";
  auto reader = mllog::LogReader::FromString(log.text, format, PathText(log.path));
  mllog::RawRecord raw;
  std::optional<double> rs, re;
  while (reader->NextRaw(&raw)) {
    if (rs && re) continue;
    if (raw.key == "run_start") rs = raw.timestamp;
    if (raw.key == "run_stop") re = raw.timestamp;
  }
  if (!reader->errors().empty()) return "Parse error";
  if (!rs) return "run_start not recorded";
  if (!re) return "run_stop not recorded";
  *start = *rs;
  *stop = *re;
  return "";
}

// The review committee's factor from the folder's scaling.json (1 without
// one); read, never written. Messages as the official tool prints them.
double ScalingFactor(const FolderScan& scan, const Reader& rd) {
  const std::string scaling = scan.rel.empty() ? "scaling.json" : scan.rel + "/scaling.json";
  if (!rd.HasFile(scaling)) return 1.0;
  auto j = rd.ReadJson(scaling);
  if (!j.ok()) {
    const std::string m = j.status().message();  // a copy: status() returns a temporary
    rd.messages->push_back((m.rfind("ERROR", 0) == 0 ? m : "ERROR: " + m) + " (scaling factor 1 used)");
    return 1.0;
  }
  if (!j->is_object() || !j->contains("scaling_factor") || !(*j)["scaling_factor"].is_number()) {
    rd.messages->push_back("ERROR: " + rd.Shown(scaling) + ": no numeric \"scaling_factor\" (scaling factor 1 used)");
    return 1.0;
  }
  rd.messages->push_back("NOTICE: Applying scaling factor " + PyStr((*j)["scaling_factor"]) + " to dir " +
                         rd.Shown(scan.rel));
  return (*j)["scaling_factor"].get<double>();
}

// _compute_strong_score_standalone's time to train (its energy: Energy()).
Scored ScoreLogs(const FolderScan& scan, const std::string& benchmark,
                 const std::string& system, const std::string& submitter, const rules::Checker& checker,
                 mllog::Format format, const Reader& rd) {
  Scored out;
  std::vector<double> scores;
  int dropped = 0;
  for (const auto& log : scan.logs) {
    double start = 0, stop = 0;
    const std::string why = RunSpan(log, checker, format, &start, &stop);
    if (!why.empty()) {
      rd.messages->push_back(why + " in " + PathText(log.path));
      ++dropped;
      continue;
    }
    scores.push_back((stop - start) / 60 / 1000);
    out.run_minutes.emplace_back(log.path.filename().string(), scores.back());
    out.runs.push_back({log.path.filename().string(), start, stop});
  }
  const int max_dropped = benchmark == "unet3d" ? 4 : 1;
  out.dropped = dropped;
  out.max_dropped = max_dropped;
  if (dropped > max_dropped) {
    rd.messages->push_back("CRITICAL ERROR: Too many non-converging runs for " + submitter + " " + system + "/" + benchmark);
    rd.messages->push_back("** CRITICAL ERROR ** Results in the table for " + submitter + " " + system + "/" + benchmark +
                           " are NOT correct");
  } else if (dropped >= 1) {
    rd.messages->push_back("NOTICE: Dropping non-converged run(s) for " + submitter + " " + system + "/" + benchmark +
                           " using olympic scoring.");
  }
  out.scaling_factor = ScalingFactor(scan, rd);
  if (auto mean = rules::TrimmedOlympicMean(scores, dropped, max_dropped)) out.score = *mean * out.scaling_factor;
  return out;
}

// ---- Power (v4.0 on): the energy of a benchmark folder with a power/ folder ----

// The records of one power log, sorted by timestamp (stable, as Python's sort).
Result<std::vector<mllog::Record>> PowerRecords(const Reader& rd, const std::string& rel, mllog::Format format) {
  PODBENCH_ASSIGN_OR_RETURN(std::string text, rd.Read(rel));
  auto reader = mllog::LogReader::FromString(std::move(text), format, rd.Shown(rel));
  std::vector<mllog::Record> out;
  mllog::Record r;
  while (reader->Next(&r)) out.push_back(r);
  std::stable_sort(out.begin(), out.end(),
                   [](const mllog::Record& a, const mllog::Record& b) { return a.timestamp < b.timestamp; });
  return out;
}

// A power value as a number; an error naming the file and line where the
// official tool raises (arithmetic on a value that is not a number).
Result<double> PowerNumber(const mllog::Record& r, const std::string& shown) {
  const mllog::Value& v = r.payload();
  if (!v.is_number() && !v.is_bool()) {
    return Status::InvalidArgument(shown + ":" + std::to_string(r.file_line) + ": " + r.key + " value " + v.ToJson() +
                                   " is not a number");
  }
  return v.as_number();
}

// _compute_power_node: the readings between power_measurement_start and
// power_measurement_stop integrated over time, scaled to the run's time to
// train (ms), times conversion_eff.
Result<double> NodeEnergy(const Reader& rd, const std::string& rel, double time_to_train, mllog::Format format) {
  PODBENCH_ASSIGN_OR_RETURN(auto records, PowerRecords(rd, rel, format));
  const std::string shown = rd.Shown(rel);
  double prev = 0, last = 0, start = 0, stop = 0, agg = 0, eff = 1.0;
  bool start_found = false, stop_found = false;
  for (const auto& r : records) {
    if (r.key == "power_measurement_start") {
      start = prev = r.timestamp;
      start_found = true;
    }
    if (r.key == "power_reading" && !stop_found && start_found) {
      PODBENCH_ASSIGN_OR_RETURN(double w, PowerNumber(r, shown));
      agg += w * (r.timestamp - prev);
      prev = r.timestamp;
      last = std::max(last, r.timestamp);
    }
    if (r.key == "power_measurement_stop") {
      stop = r.timestamp;
      stop_found = true;
    }
    if (r.key == "conversion_eff") {
      PODBENCH_ASSIGN_OR_RETURN(eff, PowerNumber(r, shown));
    }
  }
  if (!start_found) return Status::InvalidArgument(shown + ": Power start timestamp not found");
  if (!stop_found) {
    stop = last;
    rd.messages->push_back("WARNING: Power stop not found, taking last_timestamp as the power measurement stop");
  }
  if (stop == start) {
    return Status::InvalidArgument(shown + ": the power measurement lasts 0 ms (stop at its start): no energy");
  }
  return eff * agg * time_to_train / (stop - start) / 1000;
}

// _compute_power_sw: interconnect_power_est (the first) times the run's time
// to train (ms), times a conversion_eff logged before it.
Result<double> SwitchEnergy(const Reader& rd, const std::string& rel, double time_to_train, mllog::Format format) {
  PODBENCH_ASSIGN_OR_RETURN(std::string text, rd.Read(rel));
  auto reader = mllog::LogReader::FromString(std::move(text), format, rd.Shown(rel));
  double agg = 0, eff = 1.0;
  mllog::Record r;
  while (reader->Next(&r)) {
    if (r.key == "conversion_eff") {
      PODBENCH_ASSIGN_OR_RETURN(eff, PowerNumber(r, rd.Shown(rel)));
    }
    if (r.key == "interconnect_power_est") {
      PODBENCH_ASSIGN_OR_RETURN(agg, PowerNumber(r, rd.Shown(rel)));
      break;
    }
  }
  return eff * agg * time_to_train / 1000;
}

// _compute_total_power of one run: its power/<result name>/node_*.txt and sw_*.txt.
Result<double> RunEnergy(const Reader& rd, const std::string& bdir, const std::string& result_file, double time_to_train,
                         mllog::Format format) {
  const std::string run_dir = bdir + "/power/" + result_file.substr(0, result_file.find('.'));
  std::vector<std::string> nodes, switches;
  for (const auto& name : rd.List(run_dir, false)) {
    const bool txt = name.size() > 4 && name.compare(name.size() - 4, 4, ".txt") == 0;
    if (txt && name.rfind("node_", 0) == 0) nodes.push_back(run_dir + "/" + name);
    if (txt && name.rfind("sw_", 0) == 0) switches.push_back(run_dir + "/" + name);
  }
  if (nodes.empty()) {
    return Status::NotFound(rd.Shown(run_dir) + ": no node_*.txt power log for " + result_file);
  }
  double total = 0;
  for (const auto& n : nodes) {
    PODBENCH_ASSIGN_OR_RETURN(double e, NodeEnergy(rd, n, time_to_train, format));
    total += e;
  }
  for (const auto& sw : switches) {
    PODBENCH_ASSIGN_OR_RETURN(double e, SwitchEnergy(rd, sw, time_to_train, format));
    total += e;
  }
  return total;
}

// The Energy column of a benchmark folder with power results: each kept
// run's energy, the olympic mean taken in the order of the runs' times to
// train (the official _index_olympic_average), times the scaling factor.
// nullopt, with an ERROR message naming the file, where the official tool
// crashes (a run without node power logs, a log without
// power_measurement_start, a value that is not a number).
std::optional<double> Energy(const Reader& rd, const std::string& bdir, const Scored& sc, mllog::Format format) {
  std::vector<double> energy, minutes;
  for (const auto& run : sc.runs) {
    auto e = RunEnergy(rd, bdir, run.file, run.stop - run.start, format);
    if (!e.ok()) {
      rd.messages->push_back("ERROR: " + e.status().message() +
                             " (Energy left empty; the official summarizer crashes here)");
      return std::nullopt;
    }
    energy.push_back(*e);
    minutes.push_back((run.stop - run.start) / 60 / 1000);
  }
  if (sc.dropped > sc.max_dropped) return std::nullopt;
  std::vector<size_t> index(minutes.size());
  for (size_t i = 0; i < index.size(); ++i) index[i] = i;
  std::stable_sort(index.begin(), index.end(), [&](size_t a, size_t b) { return minutes[a] < minutes[b]; });
  const size_t lo = static_cast<size_t>(sc.max_dropped);
  const size_t cut = static_cast<size_t>(sc.max_dropped - sc.dropped);
  if (index.size() < lo + cut || index.size() - cut <= lo) return std::nullopt;
  double sum = 0;
  for (size_t i = lo; i < index.size() - cut; ++i) sum += energy[index[i]];
  return sum * 1.0 / static_cast<double>(index.size() - cut - lo) * sc.scaling_factor;
}

std::string PrettyFramework(const std::string& f) {
  if (f.find("TensorFlow") == std::string::npos) return f;
  // The first " commit hash = ..." up to the end of its line, as the
  // official re.search(" commit hash = [^\n\r]*") finds it; every copy of
  // that text is then removed, as its str.replace does.
  const size_t at = f.find(" commit hash = ");
  if (at == std::string::npos) return f;
  const size_t end = f.find_first_of("\n\r", at);
  std::string out = f, needle = f.substr(at, end == std::string::npos ? std::string::npos : end - at);
  for (size_t p = out.find(needle); p != std::string::npos; p = out.find(needle, p)) out.erase(p, needle.size());
  return out;
}

std::string UrlPrefix(const std::string& usage, const std::string& ruleset) {
  std::string rest = ruleset.size() > 3 ? ruleset.substr(3) : "";
  for (size_t p = rest.find(".0"); p != std::string::npos; p = rest.find(".0", p)) rest.erase(p, 2);
  return "https://github.com/mlcommons/" + usage + "_results_v" + ruleset.substr(0, 3) + rest;
}

struct Schema {
  std::vector<std::string> benchmarks;
  SummaryTable strong, detailed;
};

const char* kSpecColumns[] = {"division", "availability", "submitter", "system", "number_of_nodes",
                              "host_processor_model_name", "host_processors_count", "accelerator_model_name",
                              "accelerators_count", "framework", "notes", "private_id"};
const char* kDetailMetrics[] = {"time_to_train", "Energy", "GBS", "samples_to_converge", "RCP", "rcp_scaling_factor"};
const char* kWeakMetrics[] = {"number_of_models", "instance_scale", "time_to_train_all"};

int CompareCells(const Cell& a, const Cell& b) {
  const bool an = std::holds_alternative<std::monostate>(a), bn = std::holds_alternative<std::monostate>(b);
  if (an || bn) return an == bn ? 0 : (an ? 1 : -1);  // empty cells last
  if (std::holds_alternative<std::string>(a) && std::holds_alternative<std::string>(b)) {
    const int c = std::get<std::string>(a).compare(std::get<std::string>(b));
    return c < 0 ? -1 : c > 0 ? 1 : 0;
  }
  auto num = [](const Cell& c) {
    if (auto* i = std::get_if<int64_t>(&c)) return static_cast<double>(*i);
    if (auto* d = std::get_if<double>(&c)) return *d;
    return 0.0;
  };
  const double x = num(a), y = num(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

void SortRows(SummaryTable* t) {
  std::stable_sort(t->rows.begin(), t->rows.end(), [](const std::vector<Cell>& a, const std::vector<Cell>& b) {
    for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
      const int c = CompareCells(a[i], b[i]);
      if (c != 0) return c < 0;
    }
    return false;
  });
}

// Python json.dumps of a string (ensure_ascii).
std::string PyJsonString(const std::string& s) {
  std::string out = "\"";
  size_t i = 0;
  auto hex4 = [&](unsigned v) {
    char b[8];
    std::snprintf(b, sizeof b, "\\u%04x", v);
    out += b;
  };
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c == '"') out += "\\\"";
    else if (c == '\\') out += "\\\\";
    else if (c == '\n') out += "\\n";
    else if (c == '\r') out += "\\r";
    else if (c == '\t') out += "\\t";
    else if (c == '\b') out += "\\b";
    else if (c == '\f') out += "\\f";
    else if (c < 0x20) hex4(c);
    else if (c < 0x80) out += static_cast<char>(c);
    else {
      // Decode one UTF-8 sequence (invalid bytes as U+FFFD).
      unsigned cp = 0xFFFD;
      int len = 1;
      if ((c & 0xE0) == 0xC0 && i + 1 < s.size()) {
        cp = ((c & 0x1Fu) << 6) | (static_cast<unsigned char>(s[i + 1]) & 0x3Fu);
        len = 2;
      } else if ((c & 0xF0) == 0xE0 && i + 2 < s.size()) {
        cp = ((c & 0x0Fu) << 12) | ((static_cast<unsigned char>(s[i + 1]) & 0x3Fu) << 6) |
             (static_cast<unsigned char>(s[i + 2]) & 0x3Fu);
        len = 3;
      } else if ((c & 0xF8) == 0xF0 && i + 3 < s.size()) {
        cp = ((c & 0x07u) << 18) | ((static_cast<unsigned char>(s[i + 1]) & 0x3Fu) << 12) |
             ((static_cast<unsigned char>(s[i + 2]) & 0x3Fu) << 6) | (static_cast<unsigned char>(s[i + 3]) & 0x3Fu);
        len = 4;
      }
      if (cp >= 0x10000) {
        cp -= 0x10000;
        hex4(0xD800 + (cp >> 10));
        hex4(0xDC00 + (cp & 0x3FF));
      } else {
        hex4(cp);
      }
      i += static_cast<size_t>(len);
      continue;
    }
    ++i;
  }
  return out + "\"";
}

}  // namespace

std::vector<ResultLog> ReadResultLogs(const fs::path& folder, int64_t max_bytes, std::vector<std::string>* messages) {
  WalkLimits limits;
  limits.max_file_bytes = max_bytes;
  auto tree = WalkTree(folder, Usage::kTraining, limits);
  if (!tree.ok()) {
    messages->push_back("ERROR: " + tree.status().message());
    return {};
  }
  Reader rd(&*tree, folder, max_bytes, messages);
  return ScanFolder(rd, "").logs;
}

std::vector<std::string> SummaryBenchmarks(const std::string& usage, const std::string& ruleset) {
  auto allowed = AllowedBenchmarks(usage, ruleset);
  if (!allowed.ok()) return {};
  std::vector<std::string> out;
  for (const auto& b : *allowed) {
    if (std::find(out.begin(), out.end(), b) == out.end()) out.push_back(b);
  }
  return out;
}

namespace {

struct Context {
  SummaryOptions options;
  std::shared_ptr<rules::RuleSet> rules;
  std::unique_ptr<rules::Checker> checker;
  mllog::Format format = mllog::Format::kMllog;
};

Result<std::unique_ptr<Context>> MakeContext(const SummaryOptions& options) {
  auto ctx = std::make_unique<Context>();
  ctx->options = options;
  const fs::path rules_dir = options.mlperf_logging / "compliance_checker";
  std::error_code ec;
  if (!fs::is_directory(rules_dir, ec)) {
    return Status::NotFound(PathText(rules_dir) + ": no compliance_checker folder (give the official mlperf_logging folder)");
  }
  ctx->rules = std::make_shared<rules::RuleSet>(rules::DirectorySource(rules_dir));
  rules::CheckOptions copt;
  copt.config = rules::DefaultConfig(options.usage, options.ruleset);
  copt.format = rules::FormatForRuleset(options.ruleset);
  ctx->format = copt.format;
  auto entry = ctx->rules->Load(copt.config);
  if (!entry.ok()) return Status::NotFound("rule file " + copt.config + ": " + entry.status().message());
  ctx->checker = std::make_unique<rules::Checker>(ctx->rules, copt);
  return ctx;
}

// Python's int() of a logged value; nullopt where it raises.
std::optional<int64_t> LoggedInt(const mllog::Value& v) {
  if (v.is_number() || v.is_bool()) return PyInt(ojson::parse(v.ToJson(), nullptr, false));
  if (v.is_string()) return PyInt(ojson(v.as_string()));
  return std::nullopt;
}

// _query_instance_scale: number_of_nodes * max(accelerators_per_node, 1), as
// logged; the reason it cannot be read otherwise.
std::variant<int64_t, std::string> InstanceScale(const Log& log, mllog::Format format) {
  auto reader = mllog::LogReader::FromString(log.text, format, PathText(log.path));
  mllog::Record r;
  std::optional<mllog::Value> n, a;
  while (!(n && a) && reader->Next(&r)) {
    if (r.key == "number_of_nodes") n = r.payload();
    if (r.key == "accelerators_per_node") a = r.payload();
  }
  if (!n) return std::string("number_of_nodes not recorded");
  if (!a) return std::string("accelerators_per_node not recorded");
  auto ni = LoggedInt(*n), ai = LoggedInt(*a);
  if (!ni || !ai) {
    return std::string(!ni ? "number_of_nodes " + n->ToJson() : "accelerators_per_node " + a->ToJson()) +
           " is not a whole number";
  }
  return *ni * std::max<int64_t>(*ai, 1);
}

// _compute_weak_scaling_scores for one hpc system with a weak/ folder: per
// benchmark the number of models that passed compliance, their instance scale
// and the minutes from the first run_start to the last run_stop (when at
// least the benchmark's result-file count of models passed). The row goes to
// out->weak; a system without weak/ has none.
void AddWeakRow(const Reader& rd, const Context& ctx, const Schema& schema, const std::string& system,
                const std::string& submitter, const std::vector<Cell>& specs, const std::vector<Cell>& urls,
                Summary* out) {
  const auto& opt = ctx.options;
  const std::string parent = "results/" + system + "/weak";
  if (!rd.HasDir(parent)) return;
  std::map<std::string, Cell> weak;
  for (const auto& name : rd.List(parent, true)) {
    const std::string bdir = parent + "/" + name;
    const std::string benchmark = name == "mask" ? "maskrcnn" : name;
    const auto required = ResultFileCount(opt.usage, benchmark);
    if (!required ||
        std::find(schema.benchmarks.begin(), schema.benchmarks.end(), benchmark) == schema.benchmarks.end()) {
      out->messages.push_back("ERROR: " + rd.Shown(bdir) + ": " + benchmark + " is not a " + opt.usage + " " +
                              opt.ruleset + " benchmark; left out (the official summarizer crashes here)");
      continue;
    }
    FolderScan scan = ScanFolder(rd, bdir);
    if (scan.has_power) {
      out->messages.push_back("WARNING: podbench: power results in " + rd.Shown(bdir + "/power") +
                              " are not summarized for weak scaling (no summary_power table is written)");
    }
    double first_start = std::numeric_limits<double>::infinity();
    double last_stop = -std::numeric_limits<double>::infinity();
    int models = 0;
    std::optional<int64_t> scale;
    bool mismatch = false;
    for (const auto& log : scan.logs) {
      double start = 0, stop = 0;
      const std::string why = RunSpan(log, *ctx.checker, ctx.format, &start, &stop);
      if (!why.empty()) {
        out->messages.push_back(why + " in " + PathText(log.path));
        continue;
      }
      first_start = std::min(first_start, start);
      last_stop = std::max(last_stop, stop);
      ++models;  // counted before its scale is read, as the official tool counts it
      auto s = InstanceScale(log, ctx.format);
      if (auto* reason = std::get_if<std::string>(&s)) {
        out->messages.push_back(*reason + " in " + PathText(log.path));
        continue;
      }
      const int64_t this_scale = std::get<int64_t>(s);
      if (scale && *scale != this_scale) {
        out->messages.push_back("ERROR: " + PathText(log.path) + ": instance scale " + std::to_string(this_scale) +
                                " differs from the " + std::to_string(*scale) + " of the runs before it; " + benchmark +
                                " left out (the official summarizer crashes here)");
        mismatch = true;
        break;
      }
      scale = this_scale;
    }
    if (mismatch) continue;
    if (models >= *required) {
      weak[benchmark + ":number_of_models"] = static_cast<double>(models);
      weak[benchmark + ":instance_scale"] = scale ? Cell{static_cast<double>(*scale)} : Cell{};
      weak[benchmark + ":time_to_train_all"] = (last_stop - first_start) / 60 / 1000;
    } else {
      out->messages.push_back("CRITICAL ERROR: Not enough converging weak scaling runs for " + submitter + " " + system +
                              "/" + benchmark);
    }
  }
  std::vector<Cell> row = specs;
  for (const auto& b : schema.benchmarks) {
    for (const char* m : kWeakMetrics) {
      auto it = weak.find(b + ":" + m);
      row.push_back(it == weak.end() ? Cell{} : it->second);
    }
  }
  row.insert(row.end(), urls.begin(), urls.end());
  out->weak.rows.push_back(std::move(row));
}

void SummarizeOrg(const fs::path& folder, const Context& ctx, const Schema& schema, Summary* out) {
  const auto& opt = ctx.options;
  WalkLimits limits;
  limits.max_file_bytes = opt.max_file_bytes;
  auto tree = WalkTree(folder, opt.usage == "hpc" ? Usage::kHpc : Usage::kTraining, limits);
  if (!tree.ok()) {
    out->messages.push_back("ERROR: " + tree.status().message() + " (the official summarizer crashes here)");
    return;
  }
  Reader rd(&*tree, folder, opt.max_file_bytes, &out->messages);
  if (!rd.HasDir("results")) {
    out->messages.push_back("ERROR: " + rd.Shown("results") + ": no results folder (the official summarizer crashes here)");
    return;
  }
  for (const auto& system : rd.List("results", true)) {
    const std::string system_file = "systems/" + system + ".json";
    if (!rd.HasFile(system_file)) {
      out->messages.push_back("ERROR: Missing " + rd.Shown(system_file));
      continue;
    }
    auto desc_r = rd.ReadJson(system_file);
    if (!desc_r.ok()) {
      out->messages.push_back(desc_r.status().message().rfind("ERROR", 0) == 0 ? desc_r.status().message()
                                                                                  : "ERROR: " + desc_r.status().message());
      continue;
    }
    ojson desc = std::move(*desc_r);
    if (!desc.is_object()) {
      out->messages.push_back("ERROR: " + rd.Shown(system_file) + ": not a JSON object");
      continue;
    }
    ojson private_id = "";
    const std::string id_file = "results/" + system + "/privateid.json";
    if (rd.HasFile(id_file)) {
      auto id = rd.ReadJson(id_file);
      if (!id.ok()) {
        out->messages.push_back("ERROR: " + id.status().message());
        continue;
      }
      if (id->is_object() && id->contains("private_id")) private_id = (*id)["private_id"];
    }
    desc["private_id"] = private_id;
    // The fields, checked in the official order; the first missing one is reported.
    const std::vector<std::vector<const char*>> needed = {
        {"division"},  {"private_id"}, {"status"}, {"submitter"}, {"system_name"}, {"host_processor_model_name"},
        {"number_of_nodes"}, {"host_processor_core_count", "host_processors_per_node", "number_of_nodes"},
        {"accelerator_model_name"}, {"accelerators_per_node", "number_of_nodes"}, {"framework"}, {"hw_notes", "sw_notes"}};
    std::string missing;
    for (const auto& group : needed) {
      for (const char* k : group) {
        if (missing.empty() && !desc.contains(k)) missing = k;
      }
    }
    if (!missing.empty()) {
      out->messages.push_back("ERROR: \"" + missing + "\" field missing in " + PathText(system_file));
      continue;
    }
    auto hppn = PyInt(desc["host_processors_per_node"]);
    auto non = PyInt(desc["number_of_nodes"]);
    auto apn = PyInt(desc["accelerators_per_node"]);
    if (!hppn || !non || !apn) {
      const char* which = !hppn ? "host_processors_per_node" : !non ? "number_of_nodes" : "accelerators_per_node";
      out->messages.push_back("ERROR: \"" + std::string(which) + "\" is not a whole number in " + PathText(system_file) +
                              " (the official summarizer crashes here)");
      continue;
    }
    std::string notes;
    bool notes_ok = true;
    for (const char* k : {"hw_notes", "sw_notes"}) {
      if (!PyTruthy(desc[k])) continue;
      if (!desc[k].is_string()) notes_ok = false;
      notes += (notes.empty() ? "" : ";") + PyStr(desc[k]);
    }
    if (!notes_ok) {
      out->messages.push_back("ERROR: \"hw_notes\"/\"sw_notes\" is not text in " + PathText(system_file) +
                              " (the official summarizer crashes here)");
      continue;
    }
    std::string system_name = PyStr(desc["system_name"]);
    if (system_name == "tpu-v3") system_name = "TPUv3." + std::to_string(*apn * 2);
    std::string accel = PyStr(desc["accelerator_model_name"]);
    if (accel == "tpu-v3") accel = "TPUv3";
    const std::string submitter = PyStr(desc["submitter"]);
    const std::vector<Cell> specs = {PyStr(desc["division"]),
                                     PyStr(desc["status"]),
                                     submitter,
                                     system_name,
                                     PyStr(desc["number_of_nodes"]),
                                     PyStr(desc["host_processor_model_name"]),
                                     *hppn * *non,
                                     accel,
                                     *apn * *non,
                                     PrettyFramework(PyStr(desc["framework"])),
                                     notes,
                                     PyStr(private_id)};
    const bool closed = desc["division"].is_string() && desc["division"] == "closed";

    const std::vector<Cell> urls = {
        UrlPrefix(opt.usage, opt.ruleset) + "/blob/main/" + submitter + "/systems/" + system + ".json",
        UrlPrefix(opt.usage, opt.ruleset) + "/blob/master/" + submitter + "/benchmarks"};

    // Benchmarks.
    std::map<std::string, Cell> strong;
    std::map<std::string, Cell> detailed;
    std::string parent = "results/" + system;
    if (opt.usage == "hpc") {
      parent += "/strong";
      // The official summarizer adds no strong row for a system without strong/.
      if (!rd.HasDir(parent)) {
        AddWeakRow(rd, ctx, schema, system, submitter, specs, urls, out);
        continue;
      }
    }
    for (const auto& name : rd.List(parent, true)) {
      const std::string bdir = parent + "/" + name;
      const std::string benchmark = name == "mask" ? "maskrcnn" : name;
      if (std::find(schema.benchmarks.begin(), schema.benchmarks.end(), benchmark) == schema.benchmarks.end()) {
        out->messages.push_back("ERROR: " + rd.Shown(bdir) + ": " + benchmark + " is not a " + opt.usage + " " +
                                opt.ruleset + " benchmark; left out (the official summarizer crashes here)");
        continue;
      }
      FolderScan scan = ScanFolder(rd, bdir);
      Scored sc = ScoreLogs(scan, benchmark, system, submitter, *ctx.checker, ctx.format, rd);
      // The energy is a Cell from the start: an optional<double> copied into the
      // variant trips GCC 12's -Wmaybe-uninitialized.
      Cell energy;
      if (scan.has_power) {
        if (auto e = Energy(rd, bdir, sc, ctx.format)) energy = *e;
      }
      std::optional<double> gbs, epochs;
      std::optional<std::string> rcp;
      if (closed) {
        std::vector<RunConvergence> runs;
        for (const auto& log : scan.logs) runs.push_back(ReadRunConvergence(log.text, opt.ruleset, false));
        RcpOptions ro;
        ro.usage = opt.usage;
        ro.ruleset = opt.ruleset;
        RcpVerdict v = CheckRcp(runs, ro, FileRcpLoader(opt.mlperf_logging, opt.usage, opt.ruleset));
        if (v.official_crash) {
          // The official summarizer prints str() of the exception it caught.
          out->messages.push_back("WARNING: RCP/GBS computation failed for " + rd.Shown(bdir) + ": " +
                                  (v.official_exception.empty() ? v.message : v.official_exception));
        } else {
          if (!v.pass) {
            out->messages.push_back("ERROR: RCP Test Failed on " + submitter + "/" + system + "/" + benchmark +
                                    " with message: " + v.message + ".");
            if (v.message == "RCP found") rcp = "Fail";
            else if (v.message == "RCP Interpolation") rcp = "Interp. Fail";
            else if (v.message.find("Missing") != std::string::npos) rcp = "Missing";
            else if (v.message == "Cannot find any RCPs") rcp = "No RCP";
            else rcp = "Unknown state";
          } else {
            rcp = "Pass";
          }
          gbs = v.bs.value_or(-1);
          if (v.epochs) {
            std::vector<double> e = *v.epochs;
            std::sort(e.begin(), e.end());
            if (e.size() >= 3) epochs = NumpyMean(std::vector<double>(e.begin() + 1, e.end() - 1));
          } else {
            out->messages.push_back("WARNING: RCP/GBS computation failed for " + rd.Shown(bdir) +
                                    ": 'NoneType' object has no attribute 'sort'");
          }
        }
      }
      detailed[benchmark + ":rcp_scaling_factor"] = sc.scaling_factor;
      if (sc.score) detailed[benchmark + ":time_to_train"] = *sc.score;
      if (gbs) detailed[benchmark + ":GBS"] = *gbs;
      if (epochs) detailed[benchmark + ":samples_to_converge"] = *epochs;
      if (rcp) detailed[benchmark + ":RCP"] = *rcp;
      if (!std::holds_alternative<std::monostate>(energy)) detailed[benchmark + ":Energy"] = energy;
      if (sc.score) strong[benchmark] = *sc.score;
    }
    std::vector<Cell> srow = specs, drow = specs;
    for (const auto& b : schema.benchmarks) {
      auto it = strong.find(b);
      srow.push_back(it == strong.end() ? Cell{} : it->second);
      for (const char* m : kDetailMetrics) {
        auto d = detailed.find(b + ":" + m);
        if (d != detailed.end()) {
          drow.push_back(d->second);
        } else {
          drow.push_back(std::string(m) == "RCP" ? Cell{std::string()} : Cell{});
        }
      }
    }
    srow.insert(srow.end(), urls.begin(), urls.end());
    drow.insert(drow.end(), urls.begin(), urls.end());
    out->strong.rows.push_back(std::move(srow));
    out->detailed.rows.push_back(std::move(drow));
    if (opt.usage == "hpc") AddWeakRow(rd, ctx, schema, system, submitter, specs, urls, out);
  }
}

}  // namespace

Result<Summary> Summarize(const std::vector<fs::path>& folders, const SummaryOptions& options) {
  Schema schema;
  schema.benchmarks = SummaryBenchmarks(options.usage, options.ruleset);
  if (schema.benchmarks.empty()) {
    return Status::InvalidArgument("the summarizer knows no benchmarks for " + options.usage + " " + options.ruleset);
  }
  PODBENCH_ASSIGN_OR_RETURN(auto ctx, MakeContext(options));
  Summary out;
  for (const char* c : kSpecColumns) {
    out.strong.columns.push_back(c);
    out.detailed.columns.push_back(c);
    out.weak.columns.push_back(c);
  }
  for (const auto& b : schema.benchmarks) {
    out.strong.columns.push_back(b);
    for (const char* m : kDetailMetrics) out.detailed.columns.push_back(b + ":" + m);
    for (const char* m : kWeakMetrics) out.weak.columns.push_back(b + ":" + m);
  }
  for (const char* c : {"details_url", "code_url"}) {
    out.strong.columns.push_back(c);
    out.detailed.columns.push_back(c);
    out.weak.columns.push_back(c);
  }
  for (const auto& f : folders) SummarizeOrg(f, *ctx, schema, &out);
  SortRows(&out.strong);
  SortRows(&out.detailed);
  SortRows(&out.weak);
  for (const auto& m : out.messages) {
    if (m.rfind("ERROR", 0) == 0 || m.rfind("CRITICAL ERROR", 0) == 0) out.failed = true;
  }
  return out;
}

std::string SummaryCsv(const SummaryTable& t) {
  std::string out;
  for (size_t i = 0; i < t.columns.size(); ++i) out += (i ? "," : "") + results::CsvField(t.columns[i]);
  out += "\n";
  for (const auto& row : t.rows) {
    for (size_t i = 0; i < row.size(); ++i) {
      if (i) out += ",";
      const Cell& c = row[i];
      if (auto* s = std::get_if<std::string>(&c)) out += results::CsvField(*s);
      else if (auto* n = std::get_if<int64_t>(&c)) out += std::to_string(*n);
      else if (auto* d = std::get_if<double>(&c)) out += std::isnan(*d) ? "" : PyRepr(*d);
    }
    out += "\n";
  }
  return out;
}

std::string SummaryJson(const SummaryTable& t) {
  if (t.rows.empty()) return "[]";
  std::string out = "[\n";
  for (size_t r = 0; r < t.rows.size(); ++r) {
    out += "  {\n";
    const auto& row = t.rows[r];
    for (size_t i = 0; i < row.size() && i < t.columns.size(); ++i) {
      out += "    " + PyJsonString(t.columns[i]) + ": ";
      const Cell& c = row[i];
      if (auto* s = std::get_if<std::string>(&c)) out += PyJsonString(*s);
      else if (auto* n = std::get_if<int64_t>(&c)) out += std::to_string(*n);
      else if (auto* d = std::get_if<double>(&c)) {
        const std::string text = PandasJsonDouble(*d);
        out += text == "null" ? text : PyRepr(std::strtod(text.c_str(), nullptr));
      } else {
        out += "null";
      }
      out += i + 1 < row.size() ? ",\n" : "\n";
    }
    out += r + 1 < t.rows.size() ? "  },\n" : "  }\n";
  }
  return out + "]";
}

Result<FolderScore> ScoreBenchmarkFolder(const fs::path& folder, const std::string& system,
                                         const SummaryOptions& options) {
  PODBENCH_ASSIGN_OR_RETURN(auto ctx, MakeContext(options));
  FolderScore out;
  WalkLimits limits;
  limits.max_file_bytes = options.max_file_bytes;
  PODBENCH_ASSIGN_OR_RETURN(Tree tree, WalkTree(folder, Usage::kTraining, limits));
  Reader rd(&tree, folder, options.max_file_bytes, &out.messages);
  FolderScan scan = ScanFolder(rd, "");
  if (scan.logs.empty()) {
    return Status::NotFound(PathText(folder) + ": no result_*.txt file (compute_score crashes here)");
  }
  // compute_score takes the benchmark from the first result file's submission_benchmark.
  auto first = ReadRunConvergence(scan.logs.front().text, options.ruleset, false);
  if (!first.benchmark) {
    return Status::InvalidArgument(PathText(scan.logs.front().path) + ": Benchmark not specified in result file");
  }
  out.benchmark = *first.benchmark;
  auto required = ResultFileCount(options.usage, out.benchmark);
  if (!required) {
    return Status::InvalidArgument(PathText(folder) + ": benchmark " + out.benchmark + " has no result-file count for " +
                                   options.usage + " (compute_score crashes here)");
  }
  out.required_runs = *required;
  if (static_cast<int>(scan.logs.size()) < *required) {
    out.messages.push_back("WARNING: Not enough runs found for an official submission. Found: " +
                           std::to_string(scan.logs.size()) + ", required: " + std::to_string(*required));
  }
  Scored sc = ScoreLogs(scan, out.benchmark, system, "None", *ctx->checker, ctx->format, rd);
  out.run_minutes = sc.run_minutes;
  out.score = sc.score;
  out.scaling_factor = sc.scaling_factor;
  return out;
}

}  // namespace podbench::submission
