#include "workloads/model_zoo.h"

#include <algorithm>

#include "workloads/gnmt/gnmt_graph.h"
#include "workloads/maskrcnn/maskrcnn_graph.h"
#include "workloads/minigo/minigo_graph.h"
#include "workloads/resnet/resnet_graph.h"
#include "workloads/ssd/ssd_graph.h"
#include "workloads/transformer/transformer_graph.h"

namespace podbench::workloads {

const std::vector<ModelEntry>& AllModels() {
  static const std::vector<ModelEntry> models = [] {
    // One line per model: its entry function, declared in its folder's
    // header (e.g. ssd::SsdModel() in workloads/ssd/ssd_graph.h).
    std::vector<ModelEntry> m;
    m.push_back(gnmt::GnmtModel());
    m.push_back(maskrcnn::MaskRcnnModel());
    m.push_back(minigo::MiniGoModel());
    m.push_back(ssd::SsdModel());
    m.push_back(transformer::TransformerModel());
    m.push_back({"resnet", "ResNet-50 v1.5, 224x224, 1000 classes",
                 "25,557,032 parameters and 4.09 GMAC per image: He et al. 2016 (arXiv:1512.03385), MLPerf "
                 "v0.6 reference (v1.5: stride on the 3x3 convolution)",
                 &resnet::ResNet50Graph, &resnet::ResNetPreset, {"google-v0.6"}});
    std::sort(m.begin(), m.end(), [](const ModelEntry& a, const ModelEntry& b) { return a.name < b.name; });
    return m;
  }();
  return models;
}

Status PresetNotFound(std::string_view model, std::string_view preset, const std::vector<std::string>& presets) {
  std::string known;
  for (const std::string& p : presets) known += (known.empty() ? "" : ", ") + p;
  return Status::NotFound(std::string(model) + " has no preset '" + std::string(preset) + "' (presets: " + known + ")");
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

const ModelEntry* FindModel(std::string_view name) {
  for (const ModelEntry& m : AllModels()) {
    if (m.name == name) return &m;
  }
  return nullptr;
}

}  // namespace podbench::workloads
