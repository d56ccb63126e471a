// podbench topology: describe a slice and price its collectives.
//
// A thin composition root: read the system file, build the slice and its
// logical view, ask each registered algorithm for its analytic time, and
// print. --simulate adds the event simulation at ResNet-50's gradient size.
#include <cmath>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "base/text.h"
#include "harness/cli/command.h"
#include "topology/collectives.h"
#include "topology/slice.h"
#include "topology/system.h"

namespace podbench::cli {
namespace {

using topology::DType;

struct TopologyOptions {
  std::string slice = "tpu-v3-2048";
  std::string system;  // empty: built-in
  std::string subpod_wraparound;  // "", "true" or "false"
  bool simulate = false;
  bool print_system = false;
  OutputFormat format = OutputFormat::kText;
};

// Algorithms in the table: those that act on every core of the slice.
const std::vector<std::string> kTableAlgorithms = {
    "ring",           "ring_bidir", "torus2d",   "torus2d_bidir", "torus2d_pipelined",
    "reduce_scatter", "all_gather", "torus2d_reduce_scatter", "torus2d_all_gather",
    "torus2d_bidir_reduce_scatter", "torus2d_bidir_all_gather", "broadcast"};
constexpr double kResNetParams = 25.6e6;

std::string SizeLabel(double bytes) {
  static const char* units[] = {"B", "KiB", "MiB", "GiB"};
  int u = 0;
  while (bytes >= 1024 && u < 3) {
    bytes /= 1024;
    ++u;
  }
  return fmt::format("{:g} {}", bytes, units[u]);
}

std::string Time(double s) {
  if (s < 1e-3) return fmt::format("{:.1f} us", s * 1e6);
  if (s < 1) return fmt::format("{:.2f} ms", s * 1e3);
  return fmt::format("{:.3f} s", s);
}

int Run(const TopologyOptions& opt, CliContext& ctx) {
  if (opt.print_system) {
    ctx.out << topology::DefaultSystemYaml();
    return kExitOk;
  }
  auto loaded = topology::LoadSystemOrDefault(opt.system);
  if (!loaded.ok()) {
    ctx.err << "podbench topology: " << loaded.status().message() << "\n";
    return kExitUsage;
  }
  const topology::SystemSpec& sys = *loaded->spec;
  std::optional<bool> wrap;
  if (!opt.subpod_wraparound.empty()) wrap = opt.subpod_wraparound == "true";
  auto slice = topology::Slice::FromName(opt.slice, sys, wrap);
  if (!slice.ok()) {
    ctx.err << "podbench topology: " << slice.status().message() << "\n";
    return kExitUsage;
  }
  const topology::Torus& t = slice->torus();
  const topology::LogicalTopology all = topology::LogicalTopology::WholeSlice(*slice);
  auto time_of = [&](const std::string& algo, double bytes) {
    auto r = topology::CollectiveTime(algo, bytes, all);
    return r.ok() ? *r : NAN;
  };

  nlohmann::json j;
  j["slice"] = slice->name();
  j["system"] = sys.name;
  j["system_file"] = sys.source;
  j["chips_x"] = t.chips_x();
  j["chips_y"] = t.chips_y();
  j["wraparound_x"] = t.wrap_x();
  j["wraparound_y"] = t.wrap_y();
  j["chips"] = t.num_chips();
  j["cores"] = t.num_cores();
  j["hosts"] = slice->num_hosts();
  j["chips_per_host"] = sys.host.chips_per_host;
  j["peak_bf16_flops"] = slice->peak_flops();
  j["ici_links"] = t.NumIciLinks();
  j["link_bandwidth_bytes_per_s"] = t.ici().bandwidth_bytes_per_s;
  j["hop_latency_s"] = t.ici().latency_s;
  j["bisection_links"] = t.BisectionLinks();
  j["bisection_bytes_per_s"] = t.BisectionBandwidth();
  j["algorithms"] = kTableAlgorithms;

  nlohmann::json table = nlohmann::json::array();
  for (double bytes = 1024; bytes <= double(1ull << 30); bytes *= 2) {
    nlohmann::json row;
    row["bytes"] = static_cast<uint64_t>(bytes);
    row["label"] = SizeLabel(bytes);
    for (const auto& a : kTableAlgorithms) row["seconds"][a] = time_of(a, bytes);
    const double ring = row["seconds"]["ring"], two_d = row["seconds"]["torus2d"];
    row["torus2d_beats_ring"] = two_d < ring;
    row["ring_over_torus2d"] = ring / two_d;
    const double ring2 = row["seconds"]["ring_bidir"], two_d2 = row["seconds"]["torus2d_bidir"];
    row["torus2d_bidir_beats_ring_bidir"] = two_d2 < ring2;
    row["ring_bidir_over_torus2d_bidir"] = ring2 / two_d2;
    table.push_back(row);
  }
  j["table"] = table;

  nlohmann::json resnet = nlohmann::json::array();
  for (DType dt : {DType::kF32, DType::kBF16}) {
    const double bytes = kResNetParams * topology::BytesPerElement(dt);
    nlohmann::json r;
    r["dtype"] = dt == DType::kF32 ? "fp32" : "bf16";
    r["bytes"] = bytes;
    for (const auto& a : kTableAlgorithms) r["seconds"][a] = time_of(a, bytes);
    const double ring = r["seconds"]["ring"], two_d = r["seconds"]["torus2d"];
    r["ring_over_torus2d"] = ring / two_d;
    r["saved_seconds"] = ring - two_d;
    if (opt.simulate) {
      for (const char* a : {"ring", "torus2d", "torus2d_bidir"}) {
        auto sim = topology::SimulateCollective(a, bytes, dt, all);
        if (sim.ok()) r["simulated_seconds"][a] = sim->time_s;
      }
    }
    resnet.push_back(r);
  }
  j["resnet50"] = resnet;

  if (opt.format == OutputFormat::kJson) {
    ctx.out << j.dump(2) << "\n";
    return kExitOk;
  }
  std::ostream& o = ctx.out;
  o << fmt::format("{} (system {}, {})\n", slice->name(), sys.name, sys.source);
  o << fmt::format("  grid       {} x {} chips, wraparound X {}, Y {}; {} cores a chip = {} cores\n", t.chips_x(),
                   t.chips_y(), t.wrap_x() ? "yes" : "no", t.wrap_y() ? "yes" : "no", t.cores_per_chip(),
                   t.num_cores());
  o << fmt::format("  hosts      {} ({} a host), input {:.2f} GB/s of device-ready examples\n",
                   Plural(slice->num_hosts(), "host"), Plural(sys.host.chips_per_host, "chip"), slice->num_hosts() * sys.host.input_bytes_per_s / 1e9);
  o << fmt::format("  peak       {:.1f} PFLOP/s bf16\n", slice->peak_flops() / 1e15);
  o << fmt::format("  links      {} ICI links (one direction each), {:g} GB/s and {:g} us a hop; "
                   "core-to-core {:g} GB/s\n",
                   t.NumIciLinks(), t.ici().bandwidth_bytes_per_s / 1e9, t.ici().latency_s * 1e6,
                   t.core_link().bandwidth_bytes_per_s / 1e9);
  o << fmt::format("  bisection  {} = {:.2f} TB/s each way ({:.2f} TB/s both)\n\n", Plural(t.BisectionLinks(), "link"),
                   t.BisectionBandwidth() / 1e12, 2 * t.BisectionBandwidth() / 1e12);
  o << "Collective time per algorithm (analytic alpha-beta, no contention), payload per core,\n"
       "all cores of the slice. Last columns: how many times faster the 2-D torus all-reduce is\n"
       "than the 1-D ring, one-directional and bidirectional; '*' where 2-D wins:\n";
  std::string head = fmt::format("  {:>8}", "size");
  for (const auto& a : kTableAlgorithms) head += fmt::format(" {:>17}", a);
  o << head << "   ring/2-D  bidir ring/2-D\n";
  for (const auto& row : table) {
    std::string line = fmt::format("  {:>8}", row["label"].get<std::string>());
    for (const auto& a : kTableAlgorithms) line += fmt::format(" {:>17}", Time(row["seconds"][a].get<double>()));
    line += fmt::format("   {:>6.2f}x{:1}  {:>6.2f}x{:1}", row["ring_over_torus2d"].get<double>(),
                        row["torus2d_beats_ring"].get<bool>() ? "*" : "",
                        row["ring_bidir_over_torus2d_bidir"].get<double>(),
                        row["torus2d_bidir_beats_ring_bidir"].get<bool>() ? "*" : "");
    o << line << "\n";
  }
  o << fmt::format("\nResNet-50 gradient all-reduce ({:g} M parameters) on {}:\n", kResNetParams / 1e6,
                   slice->name());
  for (const auto& r : resnet) {
    const double ring = r["seconds"]["ring"], two_d = r["seconds"]["torus2d"], bidir = r["seconds"]["torus2d_bidir"];
    o << fmt::format("  {} ({:.1f} MB): 1-D ring {}, 2-D torus {} -> 2-D is {:.2f}x {} ({} {}); 2-D bidirectional {}\n",
                     r["dtype"].get<std::string>(), r["bytes"].get<double>() / 1e6, Time(ring), Time(two_d),
                     ring >= two_d ? ring / two_d : two_d / ring, ring >= two_d ? "faster" : "slower",
                     Time(std::abs(ring - two_d)), ring >= two_d ? "saved" : "lost", Time(bidir));
    if (r.contains("simulated_seconds")) {
      std::string sims;
      for (const auto& [a, v] : r["simulated_seconds"].items()) {
        sims += fmt::format("{}{} {}", sims.empty() ? "" : ", ", a, Time(v.get<double>()));
      }
      o << "    event simulation: " << sims << "\n";
    }
  }
  return kExitOk;
}

}  // namespace

void AddTopologyCommand(Command app, CliContext& ctx) {
  Command sub = app.AddSubcommand("topology", "Describe a pod slice and tabulate collective times per algorithm");
  auto opt = std::make_shared<TopologyOptions>();
  sub.Add("--slice", opt->slice, "Pod slice named by cores, e.g. tpu-v3-2048 (default)");
  sub.Add("--system", opt->system, "System description YAML (default: the built-in TPU-v3)");
  sub.Add("--subpod-wraparound", opt->subpod_wraparound,
          "Whether dimensions shorter than the pod's have wraparound links (default: from the system file)")
      .Choices({"true", "false"});
  sub.AddFlag("--simulate", opt->simulate,
              "Also run the event simulation at ResNet-50's gradient size (the 1-D ring takes seconds)");
  sub.AddFlag("--print-system", opt->print_system, "Print the built-in system description YAML and exit");
  AddFormatOption(sub, &opt->format);
  sub.Callback([opt, &ctx] { ctx.exit_code = Run(*opt, ctx); });
}

}  // namespace podbench::cli
