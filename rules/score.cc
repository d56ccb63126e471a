#include "rules/score.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <tuple>

#include "base/input_path.h"
#include "base/text.h"
#include "rules/mllog/reader.h"

namespace podbench::rules {

int RequiredRuns(const std::string& benchmark) {
  if (benchmark == "gnmt" || benchmark == "transformer" || benchmark == "minigo") return 10;
  return 5;
}

std::string PythonLiteralToJson(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  char quote = 0;  // the quote of the string we are in, or 0
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quote != 0) {
      if (c == '\\' && i + 1 < text.size()) {
        if (quote == '\'' && text[i + 1] == '\'') {
          out += '\'';  // \' in a single-quoted string is a plain quote in JSON
        } else {
          out += c;
          out += text[i + 1];
        }
        ++i;
      } else if (c == quote) {
        out += '"';
        quote = 0;
      } else if (c == '"') {
        out += "\\\"";  // a double quote inside a single-quoted string
      } else {
        out += c;
      }
      continue;
    }
    if (c == '\'' || c == '"') {
      quote = c;
      out += '"';
      continue;
    }
    auto word = [&](std::string_view py, std::string_view json) {
      if (text.substr(i, py.size()) != py) return false;
      const bool left = i == 0 || !std::isalnum(static_cast<unsigned char>(text[i - 1]));
      const bool right = i + py.size() >= text.size() || !std::isalnum(static_cast<unsigned char>(text[i + py.size()]));
      if (!left || !right) return false;
      out += json;
      i += py.size() - 1;
      return true;
    };
    if (word("True", "true") || word("False", "false") || word("None", "null")) continue;
    out += c;
  }
  return out;
}

Result<RunTime> ScoreRun(const std::filesystem::path& log, const std::string& benchmark_arg) {
  RunTime rt;
  rt.file = log.string();
  PODBENCH_ASSIGN_OR_RETURN(mllog::Format format, mllog::DetectFormat(log));
  const double unit = format == mllog::Format::kMll ? 1.0 : 1e-3;  // to seconds
  PODBENCH_ASSIGN_OR_RETURN(auto reader, mllog::LogReader::Open(log, format));
  std::optional<double> start, stop, eval_result;
  std::string status;
  mllog::Record r;
  auto submission = [&](const char* key, std::string* out) {
    if (r.key == key && out->empty() && r.payload().is_string()) *out = r.payload().as_string();
  };
  auto take = [&] {
    submission("submission_org", &rt.org);
    submission("submission_platform", &rt.platform);
    submission("submission_benchmark", &rt.benchmark);
    if (r.key == "run_start" && !start) {
      start = r.timestamp * unit;
    } else if (r.key == "run_stop" && !stop) {
      stop = r.timestamp * unit;
      const mllog::Value& meta = r.metadata();
      if (meta.is_dict()) {
        if (const mllog::Value* s = meta.Find("status"); s && s->is_string()) status = s->as_string();
      }
    } else if (r.key == "eval_result" && !eval_result) {
      const mllog::Value& meta = r.metadata();
      if (meta.is_dict()) {
        if (const mllog::Value* t = meta.Find("timestamp"); t && t->is_number()) eval_result = t->as_number();
      }
    }
  };
  while (reader->Next(&r)) take();
  // Lines whose metadata is a Python dict literal (Intel's v0.6 MiniGo logs,
  // minigo-v0.6-loop.md §3): read as Python would print them back, for the
  // score only. The checker stays strict (the official one cannot parse
  // them either). Other unparsable lines (a corrupted one) stay unread.
  int64_t python_lines = 0;
  for (const mllog::LineError& e : reader->errors()) {
    auto fixed = mllog::LogReader::FromString(PythonLiteralToJson(e.text), format);
    if (fixed->Next(&r)) {
      ++python_lines;
      take();
    }
  }
  if (python_lines > 0) {
    rt.note = std::to_string(python_lines) + " line(s) with Python-dict metadata read as JSON (the checkers cannot "
              "parse them)";
  }
  const size_t unread = reader->errors().size() - static_cast<size_t>(python_lines);
  if (unread > 0) {
    rt.note += std::string(rt.note.empty() ? "" : "; ") + std::to_string(unread) + " unparsable line(s) skipped";
  }
  PODBENCH_RETURN_IF_ERROR(reader->status());
  const std::string& benchmark = benchmark_arg.empty() ? rt.benchmark : benchmark_arg;
  if (!start) {
    rt.note = "no run_start";
  } else if (benchmark == "minigo") {
    // MiniGo ends at the first model that beats the target; run_stop is optional.
    if (stop && status != "success") {
      rt.note = "run_stop status '" + status + "'";
    } else if (!eval_result) {
      rt.note = "no eval_result timestamp";
    } else {
      // v0.6 MiniGo logs give seconds since run_start; accept an absolute time too.
      double seconds = *eval_result > 1e8 ? *eval_result - *start : *eval_result;
      rt.converged = true;
      rt.minutes = seconds / 60.0;
    }
  } else if (!stop) {
    rt.note = "no run_stop";
  } else if (status != "success") {
    rt.note = "run_stop status '" + status + "'";
    rt.stopped = true;
    rt.minutes = (*stop - *start) / 60.0;
  } else {
    rt.converged = true;
    rt.minutes = (*stop - *start) / 60.0;
  }
  return rt;
}

std::optional<double> OlympicMean(const std::vector<RunTime>& runs, AbortPolicy policy) {
  if (runs.empty()) return std::nullopt;
  if (runs.size() < 3) {
    double sum = 0;
    for (const auto& r : runs) {
      if (!(r.converged || (r.stopped && policy == AbortPolicy::kTimed))) return std::nullopt;
      sum += r.minutes;
    }
    return sum / static_cast<double>(runs.size());
  }
  std::vector<double> t;
  int failed = 0;
  for (const auto& r : runs) {
    if (r.converged || (r.stopped && policy == AbortPolicy::kTimed)) t.push_back(r.minutes);
    else ++failed;
  }
  // Drop the fastest, and the slowest (the non-converged run when there is one).
  return TrimmedOlympicMean(std::move(t), failed, 1);
}

std::optional<double> TrimmedOlympicMean(std::vector<double> kept, int dropped, int drop_each_side) {
  if (dropped > drop_each_side) return std::nullopt;
  std::sort(kept.begin(), kept.end());
  const auto n = static_cast<int64_t>(kept.size());
  auto slice_index = [n](int64_t i) { return std::clamp<int64_t>(i < 0 ? i + n : i, 0, n); };
  const int64_t lo = slice_index(drop_each_side);
  const int64_t hi = slice_index(n - (drop_each_side - dropped));
  if (hi <= lo) return std::nullopt;
  double sum = 0;
  for (int64_t i = lo; i < hi; ++i) sum += kept[static_cast<size_t>(i)];
  return sum / static_cast<double>(hi - lo);
}

namespace {

// The logs among `paths`: files given by name must be logs; folders are
// searched recursively and their other files counted in *skipped.
Result<std::vector<std::filesystem::path>> FindLogs(const std::vector<std::filesystem::path>& paths,
                                                    int64_t* skipped) {
  namespace fs = std::filesystem;
  std::vector<fs::path> logs;
  for (const auto& path : paths) {
    PODBENCH_ASSIGN_OR_RETURN(const InputPathKind kind, ClassifyInputPath(path));
    std::error_code ec;
    if (kind == InputPathKind::kFile) {
      if (!mllog::DetectFormat(path).ok()) {
        return Status::InvalidArgument(path.string() + ": not an MLPerf log (no :::MLL or :::MLLOG line)");
      }
      logs.push_back(path);
      continue;
    }
    std::vector<fs::path> found;
    int64_t others = 0;
    for (auto it = fs::recursive_directory_iterator(path, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec)) {
      if (!it->is_regular_file(ec)) continue;
      if (mllog::DetectFormat(it->path()).ok()) {
        found.push_back(it->path());
      } else {
        ++others;
      }
    }
    if (ec) return Status::IOError(path.string() + ": " + ec.message());
    if (found.empty()) {
      return Status::NotFound(path.string() + ": no MLPerf logs in this folder (no file with :::MLL or :::MLLOG lines" +
                              (others ? ", " + std::to_string(others) + " other files" : std::string()) + ")");
    }
    std::sort(found.begin(), found.end());
    logs.insert(logs.end(), found.begin(), found.end());
    *skipped += others;
  }
  return logs;
}

// org, platform and benchmark from an MLPerf submission layout
// <org>/results/<platform>/<benchmark>/<log> around `log`; empty otherwise.
std::tuple<std::string, std::string, std::string> FromLayout(const std::filesystem::path& log) {
  const std::filesystem::path bench = log.parent_path(), platform = bench.parent_path();
  const std::filesystem::path results = platform.parent_path(), org = results.parent_path();
  if (results.filename() != "results") return {};
  return {org.filename().string(), platform.filename().string(), bench.filename().string()};
}

}  // namespace

Result<ScoreReport> ScorePaths(const std::vector<std::filesystem::path>& paths, AbortPolicy policy) {
  namespace fs = std::filesystem;
  ScoreReport report;
  PODBENCH_ASSIGN_OR_RETURN(std::vector<fs::path> logs, FindLogs(paths, &report.skipped_files));
  std::map<std::tuple<std::string, std::string, std::string>, BenchmarkScore> groups;
  for (const auto& found : logs) {
    const fs::path f = fs::absolute(found).lexically_normal();
    auto run = ScoreRun(f);
    RunTime rt;
    if (run.ok()) {
      rt = std::move(run).value();
    } else {
      rt.file = f.string();
      rt.note = run.status().message();
    }
    auto [org, platform, benchmark] = FromLayout(f);
    if (!rt.org.empty()) org = rt.org;
    if (!rt.platform.empty()) platform = rt.platform;
    if (!rt.benchmark.empty()) benchmark = rt.benchmark;
    if (rt.benchmark.empty() && !benchmark.empty() && run.ok()) {
      // Timed by the layout's benchmark (MiniGo is timed differently).
      auto again = ScoreRun(f, benchmark);
      if (again.ok()) rt = std::move(again).value();
    }
    auto key = std::make_tuple(org.empty() ? "-" : org, platform.empty() ? "-" : platform,
                               benchmark.empty() ? "-" : benchmark);
    auto& g = groups[key];
    g.org = std::get<0>(key);
    g.platform = std::get<1>(key);
    g.benchmark = std::get<2>(key);
    g.required_runs = RequiredRuns(g.benchmark);
    g.runs.push_back(std::move(rt));
  }
  for (auto& [k, g] : groups) {
    g.score_minutes = OlympicMean(g.runs, policy);
    if (static_cast<int>(g.runs.size()) != g.required_runs) {
      g.note = Plural(static_cast<int64_t>(g.runs.size()), "run") + " (v0.6 requires " +
               std::to_string(g.required_runs) + ")";
    }
    if (!g.score_minutes) {
      g.note += std::string(g.note.empty() ? "" : "; ") +
                (g.runs.size() < 3 ? "no score: a run did not converge" : "no score: more than one run did not converge");
    } else if (g.runs.size() < 3) {
      g.note += std::string(g.note.empty() ? "" : "; ") + "plain mean of fewer than 3 runs";
    }
    report.scores.push_back(std::move(g));
  }
  std::stable_sort(report.scores.begin(), report.scores.end(), [](const BenchmarkScore& a, const BenchmarkScore& b) {
    if (a.org != b.org) return NaturalLess(a.org, b.org);
    if (a.platform != b.platform) return NaturalLess(a.platform, b.platform);
    return NaturalLess(a.benchmark, b.benchmark);
  });
  return report;
}

}  // namespace podbench::rules
