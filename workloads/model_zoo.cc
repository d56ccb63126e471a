#include "workloads/model_zoo.h"

#include <algorithm>

#include "workloads/resnet/resnet_graph.h"

namespace podbench::workloads {

const std::vector<ModelEntry>& AllModels() {
  static const std::vector<ModelEntry> models = [] {
    // One line per model: its entry function, declared in its folder's
    // header (e.g. ssd::SsdModel() in workloads/ssd/ssd_graph.h).
    std::vector<ModelEntry> m;
    m.push_back({"resnet", "ResNet-50 v1.5, 224x224, 1000 classes",
                 "25,557,032 parameters and 4.09 GMAC per image: He et al. 2016 (arXiv:1512.03385), MLPerf "
                 "v0.6 reference (v1.5: stride on the 3x3 convolution)",
                 &resnet::ResNet50Graph, &resnet::ResNetPreset, {"google-v0.6"}});
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
