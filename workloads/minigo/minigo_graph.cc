#include "workloads/minigo/minigo_graph.h"

#include <string>
#include <utility>

#include "workloads/minigo/minigo_default_preset.h"
#include "workloads/projection/graph_builder.h"

namespace podbench::minigo {
namespace {

using projection::DType;
using projection::FeatureMap;
using projection::OpWriter;

constexpr int64_t kPolicyConvWidth = 2, kValueConvWidth = 1;

// The network up to the policy logits and the value.
void WriteNetwork(OpWriter& w, const MiniGoGraphOptions& o) {
  const int64_t n = o.board;
  w.defaults.needs_input_grad = false;  // the board features
  FeatureMap x = w.Conv("conv0", FeatureMap{n, n, o.input_planes}, o.conv_width, 3, 1, 1, /*bias=*/false);
  w.defaults.needs_input_grad = true;
  w.BatchNorm("conv0.bn", x);
  w.Fused("conv0.relu", x.elements(), 1);
  for (int64_t b = 0; b < o.trunk_layers; ++b) {
    const std::string name = "trunk.block" + std::to_string(b);
    FeatureMap y = w.ConvBn(name + ".conv1", x, o.conv_width, 3, 1, 1, /*relu=*/true);
    y = w.ConvBn(name + ".conv2", y, o.conv_width, 3, 1, 1, /*relu=*/false);
    w.Fused(name + ".add_relu", y.elements(), 2, 2);
    x = y;
  }
  FeatureMap p = w.Conv("policy.conv", x, kPolicyConvWidth, 1, 1, 0, false);
  w.BatchNorm("policy.bn", p, /*scale_and_center=*/false);
  w.Fused("policy.relu", p.elements(), 1);
  w.Dense("policy.fc", 1, p.elements(), n * n + 1, /*bias=*/true);

  FeatureMap v = w.Conv("value.conv", x, kValueConvWidth, 1, 1, 0, false);
  w.BatchNorm("value.bn", v, false);
  w.Fused("value.relu", v.elements(), 1);
  w.Dense("value.fc1", 1, v.elements(), o.fc_width, true);
  w.Fused("value.fc1.relu", o.fc_width, 1);
  w.Dense("value.fc2", 1, o.fc_width, 1, true);
  w.Fused("value.tanh", 1, 4);
}

Status Validate(const MiniGoGraphOptions& o) {
  const std::pair<const char*, int64_t> sizes[] = {{"board", o.board},
                                                   {"input_planes", o.input_planes},
                                                   {"conv_width", o.conv_width},
                                                   {"trunk_layers", o.trunk_layers},
                                                   {"fc_width", o.fc_width}};
  for (const auto& [name, v] : sizes) {
    if (v < 1) {
      return Status::InvalidArgument(std::string("minigo graph: ") + name + " " + std::to_string(v) + " must be >= 1");
    }
  }
  return Status::Ok();
}

}  // namespace

Result<projection::ModelGraph> BuildMiniGoGraph(const MiniGoGraphOptions& o) {
  PODBENCH_RETURN_IF_ERROR(Validate(o));
  projection::ModelGraph g;
  g.name = "minigo";
  const std::string board = std::to_string(o.board) + "x" + std::to_string(o.board);
  g.description = "MiniGo " + board + ", " + std::to_string(o.trunk_layers) + " residual blocks of " +
                  std::to_string(o.conv_width) + ", policy and value heads";
  g.example_unit = "board position " + board + "x" + std::to_string(o.input_planes);

  const int64_t moves = o.board * o.board + 1;
  OpWriter train(&g, &g.train);
  WriteNetwork(train, o);
  train.defaults.dtype = DType::kF32;
  train.Add("loss.policy", projection::SoftmaxXentAttrs{1, moves});
  train.Elementwise("loss.value", 1, 3, 2);  // weighted squared error

  OpWriter eval(&g, &g.eval);
  eval.frozen_norms = true;
  WriteNetwork(eval, o);
  eval.defaults.dtype = DType::kF32;
  eval.Elementwise("policy.softmax", moves, 4);
  return g;
}

}  // namespace podbench::minigo
