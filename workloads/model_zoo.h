// The full-size MLPerf v0.6 models podbench knows, by their v0.6
// submission_benchmark names ("resnet", "ssd", "maskrcnn", "transformer",
// "gnmt", "minigo"): each one's graph and the step configurations its
// presets set per slice. `podbench model` lists and prices them; projected
// workloads build their graphs from here.
//
// The list is explicit (model_zoo.cc names every model's entry function), so
// adding a model is one line there and nothing depends on link order.
#pragma once

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

// Every model, sorted by name.
const std::vector<ModelEntry>& AllModels();
// nullptr for an unknown name.
const ModelEntry* FindModel(std::string_view name);

}  // namespace podbench::workloads
