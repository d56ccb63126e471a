// podbench calibrate: fit the system description's calibration parameters to
// ResNet-50 at tpu-v3-32 and tpu-v3-2048 through the projection layer
// (workloads/resnet/resnet_calibration.h),
// show how the other slices then come out, and optionally write the
// calibrated system file.
#include <fstream>
#include <memory>
#include <ostream>
#include <sstream>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "harness/cli/command.h"
#include "topology/system.h"
#include "workloads/resnet/google_v06.h"
#include "workloads/resnet/resnet_calibration.h"

namespace podbench::cli {
namespace {

struct CalibrateOptions {
  std::string system;  // empty: built-in
  std::string write;   // write the calibrated YAML here
  OutputFormat format = OutputFormat::kText;
};

// Replaces the value on the first line of `yaml` whose key is `key`
// ("  key: value  # comment"), keeping the indentation and the comment.
std::string SetYamlValue(const std::string& yaml, const std::string& key, double value) {
  std::istringstream in(yaml);
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
  return out;
}

int Run(const CalibrateOptions& opt, CliContext& ctx) {
  auto loaded = topology::LoadSystemOrDefault(opt.system);
  if (!loaded.ok()) {
    ctx.err << "podbench calibrate: " << loaded.status().message() << "\n";
    return kExitUsage;
  }
  const topology::SystemSpec& sys = *loaded->spec;
  auto cal = resnet::CalibrateResNet(sys);
  if (!cal.ok()) {
    ctx.err << "podbench calibrate: " << cal.status().message() << "\n";
    return kExitVerdict;
  }
  topology::SystemSpec fitted = resnet::ApplyCalibration(sys, *cal);
  std::vector<resnet::BlockPrediction> rows;
  for (const auto& c : resnet::GoogleV06Configs()) {
    auto p = resnet::PredictGoogleBlock(fitted, std::string(c.slice));
    if (!p.ok()) {
      ctx.err << "podbench calibrate: " << p.status().message() << "\n";
      return kExitUsage;
    }
    rows.push_back(*p);
  }
  if (!opt.write.empty()) {
    std::string out = SetYamlValue(loaded->yaml, "mxu_efficiency", cal->mxu_efficiency);
    out = SetYamlValue(out, "op_overhead_s", cal->op_overhead_s);
    out = SetYamlValue(out, "input_bytes_per_s", cal->input_bytes_per_s);
    out = SetYamlValue(out, "startup_s", cal->startup_s);
    out = SetYamlValue(out, "cache_fill_bytes_per_s", cal->cache_fill_bytes_per_s);
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
    j["mxu_efficiency"] = cal->mxu_efficiency;
    j["op_overhead_s"] = cal->op_overhead_s;
    j["input_bytes_per_s"] = cal->input_bytes_per_s;
    j["startup_s"] = cal->startup_s;
    j["cache_fill_bytes_per_s"] = cal->cache_fill_bytes_per_s;
    j["calibration_slices"] = {"tpu-v3-32", "tpu-v3-2048"};
    for (const auto& r : rows) {
      nlohmann::json step;
      for (projection::Category c : projection::AllCategories()) {
        step[std::string(projection::CategoryName(c)) + "_s"] = r.step.time[c];
      }
      j["blocks"].push_back({{"slice", r.slice}, {"step_s", r.step_s}, {"step", step}, {"eval_s", r.eval_s},
                             {"block_s", r.block_s}, {"published_block_s", r.published_block_s},
                             {"error_pct", r.error_pct()}, {"first_block_extra_s", r.first_extra_s},
                             {"published_first_block_extra_s", r.published_first_extra_s}});
    }
    ctx.out << j.dump(2) << "\n";
    return kExitOk;
  }
  ctx.out << fmt::format("calibration of {} from ResNet-50 at tpu-v3-32 and tpu-v3-2048 only\n", sys.source);
  ctx.out << fmt::format(
      "  core.mxu_efficiency      = {:.4f}\n  core.op_overhead_s       = {:.3g} s\n"
      "  host.input_bytes_per_s   = {:.4g} (lower bound: tpu-v3-32 not input-bound)\n"
      "  host.startup_s           = {:.2f} s (tpu-v3-2048's first block over its median block)\n"
      "  host.cache_fill_bytes_per_s = {:.4g} (tpu-v3-32's first block, after the start-up)\n\n",
      cal->mxu_efficiency, cal->op_overhead_s, cal->input_bytes_per_s, cal->startup_s,
      cal->cache_fill_bytes_per_s);
  ctx.out << fmt::format("{:<12} {:>9} {:>9} {:>8} {:>8} {:>8} {:>9} {:>8} {:>9} {:>9} {:>7} {:>7} {:>9}\n", "slice",
                         "compute", "gradsum", "bn_sync", "optim", "input", "step", "eval", "block",
                         "published", "error", "first+", "published");
  for (const auto& r : rows) {
    bool fit = r.slice == "tpu-v3-32" || r.slice == "tpu-v3-2048";
    ctx.out << fmt::format(
        "{:<12} {:>7.2f}ms {:>7.2f}ms {:>6.2f}ms {:>6.2f}ms {:>6.2f}ms {:>7.2f}ms {:>7.3f}s {:>8.2f}s {:>8.2f}s {:>+6.1f}% {:>6.1f}s {:>8.1f}s{}\n",
        r.slice, r.step.time.compute_s() * 1e3, r.step.time[projection::Category::kGradients] * 1e3,
        r.step.time[projection::Category::kBnSync] * 1e3, r.step.time[projection::Category::kOptimizer] * 1e3,
        r.step.time[projection::Category::kInput] * 1e3, r.step_s * 1e3, r.eval_s, r.block_s,
        r.published_block_s, r.error_pct(), r.first_extra_s, r.published_first_extra_s, fit ? "  (fitted)" : "");
  }
  if (!opt.write.empty()) ctx.out << "\nwrote " << opt.write << "\n";
  return kExitOk;
}

}  // namespace

void AddCalibrateCommand(CLI::App& app, CliContext& ctx) {
  auto opt = std::make_shared<CalibrateOptions>();
  auto* sub = app.add_subcommand(
      "calibrate",
      "Fit the system file's calibration parameters to ResNet-50 at tpu-v3-32 and tpu-v3-2048");
  sub->add_option("--system", opt->system, "System description YAML (default: built-in TPU-v3)");
  sub->add_option("--write", opt->write, "Write the calibrated system description here");
  AddFormatOption(sub, &opt->format);
  sub->callback([opt, &ctx] { ctx.exit_code = Run(*opt, ctx); });
}

}  // namespace podbench::cli
