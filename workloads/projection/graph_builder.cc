#include "workloads/projection/graph_builder.h"

#include <utility>

namespace podbench::projection {

int64_t WindowOut(int64_t in, int64_t k, int64_t stride, int64_t pad) { return (in + 2 * pad - k) / stride + 1; }

std::string OpWriter::Param(const std::string& name, std::vector<int64_t> shape, bool norm_or_bias,
                            bool sparse_gradient) {
  const int i = graph_->FindParam(name);
  if (i >= 0) {
    const projection::Param& p = graph_->params[static_cast<size_t>(i)];
    if (p.shape == shape && p.trainable == trainable && p.norm_or_bias == norm_or_bias &&
        p.sparse_gradient == sparse_gradient) {
      return name;
    }
  }
  projection::Param p;
  p.name = name;
  p.shape = std::move(shape);
  p.trainable = trainable;
  p.norm_or_bias = norm_or_bias;
  p.sparse_gradient = sparse_gradient;
  graph_->params.push_back(std::move(p));
  return name;
}

Op& OpWriter::Add(const std::string& name, OpAttrs attrs, std::vector<std::string> params) {
  Op op;
  op.name = name;
  op.attrs = std::move(attrs);
  op.dtype = defaults.dtype;
  op.instances = defaults.instances;
  op.sequential_steps = defaults.sequential_steps;
  op.params = std::move(params);
  op.needs_input_grad = defaults.needs_input_grad;
  op.placement = defaults.placement;
  op.pinned_core = defaults.pinned_core;
  ops_->push_back(std::move(op));
  return ops_->back();
}

FeatureMap OpWriter::Conv(const std::string& name, FeatureMap in, int64_t oc, int64_t k, int64_t stride,
                          int64_t pad, bool bias, const std::string& params_as) {
  const std::string& p = params_as.empty() ? name : params_as;
  ConvAttrs a;
  a.h = in.h;
  a.w = in.w;
  a.c = in.c;
  a.oc = oc;
  a.kh = a.kw = k;
  a.stride = stride;
  a.pad = pad;
  a.bias = bias;
  std::vector<std::string> params = {Param(p + "/kernel", {k, k, in.c, oc})};
  if (bias) params.push_back(Param(p + "/bias", {oc}, /*norm_or_bias=*/true));
  Add(name, a, std::move(params));
  return FeatureMap{a.OutH(), a.OutW(), oc};
}

FeatureMap OpWriter::ConvTranspose(const std::string& name, FeatureMap in, int64_t oc, int64_t k) {
  ConvAttrs a;
  a.h = in.h;
  a.w = in.w;
  a.c = in.c;
  a.oc = oc;
  a.kh = a.kw = k;
  a.stride = k;
  a.bias = true;
  a.transposed = true;
  // A transposed kernel is stored [kh, kw, out, in] (TF's conv2d_transpose).
  Add(name, a, {Param(name + "/kernel", {k, k, oc, in.c}), Param(name + "/bias", {oc}, /*norm_or_bias=*/true)});
  return FeatureMap{a.OutH(), a.OutW(), oc};
}

FeatureMap OpWriter::ConvBn(const std::string& name, FeatureMap in, int64_t oc, int64_t k, int64_t stride,
                            int64_t pad, bool relu) {
  const FeatureMap out = Conv(name, in, oc, k, stride, pad, /*bias=*/false);
  BatchNorm(name + ".bn", out);
  if (relu) Fused(name + ".relu", out.elements(), 1);
  return out;
}

void OpWriter::BatchNorm(const std::string& name, FeatureMap in, bool scale_and_center) {
  NormAttrs a;
  a.kind = NormAttrs::kBatch;
  a.rows = in.h * in.w;
  a.channels = in.c;
  a.scale = a.center = scale_and_center;
  a.frozen = frozen_norms;
  std::vector<std::string> params;
  if (scale_and_center) {
    const bool saved = trainable;
    trainable = trainable && train_norms;
    params = {Param(name + "/gamma", {in.c}, /*norm_or_bias=*/true), Param(name + "/beta", {in.c}, true)};
    trainable = saved;
  }
  Add(name, a, std::move(params)).fused = true;
}

void OpWriter::LayerNorm(const std::string& name, int64_t rows, int64_t channels) {
  NormAttrs a;
  a.kind = NormAttrs::kLayer;
  a.rows = rows;
  a.channels = channels;
  Add(name, a, {Param(name + "/gamma", {channels}, /*norm_or_bias=*/true), Param(name + "/beta", {channels}, true)})
      .fused = true;
}

Op& OpWriter::Dense(const std::string& name, int64_t m, int64_t k, int64_t n, bool bias) {
  std::vector<std::string> params = {Param(name + "/kernel", {k, n})};
  if (bias) params.push_back(Param(name + "/bias", {n}, /*norm_or_bias=*/true));
  return Add(name, MatMulAttrs{m, k, n, bias}, std::move(params));
}

void OpWriter::Fused(const std::string& name, int64_t elements, double ops_per_element, int64_t inputs) {
  Add(name, ElementwiseAttrs{elements, ops_per_element, inputs}).fused = true;
}

Op& OpWriter::Elementwise(const std::string& name, int64_t elements, double ops_per_element, int64_t inputs) {
  return Add(name, ElementwiseAttrs{elements, ops_per_element, inputs});
}

FeatureMap OpWriter::Pool(const std::string& name, PoolAttrs::Kind kind, FeatureMap in, int64_t k, int64_t stride,
                          int64_t pad) {
  PoolAttrs a;
  a.kind = kind;
  a.h = in.h;
  a.w = in.w;
  a.c = in.c;
  a.k = k;
  a.stride = stride;
  a.pad = pad;
  Add(name, a);
  return FeatureMap{WindowOut(in.h, k, stride, pad), WindowOut(in.w, k, stride, pad), in.c};
}

}  // namespace podbench::projection
