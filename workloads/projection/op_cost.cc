#include "workloads/projection/op_cost.h"

#include <algorithm>
#include <type_traits>

#include <fmt/format.h>

namespace podbench::projection {

Category BoundCategory(const kernels::OpCost& c) {
  if (c.mxu_s >= c.vector_s && c.mxu_s >= c.hbm_s) return Category::kMxu;
  return c.vector_s >= c.hbm_s ? Category::kVector : Category::kHbm;
}

namespace {

using kernels::OpCost;

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

int64_t PoolOutH(const PoolAttrs& p) { return (p.h + 2 * p.pad - p.k) / p.stride + 1; }
int64_t PoolOutW(const PoolAttrs& p) { return (p.w + 2 * p.pad - p.k) / p.stride + 1; }
bool GlobalPool(const PoolAttrs& p) { return p.k >= p.h && p.k >= p.w; }

// Input rows that give `out_rows` output rows of a window `k` at `stride`
// with padding `pad` on each side (at least 1).
int64_t InputRowsFor(int64_t out_rows, int64_t k, int64_t stride, int64_t pad) {
  return std::max<int64_t>(1, (out_rows - 1) * stride + k - 2 * pad);
}

kernels::Conv2dShape ConvShape(const ConvAttrs& c, int64_t n) {
  kernels::Conv2dShape s;
  s.n = n;
  s.h = c.h;
  s.w = c.w;
  s.c = c.c;
  s.oc = c.oc;
  s.kh = c.kh;
  s.kw = c.kw;
  s.stride = c.stride;
  s.pad = c.pad;
  return s;
}

// A fused op keeps its vector-unit work only.
OpCost FusedPart(const OpCost& c) {
  OpCost f;
  f.flops = c.flops;
  f.vector_s = c.vector_s;
  return f;
}

struct Pricer {
  const kernels::CoreSpec& core;
  const Op& op;
  int64_t n;  // examples x instances
  bool trains;
  double eb;
  OpPasses out;

  void Backward(const OpCost& c) {
    if (out.has_backward) {
      out.backward += c;
    } else {
      out.backward = c;
      out.has_backward = true;
    }
  }

  void operator()(const ConvAttrs& a) {
    const kernels::Conv2dShape s = ConvShape(a, n);
    if (a.transposed) {
      out.forward = kernels::Conv2dTransposeForwardCost(core, s, eb);
      if (op.needs_input_grad) Backward(kernels::Conv2dTransposeBackwardDataCost(core, s, eb));
      if (trains) Backward(kernels::Conv2dTransposeBackwardFilterCost(core, s, eb));
      return;
    }
    out.forward = kernels::Conv2dForwardCost(core, s, eb);
    if (op.needs_input_grad) Backward(kernels::Conv2dBackwardDataCost(core, s, eb));
    if (trains) Backward(kernels::Conv2dBackwardFilterCost(core, s, eb));
  }
  void operator()(const MatMulAttrs& a) {
    const int64_t rows = n * a.m;
    out.forward = kernels::MatMulCost(core, rows, a.n, a.k, eb);
    if (op.needs_input_grad) Backward(kernels::MatMulCost(core, rows, a.k, a.n, eb));
    if (trains) Backward(kernels::MatMulCost(core, a.k, a.n, rows, eb));
    // Two activations multiplied: the second operand's gradient too.
    if (op.params.empty() && op.needs_input_grad) Backward(kernels::MatMulCost(core, a.k, a.n, rows, eb));
  }
  void operator()(const AttentionAttrs& a) {
    kernels::AttentionCoreShape s;
    s.batch = n;
    s.heads = a.heads;
    s.tq = a.tq;
    s.tk = a.tk;
    s.head_dim = a.head_dim;
    s.causal = a.causal;
    s.additive = a.additive;
    // Sequential steps attend to the same keys and values (a decoder's
    // source): their gradients are summed over the steps.
    s.accumulate_kv_grads = op.sequential_steps > 1;
    out.forward = kernels::AttentionForwardCost(core, s, eb);
    if (op.needs_input_grad) Backward(kernels::AttentionBackwardCost(core, s, eb));
  }
  void operator()(const LstmAttrs& a) {
    kernels::LstmLoopShape s;
    s.batch = n;
    s.steps = a.steps;
    s.input = a.input;
    s.hidden = a.hidden;
    s.weight_grad_steps = a.weight_grad_steps;
    out.forward = kernels::LstmForwardCost(core, s, eb);
    if (trains || op.needs_input_grad) Backward(kernels::LstmBackwardCost(core, s, eb));
  }
  void operator()(const EmbeddingAttrs& a) {
    out.forward = kernels::EmbeddingForwardCost(core, n * a.tokens, a.dim, eb);
    if (trains) Backward(kernels::EmbeddingBackwardCost(core, n * a.tokens, a.dim, eb));
  }
  void operator()(const NormAttrs& a) {
    const int64_t rows = n * a.rows;
    if (a.kind == NormAttrs::kLayer) {
      out.forward = kernels::LayerNormForwardCost(core, rows, a.channels, eb);
      if (op.needs_input_grad || trains) Backward(kernels::LayerNormBackwardCost(core, rows, a.channels, eb));
    } else if (a.frozen) {
      out.forward = kernels::ElementwiseCost(core, rows * a.channels, 2, 2 * eb);
      if (op.needs_input_grad) Backward(kernels::ElementwiseCost(core, rows * a.channels, 1, 2 * eb));
    } else {
      out.forward = kernels::BatchNormForwardCost(core, rows, a.channels);
      if (op.needs_input_grad || trains) Backward(kernels::BatchNormBackwardCost(core, rows, a.channels));
    }
  }
  void operator()(const ElementwiseAttrs& a) {
    const int64_t e = n * a.elements;
    out.forward = kernels::ElementwiseCost(core, e, a.ops_per_element, double(a.inputs + 1) * eb);
    const double back = a.backward_ops_per_element < 0 ? a.ops_per_element : a.backward_ops_per_element;
    if (op.needs_input_grad && back > 0) {
      Backward(kernels::ElementwiseCost(core, e, back, double(a.inputs + 2) * eb));
    }
  }
  void operator()(const PoolAttrs& a) {
    const int64_t in = n * a.h * a.w * a.c, outn = n * PoolOutH(a) * PoolOutW(a) * a.c;
    out.forward = kernels::PoolForwardCost(core, in, outn, a.k * a.k, eb);
    if (op.needs_input_grad) Backward(kernels::PoolBackwardCost(core, in, outn, a.kind == PoolAttrs::kMax, eb));
  }
  void operator()(const SoftmaxXentAttrs& a) { out.forward = kernels::SoftmaxXentCost(core, n * a.rows, a.classes); }
  void operator()(const NmsAttrs& a) {
    kernels::NmsShape s;
    s.batch = n;
    s.boxes = a.boxes;
    s.classes = a.classes;
    s.pre_nms_top_k = a.pre_nms_top_k;
    s.max_detections = a.max_detections;
    out.forward = kernels::BoxDecodeNmsCost(core, s);
  }
  void operator()(const RoiAlignAttrs& a) {
    kernels::RoiAlignShape s;
    s.rois = n * a.rois;
    s.out = a.out;
    s.c = a.c;
    s.samples = a.samples;
    out.forward = kernels::RoiAlignForwardCost(core, s, eb);
    if (op.needs_input_grad) Backward(kernels::RoiAlignBackwardCost(core, s, eb));
  }
};

}  // namespace

Op CoreShare(const Op& op, int64_t k) {
  if (k <= 1) return op;
  Op s = op;
  std::visit(
      [&](auto& a) {
        using T = std::decay_t<decltype(a)>;
        if constexpr (std::is_same_v<T, ConvAttrs>) {
          if (a.transposed) {
            a.h = CeilDiv(a.h, k);
          } else {
            a.h = InputRowsFor(CeilDiv(a.OutH(), k), a.kh, a.stride, a.pad);
          }
        } else if constexpr (std::is_same_v<T, PoolAttrs>) {
          if (!GlobalPool(a)) a.h = InputRowsFor(CeilDiv(PoolOutH(a), k), a.k, a.stride, a.pad);
        } else if constexpr (std::is_same_v<T, NormAttrs>) {
          a.rows = CeilDiv(a.rows, k);
        } else if constexpr (std::is_same_v<T, ElementwiseAttrs>) {
          a.elements = CeilDiv(a.elements, k);
        } else if constexpr (std::is_same_v<T, MatMulAttrs>) {
          if (a.m >= k) a.m = CeilDiv(a.m, k);
        } else if constexpr (std::is_same_v<T, AttentionAttrs>) {
          a.tq = CeilDiv(a.tq, k);
        } else if constexpr (std::is_same_v<T, EmbeddingAttrs>) {
          a.tokens = CeilDiv(a.tokens, k);
        } else if constexpr (std::is_same_v<T, SoftmaxXentAttrs>) {
          a.rows = CeilDiv(a.rows, k);
        } else if constexpr (std::is_same_v<T, RoiAlignAttrs>) {
          a.rois = CeilDiv(a.rois, k);
        }
      },
      s.attrs);
  return s;
}

double SplitUsefulFraction(const Op& op, int64_t k) {
  if (k <= 1) return 1;
  int64_t rows = 0;
  if (const auto* c = std::get_if<ConvAttrs>(&op.attrs)) {
    rows = c->transposed ? c->h : c->OutH();
  } else if (const auto* p = std::get_if<PoolAttrs>(&op.attrs)) {
    if (!GlobalPool(*p)) rows = PoolOutH(*p);
  }
  if (rows < 1) return 1;
  return static_cast<double>(rows) / static_cast<double>(k * CeilDiv(rows, k));
}

HaloRows HaloRowsOf(const Op& op) {
  HaloRows h;
  if (const auto* c = std::get_if<ConvAttrs>(&op.attrs)) {
    h.forward = c->transposed ? std::max<int64_t>(0, (c->kh - c->stride + 1) / 2) : c->kh / 2;
    h.backward = c->transposed ? h.forward : CeilDiv(c->kh / 2, c->stride);
    h.forward_row_elements = c->w * c->c;
    h.backward_row_elements = c->OutW() * c->oc;
  } else if (const auto* p = std::get_if<PoolAttrs>(&op.attrs)) {
    if (p->k > 1 && !GlobalPool(*p)) {
      h.forward = p->k / 2;
      h.forward_row_elements = p->w * p->c;
    }
  }
  return h;
}

OpPasses PriceOp(const Op& op, int64_t examples, bool trains, const kernels::CoreSpec& core, bool honour_fusion) {
  Pricer p{core, op, examples * op.instances, trains, BytesOf(op.dtype), {}};
  std::visit(p, op.attrs);
  OpPasses out = p.out;
  if (op.sequential_steps > 1) {
    const double steps = static_cast<double>(op.sequential_steps);
    out.forward *= steps;
    out.backward *= steps;
  }
  if (honour_fusion && op.fused) {
    out.forward = FusedPart(out.forward);
    out.backward = FusedPart(out.backward);
  }
  return out;
}

std::string OpShape(const Op& op) {
  std::string s = std::visit(
      [](const auto& a) -> std::string {
        using T = std::decay_t<decltype(a)>;
        if constexpr (std::is_same_v<T, ConvAttrs>) {
          return fmt::format("{}x{}x{} -> {}x{}x{} k{}/{}{}{}", a.h, a.w, a.c, a.OutH(), a.OutW(), a.oc, a.kh,
                             a.stride, a.transposed ? " transposed" : "", a.space_to_depth ? " s2d" : "");
        } else if constexpr (std::is_same_v<T, MatMulAttrs>) {
          return fmt::format("[{}x{}] x [{}x{}]", a.m, a.k, a.k, a.n);
        } else if constexpr (std::is_same_v<T, AttentionAttrs>) {
          return fmt::format("{}h {}x{} d{}{}{}", a.heads, a.tq, a.tk, a.head_dim, a.causal ? " causal" : "",
                             a.additive ? " additive" : "");
        } else if constexpr (std::is_same_v<T, LstmAttrs>) {
          return fmt::format("{} steps {} -> {}{}", a.steps, a.input, a.hidden,
                             a.weight_grad_steps > 0 ? fmt::format(", dW over {}", a.weight_grad_steps) : "");
        } else if constexpr (std::is_same_v<T, EmbeddingAttrs>) {
          return fmt::format("{} of [{}x{}]", a.tokens, a.vocab, a.dim);
        } else if constexpr (std::is_same_v<T, NormAttrs>) {
          return fmt::format("{} {}x{}{}", a.kind == NormAttrs::kLayer ? "layer" : "batch", a.rows, a.channels,
                             a.frozen ? " frozen" : "");
        } else if constexpr (std::is_same_v<T, ElementwiseAttrs>) {
          return fmt::format("{} x {:g} op{}", a.elements, a.ops_per_element, a.inputs > 1 ? ", " + std::to_string(a.inputs) + " in" : "");
        } else if constexpr (std::is_same_v<T, PoolAttrs>) {
          return fmt::format("{} {}x{}x{} k{}/{}", a.kind == PoolAttrs::kMax ? "max" : "avg", a.h, a.w, a.c, a.k,
                             a.stride);
        } else if constexpr (std::is_same_v<T, SoftmaxXentAttrs>) {
          return fmt::format("{}x{}", a.rows, a.classes);
        } else if constexpr (std::is_same_v<T, NmsAttrs>) {
          return fmt::format("{} boxes x {} cl, top {} -> {}", a.boxes, a.classes, a.pre_nms_top_k,
                             a.max_detections);
        } else {
          return fmt::format("{} rois {}x{}x{} s{}", a.rois, a.out, a.out, a.c, a.samples);
        }
      },
      op.attrs);
  if (op.instances > 1) s += fmt::format(" x{}", op.instances);
  if (op.sequential_steps > 1) s += fmt::format(" x{} steps", op.sequential_steps);
  return s;
}

}  // namespace podbench::projection
