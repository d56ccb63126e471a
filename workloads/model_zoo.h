// The full-size MLPerf v0.6 models podbench knows, by their v0.6
// submission_benchmark names ("resnet", "ssd", "maskrcnn", "transformer",
// "gnmt", "minigo"): each one's graph and the step configurations its
// presets set per slice. `podbench model` lists and prices them; projected
// workloads build their graphs from here.
//
// The list is explicit (model_zoo.cc names every model's entry function), so
// adding a model is one line there and nothing depends on link order.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "workloads/projection/graph.h"
#include "workloads/projection/layout.h"

namespace podbench::workloads {

struct ModelEntry {
  std::string name;     // the v0.6 submission_benchmark value
  std::string summary;  // one line, e.g. "SSD-ResNet34, 300x300, 8732 anchors, 81 classes"
  // Where the published parameter count and FLOPs the graph is tested
  // against come from.
  std::string source;
  // The full-size graph. REQUIRES: deterministic (same graph every call).
  projection::ModelGraph (*graph)() = nullptr;
  // The step configuration `preset` sets on the slice named `slice` with
  // `slice_cores` cores. NotFound for a preset the model does not have;
  // InvalidArgument for a slice the preset has no values for (the message
  // lists the slices it has).
  Result<projection::StepConfig> (*preset)(std::string_view preset, std::string_view slice,
                                           int64_t slice_cores) = nullptr;
  std::vector<std::string> presets;  // the names `preset` accepts
};

// For preset functions, so every model's presets keep the contract above.
// NotFound naming the model's presets when `preset` is not one of them.
Status PresetNotFound(std::string_view model, std::string_view preset, const std::vector<std::string>& presets);
// InvalidArgument naming the slices a preset has values for.
Status PresetHasNoSlice(std::string_view model, std::string_view preset, std::string_view slice,
                        const std::vector<std::string_view>& slices);
// `config` if its layout passes ParallelLayout::Validate on `slice_cores`,
// else that error prefixed with the model, preset and slice (a preset table
// must never hand the harness a layout it refuses).
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

// Every model, sorted by name.
const std::vector<ModelEntry>& AllModels();
// nullptr for an unknown name.
const ModelEntry* FindModel(std::string_view name);

}  // namespace podbench::workloads
