#include "workloads/registry.h"

#include <algorithm>
#include <cassert>
#include <utility>

#include "base/text.h"

namespace podbench::workloads {

namespace {

std::vector<std::unique_ptr<ModelRegistration>>& Registry() {
  static auto* registry = new std::vector<std::unique_ptr<ModelRegistration>>();
  return *registry;
}

std::vector<const ModelRegistration*> Sorted(bool (*keep)(const ModelRegistration&)) {
  std::vector<const ModelRegistration*> out;
  for (const auto& r : Registry()) {
    if (keep(*r)) out.push_back(r.get());
  }
  std::sort(out.begin(), out.end(), [](auto* a, auto* b) { return a->name() < b->name(); });
  return out;
}

}  // namespace

bool ModelRegistration::HasPreset(std::string_view preset) const {
  return std::find(presets_.begin(), presets_.end(), preset) != presets_.end();
}

bool ModelRegistration::Supports(Mode m) const {
  return has_workload() && std::find(modes_.begin(), modes_.end(), m) != modes_.end();
}

Result<std::map<std::string, HpValue>> PresetValues(const ModelRegistration& model, const Workload& workload,
                                                    std::string_view preset, const SliceInfo& slice) {
  if (preset.empty()) return std::map<std::string, HpValue>{};
  PODBENCH_RETURN_IF_ERROR(CheckPreset(model, preset));
  return workload.Preset(preset, slice);
}

Status CheckPreset(const ModelRegistration& model, std::string_view preset) {
  return model.HasPreset(preset) ? Status::Ok() : PresetNotFound(model.name(), preset, model.presets());
}

std::vector<SliceInfo> PodSlices(const topology::SystemSpec& system) {
  std::vector<SliceInfo> out;
  for (const auto& [cores, grid] : system.pod.slices) {
    out.push_back({system.name + "-" + std::to_string(cores), cores, int64_t{grid.first} * grid.second});
  }
  return out;
}

std::vector<SliceInfo> PresetSlices(const ModelRegistration& model, std::string_view preset,
                                    const std::vector<SliceInfo>& slices) {
  const std::unique_ptr<Workload> w = model.Create();
  std::vector<SliceInfo> out;
  for (const SliceInfo& s : slices) {
    if (PresetValues(model, *w, preset, s).ok()) out.push_back(s);
  }
  return out;
}

Result<Hyperparameters> PresetHyperparameters(const ModelRegistration& model, const Workload& workload,
                                              std::string_view preset, const SliceInfo& slice,
                                              const std::vector<std::string>& sets) {
  PODBENCH_ASSIGN_OR_RETURN(auto values, PresetValues(model, workload, preset, slice));
  return ResolveHyperparameters(workload.HyperparameterSpecs(), values, sets, model.name());
}

Result<projection::StepSpec> ModelRegistration::ZooStep(std::string_view preset, const SliceInfo& slice) const {
  if (!in_zoo()) return Status::FailedPrecondition(name_ + " has no full-size graph in the zoo");
  if (has_workload()) {
    const std::unique_ptr<Workload> w = Create();
    PODBENCH_ASSIGN_OR_RETURN(Hyperparameters hp, PresetHyperparameters(*this, *w, preset, slice));
    return w->ProjectedStep(hp, slice);
  }
  if (graph_ == nullptr || step_preset_ == nullptr) {
    return Status::Internal(name_ + ": a zoo model without a workload must register ZooGraph");
  }
  projection::StepSpec s;
  PODBENCH_ASSIGN_OR_RETURN(s.config, step_preset_(preset, slice.name, slice.cores));
  s.graph = graph_();
  return s;
}

ModelRegistration* RegisterModel(std::string name) {
  assert(FindModel(name) == nullptr && "model registered twice");
  Registry().push_back(std::make_unique<ModelRegistration>(std::move(name)));
  return Registry().back().get();
}

const ModelRegistration* FindModel(std::string_view name) {
  for (const auto& r : Registry()) {
    if (r->name() == name) return r.get();
  }
  return nullptr;
}

std::vector<const ModelRegistration*> AllModels() {
  return Sorted([](const ModelRegistration&) { return true; });
}

std::vector<const ModelRegistration*> AllWorkloads() {
  return Sorted([](const ModelRegistration& r) { return r.has_workload(); });
}

const ModelRegistration* FindWorkload(std::string_view name) {
  const ModelRegistration* r = FindModel(name);
  return r != nullptr && r->has_workload() ? r : nullptr;
}

Result<const ModelRegistration*> WorkloadNamed(std::string_view name) {
  if (const ModelRegistration* r = FindWorkload(name)) return r;
  std::string known;
  for (const ModelRegistration* r : AllWorkloads()) known += (known.empty() ? "" : ", ") + r->name();
  return Status::InvalidArgument("unknown workload '" + std::string(name) + "' (available: " +
                                 (known.empty() ? "none" : known) + ")");
}

std::vector<const ModelRegistration*> ZooModels() {
  return Sorted([](const ModelRegistration& r) { return r.in_zoo(); });
}

Status PresetNotFound(std::string_view model, std::string_view preset, const std::vector<std::string>& presets) {
  const std::string known = JoinNames(presets);
  return Status::NotFound(std::string(model) + " has no preset '" + std::string(preset) +
                          "' (presets: " + (known.empty() ? "none" : known) + ")");
}

Status PresetHasNoSlice(std::string_view model, std::string_view preset, std::string_view slice,
                        const std::vector<std::string_view>& slices) {
  std::string known;
  for (std::string_view s : slices) known += (known.empty() ? "" : ", ") + std::string(s);
  return Status::InvalidArgument(std::string(model) + " preset '" + std::string(preset) + "' has no values for " +
                                 std::string(slice) + " (it has: " + known + ")");
}

Result<projection::StepConfig> CheckedPreset(std::string_view model, std::string_view preset, std::string_view slice,
                                             int64_t slice_cores, projection::StepConfig config) {
  const Status s = config.layout.Validate(slice_cores);
  if (!s.ok()) {
    return s.WithContext(std::string(model) + " preset '" + std::string(preset) + "' on " + std::string(slice));
  }
  return config;
}

}  // namespace podbench::workloads
