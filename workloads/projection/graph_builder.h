// Writing a ModelGraph: the helpers every model's graph builder
// (ssd/ssd_graph.cc, transformer/transformer_graph.cc, ...) uses to append ops
// to a list and declare the parameter tensors they read, so that naming,
// parameter shapes and the fused/frozen conventions are one piece of code.
//
// Conventions the layer helpers follow:
//   - parameters are named "<op name>/<role>": a convolution's kernel
//     [kh, kw, c, oc] and bias [oc], a dense layer's kernel [k, n] and bias
//     [n], a norm's "gamma" and "beta" [channels];
//   - norms, activations, residual adds and dropout are fused (they consume an
//     MXU op's output: XLA fuses them into its output stream, as the ResNet
//     projection has always priced them);
//   - batch norms run in inference mode (NormAttrs::frozen) when the writer's
//     `frozen_norms` is set: an eval list, or Mask R-CNN's frozen BN.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "workloads/projection/graph.h"

namespace podbench::projection {

// A feature map of one example: h x w x c (NHWC without the batch).
struct FeatureMap {
  int64_t h = 1, w = 1, c = 1;
  int64_t elements() const { return h * w * c; }
};

// What every op appended from now on takes unless the caller changes the
// returned Op.
struct OpDefaults {
  DType dtype = DType::kBf16;
  int64_t instances = 1;
  int64_t sequential_steps = 1;
  Placement placement = Placement::kSplit;
  int64_t pinned_core = 0;
  bool needs_input_grad = true;
};

class OpWriter {
 public:
  // Appends to `ops` (graph->train or graph->eval) and declares parameters in
  // `graph`. REQUIRES: both outlive the writer.
  OpWriter(ModelGraph* graph, std::vector<Op>* ops) : graph_(graph), ops_(ops) {}

  OpDefaults defaults;
  bool trainable = true;      // parameters declared from now on
  bool frozen_norms = false;  // batch norms appended from now on are in inference mode
  bool train_norms = true;    // false: their scale and shift are declared frozen (Mask R-CNN)

  // Declares a parameter and returns its name. Declaring a name again with the
  // same shape is the same tensor (a shared weight, or the eval list reading a
  // training weight); with another shape it is appended again, which the
  // zoo's duplicate-name check reports.
  std::string Param(const std::string& name, std::vector<int64_t> shape, bool norm_or_bias = false,
                    bool sparse_gradient = false);

  // Appends an op with the defaults. The reference is valid until the next
  // append.
  Op& Add(const std::string& name, OpAttrs attrs, std::vector<std::string> params = {});

  // A convolution of `in`: kernel k x k, padding `pad` on each side.
  // Declares "<params_as>/kernel" and, with bias, "<params_as>/bias";
  // `params_as` defaults to `name` (a shared head names its own).
  FeatureMap Conv(const std::string& name, FeatureMap in, int64_t oc, int64_t k, int64_t stride, int64_t pad,
                  bool bias, const std::string& params_as = "");
  // A transposed convolution (k x k, stride k) with bias.
  FeatureMap ConvTranspose(const std::string& name, FeatureMap in, int64_t oc, int64_t k);
  // A convolution without bias, its batch norm "<name>.bn" and, with relu,
  // a fused ReLU "<name>.relu": the unit of ResNet-style networks.
  FeatureMap ConvBn(const std::string& name, FeatureMap in, int64_t oc, int64_t k, int64_t stride, int64_t pad,
                    bool relu);
  // Batch norm over in.h*in.w rows, with "<name>/gamma" and "<name>/beta"
  // unless !scale_and_center (MiniGo's heads).
  void BatchNorm(const std::string& name, FeatureMap in, bool scale_and_center = true);
  // Layer norm over `rows` x `channels`, with gamma and beta.
  void LayerNorm(const std::string& name, int64_t rows, int64_t channels);
  // [m, k] x [k, n]; declares "<name>/kernel" [k, n] and, with bias, "<name>/bias".
  Op& Dense(const std::string& name, int64_t m, int64_t k, int64_t n, bool bias);
  // A fused elementwise op (activation, residual add, dropout).
  void Fused(const std::string& name, int64_t elements, double ops_per_element, int64_t inputs = 1);
  // An elementwise op of its own (losses, masks, selections).
  Op& Elementwise(const std::string& name, int64_t elements, double ops_per_element, int64_t inputs = 1);
  // Max or average pooling, window k at `stride` with `pad` on each side.
  FeatureMap Pool(const std::string& name, PoolAttrs::Kind kind, FeatureMap in, int64_t k, int64_t stride,
                  int64_t pad);

 private:
  ModelGraph* graph_;
  std::vector<Op>* ops_;
};

// Output size of a window `k` at `stride` with `pad` on each side.
int64_t WindowOut(int64_t in, int64_t k, int64_t stride, int64_t pad);

}  // namespace podbench::projection
