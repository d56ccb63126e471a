#include "harness/run/settings.h"

#include <unistd.h>

#include <charconv>
#include <cstdio>
#include <filesystem>
#include <random>

#include <nlohmann/json.hpp>

#include "base/text.h"
#include "base/utf8.h"
#include "harness/run/lifecycle.h"
#include "topology/slice.h"

namespace podbench::harness {

using workloads::Mode;

Result<workloads::SliceInfo> ParseSlice(const std::string& name, const topology::SystemSpec& system) {
  auto slice = topology::Slice::FromName(name, system);
  if (!slice.ok()) return slice.status().WithContext("--slice " + name);
  return workloads::SliceInfo{name, slice->num_cores(), slice->num_chips()};
}

std::string EffectiveRunSettings::LogPath(int index) const {
  if (request.log.empty()) return "";
  if (runs == 1) return request.log;
  std::filesystem::path p(request.log);
  std::filesystem::path out = p.parent_path() / (p.stem().string() + "_" + std::to_string(index) +
                                                 p.extension().string());
  return out.string();
}

std::string EffectiveRunSettings::FlagsJson() const {
  nlohmann::json j;
  j["workload"] = request.workload;
  j["slice"] = request.slice;
  j["mode"] = request.mode;
  j["runs"] = request.runs ? nlohmann::json(*request.runs) : nlohmann::json(nullptr);
  j["seed"] = request.seed ? nlohmann::json(*request.seed) : nlohmann::json(nullptr);
  j["preset"] = request.preset;
  j["set"] = request.sets;
  j["log"] = request.log;
  j["log_format"] = request.log_format;
  j["label"] = request.label;
  j["system"] = request.system;
  j["system_fingerprint"] = system_fingerprint;
  return j.dump();
}

std::string EffectiveRunSettings::HyperparametersJson() const {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [name, v] : hp.values()) {
    std::visit([&, n = name](const auto& x) { j[n] = x; }, v);
  }
  return j.dump();
}

namespace {

// Every string of the request ends up in JSON (the stored flags), SQLite or
// the log, and all three need UTF-8: a string that is not is refused here,
// named, before anything runs.
Status CheckUtf8(const RunRequest& req) {
  std::vector<std::pair<std::string, const std::string*>> fields = {
      {"workload", &req.workload}, {"--slice", &req.slice},   {"--mode", &req.mode},
      {"--preset", &req.preset},   {"--log", &req.log},       {"--db", &req.db},
      {"--system", &req.system},   {"--label", &req.label},   {"--log-format", &req.log_format}};
  for (const std::string& item : req.sets) fields.emplace_back("--set", &item);
  for (const auto& [flag, value] : fields) {
    if (auto at = InvalidUtf8At(*value)) {
      return Status::InvalidArgument(flag + " " + QuoteForMessage(*value) + ": not valid UTF-8 (byte " +
                                     std::to_string(*at) + "); podbench records it in JSON, SQLite and the "
                                     "MLPerf log, which need UTF-8");
    }
  }
  return Status::Ok();
}

std::string GiB(double bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f GiB", bytes / (1024.0 * 1024 * 1024));
  return buf;
}

// A mode's own hyperparameters are named for it (functional_* sizes the
// functional run's data and model, projected_* chooses what the cost model
// prices); nothing the other mode runs or reports depends on them, so a
// --set of one there would change nothing. Refused, naming the item and the
// mode that reads it.
Status RefuseTheOtherModesSets(const std::vector<std::string>& sets, Mode mode) {
  const std::string mine = mode == Mode::kFunctional ? "functional" : "projected";
  const std::string other = mode == Mode::kFunctional ? "projected" : "functional";
  for (const std::string& item : sets) {
    if (item.rfind(other + "_", 0) != 0) continue;
    return Status::InvalidArgument("--set " + item + ": " + other + "_* hyperparameters are read only by --mode " +
                                   other + ", and this run is --mode " + mine + " (it would change nothing)");
  }
  return Status::Ok();
}

}  // namespace

int64_t MachineMemoryBytes() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? static_cast<int64_t>(pages) * page : 0;
}

Result<EffectiveRunSettings> Normalize(const RunRequest& req) {
  PODBENCH_RETURN_IF_ERROR(CheckUtf8(req));
  EffectiveRunSettings s;
  s.request = req;
  PODBENCH_ASSIGN_OR_RETURN(s.registration, workloads::WorkloadNamed(req.workload));
  if (req.mode == "functional") {
    s.mode = Mode::kFunctional;
  } else if (req.mode == "projected") {
    s.mode = Mode::kProjected;
  } else {
    return Status::InvalidArgument("--mode " + req.mode + ": expected functional or projected");
  }
  if (!s.registration->Supports(s.mode)) {
    return Status::InvalidArgument(req.workload + " has no " + req.mode + " mode");
  }
  PODBENCH_ASSIGN_OR_RETURN(topology::LoadedSystem sys, topology::LoadSystemOrDefault(req.system));
  s.system_fingerprint = sys.Fingerprint();
  s.system = std::move(sys.spec);
  PODBENCH_ASSIGN_OR_RETURN(s.slice, ParseSlice(req.slice, *s.system));
  if (req.log_format == "mll") {
    s.log_format = mllog::Format::kMll;
  } else if (req.log_format == "mllog") {
    s.log_format = mllog::Format::kMllog;
  } else {
    return Status::InvalidArgument("--log-format " + req.log_format + ": expected mll or mllog");
  }
  if (req.runs && (*req.runs < 1 || *req.runs > 1000)) {
    return Status::InvalidArgument("--runs " + std::to_string(*req.runs) + ": expected 1 to 1000");
  }
  s.runs = req.runs ? *req.runs : s.registration->scored_runs();
  s.base_seed = req.seed ? *req.seed : std::random_device{}();

  s.workload = s.registration->Create();
  auto preset = workloads::PresetValues(*s.registration, *s.workload, req.preset, s.slice);
  if (!preset.ok()) return preset.status().WithContext("--preset " + req.preset);
  PODBENCH_ASSIGN_OR_RETURN(s.hp, workloads::ResolveHyperparameters(s.workload->HyperparameterSpecs(), *preset,
                                                                    req.sets, req.workload));
  PODBENCH_RETURN_IF_ERROR(RefuseTheOtherModesSets(req.sets, s.mode));
  if (Status valid = s.workload->Validate(s.hp, s.slice, s.mode); !valid.ok()) {
    // A value the user never set fails: say where it came from.
    if (req.preset.empty() && !s.registration->presets().empty()) {
      return Status::InvalidArgument(valid.message() + " (no --preset given, so " + req.workload +
                                      "'s defaults apply; its presets: " + JoinNames(s.registration->presets()) +
                                      ")");
    }
    return valid;
  }
  PODBENCH_ASSIGN_OR_RETURN(s.description, s.workload->Describe(s.hp, s.slice, s.mode));
  // The description, its parallel layout against the slice and the log
  // lines it adds, before anything runs.
  const std::string context = req.workload + " on " + s.slice.name;
  PODBENCH_RETURN_IF_ERROR(s.description.Validate(s.slice).WithContext(context));
  for (const workloads::WorkloadEvent& e : s.description.init_events) {
    PODBENCH_RETURN_IF_ERROR(CheckWorkloadEvent(s, e).WithContext(context));
  }
  const int64_t memory = MachineMemoryBytes();
  if (memory > 0 && s.description.host_memory_bytes > memory) {
    return Status::InvalidArgument(
        req.workload + " " + req.mode + " on " + s.slice.name + " needs an estimated " +
        GiB(static_cast<double>(s.description.host_memory_bytes)) +
        " of host memory (its data, activations and weights) and this machine has " +
        GiB(static_cast<double>(memory)) + ": lower the sizes it is given with --set");
  }
  return s;
}

}  // namespace podbench::harness
