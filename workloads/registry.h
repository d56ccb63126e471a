// The one registry of the models podbench knows. Every model registers itself
// from its own folder, as google/benchmark registers benchmarks: its workload
// plugin (the run's hyperparameters, description and sessions), its full-size
// graph's entry in `podbench model`, the published points `podbench
// calibrate` fits to, and the seed papers' claims `podbench reproduce` tests.
// Nothing outside a model's folder names it.
//
//   PODBENCH_REGISTER_MODEL("ssd")
//       ->Plugin<SsdWorkload>()
//       ->Summary("MLPerf v0.6 SSD-ResNet34 on COCO, mAP target 0.23")
//       ->Modes({Mode::kFunctional, Mode::kProjected})
//       ->Presets({"google-v0.6", "functional"})
//       ->ScoredRuns(5)
//       ->Zoo("SSD-ResNet34, 300x300, 8732 anchors, 81 classes", "<where its counts come from>")
//       ->Calibration(...)->Claims(...);
//
// A model with a workload prices its zoo entry through the workload's
// ProjectedStep at a preset's resolved hyperparameters, the same function
// its projected runs price, so `podbench model M --preset P` and `podbench
// run M --mode projected --preset P` price one step. A model without a
// workload yet (Mask R-CNN, MiniGo) gives its graph and a preset
// function instead (ZooGraph).
//
// The registration file is the PLUGIN of the model folder's podbench_model()
// call (workloads/CMakeLists.txt), built as an OBJECT library that
// podbench_models links whole, so the linker keeps it.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "topology/system.h"
#include "workloads/claims.h"
#include "workloads/projection/calibration.h"
#include "workloads/projection/projected_run.h"
#include "workloads/workload.h"

namespace podbench::workloads {

class ModelRegistration {
 public:
  using Factory = std::function<std::unique_ptr<Workload>()>;
  using GraphFn = projection::ModelGraph (*)();
  // The step configuration `preset` sets on the slice `slice` of
  // `slice_cores` cores: NotFound for an unknown preset, InvalidArgument for
  // a slice it has no values for.
  using StepPresetFn = Result<projection::StepConfig> (*)(std::string_view preset, std::string_view slice,
                                                          int64_t slice_cores);

  explicit ModelRegistration(std::string name) : name_(std::move(name)) {}

  // Chained configuration.
  // The workload plugin (a Workload with a default constructor).
  template <typename W>
  ModelRegistration* Plugin() {
    factory_ = [] { return std::unique_ptr<Workload>(new W()); };
    return this;
  }
  ModelRegistration* Plugin(Factory f) {
    factory_ = std::move(f);
    return this;
  }
  // One line, listed by `podbench run --help`.
  ModelRegistration* Summary(std::string s) { summary_ = std::move(s); return this; }
  ModelRegistration* Modes(std::vector<Mode> m) { modes_ = std::move(m); return this; }
  // The names Workload::Preset accepts (and, for a model without a
  // workload, its StepPresetFn); `--preset` refuses any other, listing these.
  ModelRegistration* Presets(std::vector<std::string> p) { presets_ = std::move(p); return this; }
  // Runs a scored result needs (v0.6: 5 for vision, 10 for translation and MiniGo).
  ModelRegistration* ScoredRuns(int n) { scored_runs_ = n; return this; }
  // The model's `podbench model` entry: a one-line description of its
  // full-size graph and where the published parameter count and FLOPs it is
  // tested against come from.
  ModelRegistration* Zoo(std::string description, std::string source) {
    zoo_description_ = std::move(description);
    zoo_source_ = std::move(source);
    return this;
  }
  // A model without a workload: its full-size graph (deterministic) and its
  // presets' step configurations.
  ModelRegistration* ZooGraph(GraphFn graph, StepPresetFn preset) {
    graph_ = graph;
    step_preset_ = preset;
    return this;
  }
  // The published figures `podbench calibrate` fits the system file to
  // (priced with `preset` on each point's slice).
  ModelRegistration* Calibration(std::string preset, std::vector<projection::CalibrationPoint> points) {
    calibration_preset_ = std::move(preset);
    calibration_ = std::move(points);
    return this;
  }
  ModelRegistration* Claims(std::vector<ClaimSpec> claims) {
    for (ClaimSpec& c : claims) {
      if (c.workload.empty()) c.workload = name_;
    }
    claims_ = std::move(claims);
    return this;
  }

  const std::string& name() const { return name_; }
  bool has_workload() const { return static_cast<bool>(factory_); }
  // REQUIRES: has_workload().
  std::unique_ptr<Workload> Create() const { return factory_(); }
  const std::string& summary() const { return summary_; }
  const std::vector<std::string>& presets() const { return presets_; }
  bool HasPreset(std::string_view preset) const;
  int scored_runs() const { return scored_runs_; }
  bool Supports(Mode m) const;
  // In `podbench model`: a full-size graph (from the workload's projected
  // mode, or ZooGraph).
  bool in_zoo() const { return !zoo_description_.empty(); }
  const std::string& zoo_description() const { return zoo_description_; }
  const std::string& zoo_source() const { return zoo_source_; }
  const std::string& calibration_preset() const { return calibration_preset_; }
  const std::vector<projection::CalibrationPoint>& calibration() const { return calibration_; }
  const std::vector<ClaimSpec>& claims() const { return claims_; }

  // The step `preset` sets on `slice` (the zoo entry `podbench model`
  // prices). With a workload: its ProjectedStep at the preset's resolved
  // hyperparameters (PresetHyperparameters); else the ZooGraph. NotFound for an unknown preset (the
  // message lists the model's presets); InvalidArgument for a slice the
  // preset has no values for; FailedPrecondition for a model outside the zoo.
  Result<projection::StepSpec> ZooStep(std::string_view preset, const SliceInfo& slice) const;

 private:
  std::string name_;
  Factory factory_;
  std::string summary_;
  std::vector<Mode> modes_ = {Mode::kFunctional, Mode::kProjected};
  std::vector<std::string> presets_;
  int scored_runs_ = 5;
  std::string zoo_description_, zoo_source_;
  GraphFn graph_ = nullptr;
  StepPresetFn step_preset_ = nullptr;
  std::string calibration_preset_;
  std::vector<projection::CalibrationPoint> calibration_;
  std::vector<ClaimSpec> claims_;
};

// Adds a model to the static registry. REQUIRES: a unique name (asserted).
ModelRegistration* RegisterModel(std::string name);
// nullptr when no model has this name.
const ModelRegistration* FindModel(std::string_view name);
// Every registered model, sorted by name.
std::vector<const ModelRegistration*> AllModels();
// The models with a workload plugin (podbench run), sorted by name; and the
// one named so, or nullptr.
std::vector<const ModelRegistration*> AllWorkloads();
const ModelRegistration* FindWorkload(std::string_view name);
// The workload named `name`, or InvalidArgument "unknown workload 'name'
// (available: ...)" listing AllWorkloads.
Result<const ModelRegistration*> WorkloadNamed(std::string_view name);
// The models in the zoo (`podbench model`), sorted by name.
std::vector<const ModelRegistration*> ZooModels();

// A ZooGraph function from a graph builder taking its options: the graph at
// the default options (`Build(Options{})`), or an empty graph, which the
// registry's tests refuse, should the defaults ever fail.
template <auto Build>
projection::ModelGraph GraphAtDefaults() {
  auto g = Build({});
  return g.ok() ? std::move(g).value() : projection::ModelGraph{};
}

// The values `preset` sets for `workload` (`model`'s) on `slice`
// (Workload::Preset); none for an empty `preset`. NotFound naming the
// model's presets when `preset` is not one of them; the workload's errors.
Result<std::map<std::string, HpValue>> PresetValues(const ModelRegistration& model, const Workload& workload,
                                                    std::string_view preset, const SliceInfo& slice);
// Every slice of `system`'s pod ("tpu-v3-8" ...), smallest first.
std::vector<SliceInfo> PodSlices(const topology::SystemSpec& system);
// Of `slices`, in their order, those on which `model`'s `preset` has values
// (PresetValues accepts them). REQUIRES: model.has_workload().
std::vector<SliceInfo> PresetSlices(const ModelRegistration& model, std::string_view preset,
                                    const std::vector<SliceInfo>& slices);

// A run's hyperparameters as `podbench run --preset P --set ...` resolves
// them: the workload's defaults, then PresetValues, then `sets`, checked.
Result<Hyperparameters> PresetHyperparameters(const ModelRegistration& model, const Workload& workload,
                                              std::string_view preset, const SliceInfo& slice,
                                              const std::vector<std::string>& sets = {});

// Ok when `model` lists `preset`; otherwise PresetNotFound naming its
// presets (what PresetValues and `podbench scaling --preset` refuse).
Status CheckPreset(const ModelRegistration& model, std::string_view preset);

// For preset functions, so every model's presets keep the StepPresetFn
// contract. NotFound naming the model's presets when `preset` is not one of
// them; InvalidArgument naming the slices a preset has values for.
Status PresetNotFound(std::string_view model, std::string_view preset, const std::vector<std::string>& presets);
Status PresetHasNoSlice(std::string_view model, std::string_view preset, std::string_view slice,
                        const std::vector<std::string_view>& slices);
// `config` if its layout passes ParallelLayout::Validate on `slice_cores`,
// else that error prefixed with the model, preset and slice.
Result<projection::StepConfig> CheckedPreset(std::string_view model, std::string_view preset, std::string_view slice,
                                             int64_t slice_cores, projection::StepConfig config);

// The row of a preset's per-slice table (rows with `slice` and `cores`) for
// `slice`. InvalidArgument when the table has no such slice, or when its
// cores differ from `slice_cores`.
template <typename Row>
Result<const Row*> FindSliceRow(std::string_view model, std::string_view preset, const std::vector<Row>& rows,
                                std::string_view slice, int64_t slice_cores) {
  std::vector<std::string_view> slices;
  for (const Row& r : rows) {
    if (r.slice == slice) {
      if (r.cores != slice_cores) {
        return Status::InvalidArgument(std::string(model) + " preset '" + std::string(preset) + "': " +
                                       std::string(slice) + " has " + std::to_string(r.cores) + " cores, not " +
                                       std::to_string(slice_cores));
      }
      return &r;
    }
    slices.push_back(r.slice);
  }
  return PresetHasNoSlice(model, preset, slice, slices);
}

}  // namespace podbench::workloads

#define PODBENCH_MODEL_CONCAT_(a, b) a##b
#define PODBENCH_MODEL_CONCAT(a, b) PODBENCH_MODEL_CONCAT_(a, b)
// Registers a model under `name`; evaluates to its ModelRegistration* for
// chained configuration.
#define PODBENCH_REGISTER_MODEL(name)                                   \
  [[maybe_unused]] static ::podbench::workloads::ModelRegistration*     \
      PODBENCH_MODEL_CONCAT(podbench_model_registration_, __LINE__) =   \
          ::podbench::workloads::RegisterModel(name)
// Shorthand for a model that is a workload plugin `Class` (test workloads,
// the toy): PODBENCH_REGISTER_MODEL(name)->Plugin<Class>().
#define PODBENCH_REGISTER_WORKLOAD(name, Class) PODBENCH_REGISTER_MODEL(name)->Plugin<Class>()
