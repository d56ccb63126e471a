#include "rules/score.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "rules/mllog/reader.h"

namespace podbench::rules {

int RequiredRuns(const std::string& benchmark) {
  if (benchmark == "gnmt" || benchmark == "transformer" || benchmark == "minigo") return 10;
  return 5;
}

Result<RunTime> ScoreRun(const std::filesystem::path& log, const std::string& benchmark) {
  RunTime rt;
  rt.file = log.string();
  PODBENCH_ASSIGN_OR_RETURN(mllog::Format format, mllog::DetectFormat(log));
  const double unit = format == mllog::Format::kMll ? 1.0 : 1e-3;  // to seconds
  PODBENCH_ASSIGN_OR_RETURN(auto reader, mllog::LogReader::Open(log, format));
  std::optional<double> start, stop, eval_result;
  std::string status;
  mllog::Record r;
  while (reader->Next(&r)) {
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
  }
  PODBENCH_RETURN_IF_ERROR(reader->status());
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
  if (runs.size() < 3) return std::nullopt;
  std::vector<double> t;
  size_t failed = 0;
  for (const auto& r : runs) {
    if (r.converged || (r.stopped && policy == AbortPolicy::kTimed)) t.push_back(r.minutes);
    else ++failed;
  }
  if (failed > 1) return std::nullopt;
  std::sort(t.begin(), t.end());
  // Drop the fastest, and the slowest (the non-converged run when there is one).
  size_t hi = failed ? t.size() : t.size() - 1;
  double sum = 0;
  for (size_t i = 1; i < hi; ++i) sum += t[i];
  return sum / static_cast<double>(hi - 1);
}

Result<std::vector<BenchmarkScore>> ScoreDirs(const std::vector<std::filesystem::path>& dirs, AbortPolicy policy) {
  namespace fs = std::filesystem;
  std::map<std::tuple<std::string, std::string, std::string>, BenchmarkScore> groups;
  for (const auto& dir : dirs) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) return Status::NotFound(dir.string() + ": not a folder");
    std::vector<fs::path> files;
    for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      const auto& p = it->path();
      if (it->is_regular_file(ec) && p.filename().string().rfind("result_", 0) == 0 && p.extension() == ".txt") {
        files.push_back(p);
      }
    }
    if (ec) return Status::IOError(dir.string() + ": " + ec.message());
    std::sort(files.begin(), files.end());
    for (const auto& found : files) {
      const fs::path f = fs::absolute(found).lexically_normal();
      // <org>/results/<platform>/<benchmark>/result_N.txt
      fs::path bench_dir = f.parent_path(), platform_dir = bench_dir.parent_path();
      fs::path results_dir = platform_dir.parent_path(), org_dir = results_dir.parent_path();
      if (results_dir.filename() != "results") {
        return Status::InvalidArgument(f.string() + ": not in an <org>/results/<platform>/<benchmark>/ folder");
      }
      std::string org = org_dir.filename().string();
      auto key = std::make_tuple(org, platform_dir.filename().string(), bench_dir.filename().string());
      auto& g = groups[key];
      g.org = std::get<0>(key);
      g.platform = std::get<1>(key);
      g.benchmark = std::get<2>(key);
      g.required_runs = RequiredRuns(g.benchmark);
      auto run = ScoreRun(f, g.benchmark);
      if (!run.ok()) {
        RunTime bad;
        bad.file = f.string();
        bad.note = run.status().message();
        g.runs.push_back(bad);
      } else {
        g.runs.push_back(*run);
      }
    }
  }
  std::vector<BenchmarkScore> out;
  for (auto& [k, g] : groups) {
    g.score_minutes = OlympicMean(g.runs, policy);
    if (static_cast<int>(g.runs.size()) != g.required_runs) {
      g.note = std::to_string(g.runs.size()) + " runs (v0.6 requires " + std::to_string(g.required_runs) + ")";
    }
    if (!g.score_minutes) g.note += std::string(g.note.empty() ? "" : "; ") + "no score: fewer than 3 runs or more than one non-converged run";
    out.push_back(std::move(g));
  }
  return out;
}

}  // namespace podbench::rules
