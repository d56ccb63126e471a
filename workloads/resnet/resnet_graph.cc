#include "workloads/resnet/resnet_graph.h"

#include <string>

#include "workloads/resnet/google_v06.h"

namespace podbench::resnet {

namespace {

using projection::ConvAttrs;
using projection::ElementwiseAttrs;
using projection::MatMulAttrs;
using projection::NormAttrs;
using projection::Op;
using projection::Param;
using projection::PoolAttrs;
using projection::SoftmaxXentAttrs;

Param MakeParam(std::string name, std::vector<int64_t> shape, bool norm_or_bias) {
  Param p;
  p.name = std::move(name);
  p.shape = std::move(shape);
  p.norm_or_bias = norm_or_bias;
  return p;
}

// The op of layer `l` (and its parameters, appended to `params`).
Op OpOf(const Layer& l, bool first, std::vector<Param>& params) {
  Op op;
  op.name = l.name;
  switch (l.kind) {
    case LayerKind::kConv: {
      ConvAttrs c;
      c.h = l.in_h;
      c.w = l.in_w;
      c.c = l.in_c;
      c.oc = l.out_c;
      c.kh = c.kw = l.kernel;
      c.stride = l.stride;
      c.pad = l.pad;
      op.attrs = c;
      op.params = {l.name + ".kernel"};
      params.push_back(MakeParam(op.params[0], {l.kernel, l.kernel, l.in_c, l.out_c}, false));
      break;
    }
    case LayerKind::kBatchNorm: {
      NormAttrs n;
      n.kind = NormAttrs::kBatch;
      n.rows = int64_t{l.out_h} * l.out_w;
      n.channels = l.out_c;
      op.attrs = n;
      op.fused = true;
      op.params = {l.name + ".gamma", l.name + ".beta"};
      for (const std::string& p : op.params) params.push_back(MakeParam(p, {l.out_c}, true));
      break;
    }
    case LayerKind::kRelu:
    case LayerKind::kAdd: {
      ElementwiseAttrs e;
      e.elements = l.out_elems();
      e.ops_per_element = 1;
      e.inputs = l.kind == LayerKind::kAdd ? 2 : 1;
      // The residual add's gradient fans out to both inputs unchanged.
      if (l.kind == LayerKind::kAdd) e.backward_ops_per_element = 0;
      op.attrs = e;
      op.fused = true;
      break;
    }
    case LayerKind::kMaxPool:
    case LayerKind::kAvgPool: {
      PoolAttrs p;
      p.kind = l.kind == LayerKind::kMaxPool ? PoolAttrs::kMax : PoolAttrs::kAvg;
      p.h = l.in_h;
      p.w = l.in_w;
      p.c = l.in_c;
      p.k = l.kernel;
      p.stride = l.kind == LayerKind::kMaxPool ? l.stride : 1;
      p.pad = l.pad;
      op.attrs = p;
      break;
    }
    case LayerKind::kDense: {
      MatMulAttrs m;
      m.m = 1;
      m.k = l.in_c;
      m.n = l.out_c;
      m.bias = true;
      op.attrs = m;
      op.params = {l.name + ".kernel", l.name + ".bias"};
      params.push_back(MakeParam(op.params[0], {l.in_c, l.out_c}, false));
      params.push_back(MakeParam(op.params[1], {l.out_c}, true));
      break;
    }
    case LayerKind::kSoftmaxXent: {
      SoftmaxXentAttrs x;
      x.rows = 1;
      x.classes = l.in_c;
      op.attrs = x;
      break;
    }
  }
  // The input images need no gradient.
  if (first) op.needs_input_grad = false;
  return op;
}

}  // namespace

projection::ModelGraph ResNetGraph(const ResNetConfig& cfg) {
  projection::ModelGraph g;
  g.name = "resnet";
  const std::string side = std::to_string(cfg.image_size);
  const bool full = cfg.image_size == 224 && cfg.width == 64 && cfg.blocks == ResNetConfig::ResNet50().blocks &&
                    cfg.num_classes == 1000;
  g.description = (full ? std::string("ResNet-50 v1.5") : std::string("ResNet v1.5 (functional size)")) + ", " +
                  side + "x" + side + "x3, " + std::to_string(cfg.num_classes) + " classes";
  g.example_unit = "image " + side + "x" + side;
  const std::vector<Layer> layers = BuildResNet(cfg);
  for (size_t i = 0; i < layers.size(); ++i) {
    Op op = OpOf(layers[i], i == 0, g.params);
    if (layers[i].kind != LayerKind::kSoftmaxXent) g.eval.push_back(op);
    g.train.push_back(std::move(op));
  }
  // bf16 image after the host's cast, int32 label; fp32 logits and label back.
  const double pixels = double(cfg.image_size) * double(cfg.image_size);
  g.host.infeed_bytes = pixels * 3 * 2 + 4;
  // The stored JPEG a host decodes to fill a decoded-image cache: ImageNet's
  // training JPEGs average 107.5 KB (ILSVRC2012_img_train.tar, 138 GB for
  // 1,281,167 images), scaled by pixels for another side.
  g.host.decode_bytes = 107500.0 * pixels / (224.0 * 224.0);
  g.host.outfeed_bytes = double(cfg.num_classes) * 4 + 4;
  g.host.score_ops = cfg.num_classes;  // host 0's argmax over the logits
  g.host.scoring_processes = 1;
  return g;
}

projection::ModelGraph ResNet50Graph() { return ResNetGraph(ResNetConfig::ResNet50()); }

}  // namespace podbench::resnet
