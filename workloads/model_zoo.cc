#include "workloads/model_zoo.h"

#include <algorithm>

namespace podbench::workloads {

const std::vector<ModelEntry>& AllModels() {
  static const std::vector<ModelEntry> models = [] {
    // One line per model: its entry function, declared in its folder's
    // header (e.g. ssd::SsdModel() in workloads/ssd/ssd_graph.h).
    std::vector<ModelEntry> m;
    std::sort(m.begin(), m.end(), [](const ModelEntry& a, const ModelEntry& b) { return a.name < b.name; });
    return m;
  }();
  return models;
}

const ModelEntry* FindModel(std::string_view name) {
  for (const ModelEntry& m : AllModels()) {
    if (m.name == name) return &m;
  }
  return nullptr;
}

}  // namespace podbench::workloads
