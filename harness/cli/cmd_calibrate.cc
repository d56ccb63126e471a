// podbench calibrate: fit the system description's calibration values to the
// published figures every registered model declares
// (workloads/projection/calibration.h; each priced through the shared
// composition, workloads/projected_runs.h), print every value it sets or
// reads and what each came from, the points after the fit, and every slice
// of every model's google-v0.6 preset as it then comes out against Google's
// published rows; optionally write the calibrated system file.
#include <fstream>
#include <memory>
#include <optional>
#include <ostream>
#include <sstream>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "harness/cli/command.h"
#include "results/published_v06.h"
#include "topology/slice.h"
#include "topology/system.h"
#include "workloads/projected_runs.h"
#include "workloads/registry.h"

namespace podbench::cli {
namespace {

constexpr const char* kPreset = "google-v0.6";

struct CalibrateOptions {
  std::string system;  // empty: built-in
  std::string write;   // write the calibrated YAML here
  OutputFormat format = OutputFormat::kText;
};

// Replaces the value on the first line of `yaml` whose key is `key`
// ("  key: value  # comment"), keeping the indentation and the comment.
// False when no line has the key.
bool SetYamlValue(std::string* yaml, const std::string& key, double value) {
  std::istringstream in(*yaml);
  std::string out, line;
  bool done = false;
  while (std::getline(in, line)) {
    size_t first = line.find_first_not_of(' ');
    if (!done && first != std::string::npos && line.compare(first, key.size() + 1, key + ":") == 0) {
      size_t v = line.find_first_not_of(' ', first + key.size() + 1);
      size_t v_end = v == std::string::npos ? line.size() : line.find_first_of(" #", v);
      if (v_end == std::string::npos) v_end = line.size();
      std::string repl = fmt::format("{:.6g}", value);
      if (v == std::string::npos) {
        line += " " + repl;
      } else {
        // Keep the comment's column where the new value is not longer.
        std::string pad(v_end - v > repl.size() ? v_end - v - repl.size() : 0, ' ');
        line = line.substr(0, v) + repl + pad + line.substr(v_end);
      }
      done = true;
    }
    out += line + "\n";
  }
  *yaml = out;
  return done;
}

// One slice of one model's preset after the fit, beside Google's row.
struct Row {
  std::string model, slice;
  workloads::ProjectedRunModel run;
  projection::RowPrediction predicted;
  std::optional<results::PublishedResult> published;
};

Result<std::vector<Row>> PresetRows(const topology::SystemSpec& system) {
  std::vector<Row> rows;
  for (const workloads::ModelRegistration* m : workloads::AllWorkloads()) {
    if (!m->Supports(workloads::Mode::kProjected) || !m->HasPreset(kPreset)) continue;
    for (const workloads::SliceInfo& slice : workloads::PresetSlices(*m, kPreset, workloads::PodSlices(system))) {
      PODBENCH_ASSIGN_OR_RETURN(workloads::ProjectedRunModel run,
                                workloads::ModelProjectedRun(m->name(), kPreset, slice.name, system));
      Row r{m->name(), slice.name, std::move(run), {}, results::FindPublishedV06(m->name(), slice.name)};
      PODBENCH_ASSIGN_OR_RETURN(r.predicted, workloads::PredictRow(r.run));
      rows.push_back(std::move(r));
    }
  }
  return rows;
}

double Pct(double predicted, double published) { return (predicted - published) / published * 100; }

nlohmann::json SplitJson(const projection::ScoreSplit& s) {
  return {{"startup_s", s.startup_s}, {"training_s", s.training_s}, {"evaluation_s", s.evaluation_s},
          {"tail_s", s.tail_s}};
}

int Run(const CalibrateOptions& opt, CliContext& ctx) {
  auto loaded = topology::LoadSystemOrDefault(opt.system);
  if (!loaded.ok()) {
    ctx.err << "podbench calibrate: " << loaded.status().message() << "\n";
    return kExitUsage;
  }
  const topology::SystemSpec& sys = *loaded->spec;
  auto targets = workloads::RegisteredCalibrationTargets(sys);
  auto cal = targets.ok() ? projection::Calibrate(sys, *targets) : Result<projection::Calibration>(targets.status());
  if (!cal.ok()) {
    ctx.err << "podbench calibrate: " << cal.status().message() << "\n";
    return kExitVerdict;
  }
  const topology::SystemSpec fitted = projection::ApplyCalibration(sys, *cal);
  auto rows = PresetRows(fitted);
  if (!rows.ok()) {
    ctx.err << "podbench calibrate: " << rows.status().message() << "\n";
    return kExitUsage;
  }
  if (!opt.write.empty()) {
    std::string out = loaded->yaml;
    for (const projection::CalibratedValue& v : cal->values) {
      const std::string key = v.key.substr(v.key.find('.') + 1);
      if (!SetYamlValue(&out, key, v.value)) {
        ctx.err << "podbench calibrate: " << sys.source << " has no key " << key << " to write\n";
        return kExitUsage;
      }
    }
    std::ofstream f(opt.write);
    f << out;
    f.close();
    if (!f) {
      ctx.err << "podbench calibrate: cannot write " << opt.write << "\n";
      return kExitUsage;
    }
  }
  if (opt.format == OutputFormat::kJson) {
    nlohmann::json j;
    j["system"] = sys.source;
    j["values"] = nlohmann::json::array();
    for (const auto& v : cal->values) {
      j["values"].push_back({{"key", v.key}, {"value", v.value}, {"unit", v.unit}, {"fitted", v.fitted},
                             {"how", v.how}});
    }
    j["points"] = nlohmann::json::array();
    for (const auto& p : cal->points) {
      j["points"].push_back({{"model", p.model},
                             {"slice", p.point.slice},
                             {"kind", projection::CalibrationKindName(p.point.kind)},
                             {"published_s", p.point.published_s},
                             {"predicted", p.predicted_s},
                             {"error_pct", p.point.published_s > 0 ? nlohmann::json(p.error_pct()) : nlohmann::json()},
                             {"source", p.point.source}});
    }
    j["rows"] = nlohmann::json::array();
    for (const Row& r : *rows) {
      nlohmann::json row = {{"model", r.model},
                            {"slice", r.slice},
                            {"step_s", r.predicted.step_s},
                            {"block_s", r.predicted.median_gap_s},
                            {"score_min", r.predicted.score_s / 60},
                            {"first_epoch_extra_s", r.predicted.first_epoch_extra_s},
                            {"split", SplitJson(r.predicted.split)}};
      if (r.published) {
        row["published_score_min"] = r.published->score_min;
        row["score_error_pct"] = Pct(r.predicted.score_s / 60, r.published->score_min);
        if (r.published->block_s > 0) {
          row["published_block_s"] = r.published->block_s;
          row["block_error_pct"] = Pct(r.predicted.median_gap_s, r.published->block_s);
        }
      }
      j["rows"].push_back(std::move(row));
    }
    j["iterations"] = cal->iterations;
    ctx.out << j.dump(2) << "\n";
    return kExitOk;
  }
  std::ostream& o = ctx.out;
  o << fmt::format("calibration of {}: one fit to the published figures the registered models declare\n\n",
                   sys.source);
  o << "values set (fitted) or read as they are from a published time or a document (read):\n";
  for (const auto& v : cal->values) {
    o << fmt::format("  {:<30} = {:<11.5g} {:<4} {:<7} {}\n", v.key, v.value, v.unit, v.fitted ? "fitted" : "read",
                     v.how);
  }
  o << "\npoints after the fit (what each model declares it is fitted to)\n";
  o << fmt::format("  {:<12} {:<12} {:<18} {:>11} {:>11} {:>7}  {}\n", "model", "slice", "kind", "published",
                   "predicted", "error", "source");
  for (const auto& p : cal->points) {
    const bool rate = p.point.kind == projection::CalibrationKind::kInputBound;
    o << fmt::format("  {:<12} {:<12} {:<18} {:>11} {:>11} {:>7}  {}\n", p.model, p.point.slice,
                     projection::CalibrationKindName(p.point.kind),
                     rate ? std::string("-") : fmt::format("{:.2f} s", p.point.published_s),
                     rate ? fmt::format("{:.3g} B/s", p.predicted_s) : fmt::format("{:.2f} s", p.predicted_s),
                     rate ? std::string("") : fmt::format("{:+.1f}%", p.error_pct()), p.point.source);
  }
  o << fmt::format("\nevery slice of every {} preset after the fit (score: olympic mean over the published "
                   "convergence; block: median gap between evaluations; split: shares of the predicted score)\n",
                   kPreset);
  o << fmt::format("  {:<12} {:<12} {:>9} {:>8} {:>8} {:>7} {:>9} {:>8} {:>7} {:>7} {:>7} {:>7} {:>7} {:>7}\n",
                   "model", "slice", "step", "block", "pub", "err", "score", "pub", "err", "first+", "start",
                   "train", "eval", "tail");
  for (const Row& r : *rows) {
    const auto& pr = r.predicted;
    const double total = pr.split.total_s();
    const bool pub = r.published.has_value();
    const bool pub_block = pub && r.published->block_s > 0;
    o << fmt::format(
        "  {:<12} {:<12} {:>7.2f}ms {:>7.2f}s {:>8} {:>7} {:>8.3f}m {:>8} {:>7} {:>6.1f}s {:>6.1f}% {:>6.1f}% "
        "{:>6.1f}% {:>6.1f}%\n",
        r.model, r.slice, pr.step_s * 1e3, pr.median_gap_s,
        pub_block ? fmt::format("{:.2f}s", r.published->block_s) : "-",
        pub_block ? fmt::format("{:+.1f}%", Pct(pr.median_gap_s, r.published->block_s)) : "-", pr.score_s / 60,
        pub ? fmt::format("{:.2f}m", r.published->score_min) : "-",
        pub ? fmt::format("{:+.1f}%", Pct(pr.score_s / 60, r.published->score_min)) : "-",
        pr.first_epoch_extra_s, 100 * pr.split.startup_s / total, 100 * pr.split.training_s / total,
        100 * pr.split.evaluation_s / total, 100 * pr.split.tail_s / total);
  }
  if (!opt.write.empty()) o << "\nwrote " << opt.write << "\n";
  return kExitOk;
}

}  // namespace

void AddCalibrateCommand(Command app, CliContext& ctx) {
  auto opt = std::make_shared<CalibrateOptions>();
  Command sub = app.AddSubcommand(
      "calibrate",
      "Fit the system file's calibration values to the published figures every registered model declares");
  sub.Add("--system", opt->system, "System description YAML (default: built-in TPU-v3)");
  sub.Add("--write", opt->write, "Write the calibrated system description here");
  AddFormatOption(sub, &opt->format);
  sub.Callback([opt, &ctx] { ctx.exit_code = Run(*opt, ctx); });
}

}  // namespace podbench::cli
