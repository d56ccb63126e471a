#include "workloads/projection/graph.h"

#include <set>

namespace podbench::projection {

const char* DTypeName(DType d) {
  switch (d) {
    case DType::kBf16: return "bf16";
    case DType::kF32: return "fp32";
    case DType::kInt32: return "int32";
  }
  return "?";
}

double BytesOf(DType d) { return d == DType::kBf16 ? 2.0 : 4.0; }

const char* OpKindName(OpKind k) {
  switch (k) {
    case OpKind::kConv2d: return "conv2d";
    case OpKind::kMatMul: return "matmul";
    case OpKind::kAttention: return "attention";
    case OpKind::kLstm: return "lstm";
    case OpKind::kEmbedding: return "embedding";
    case OpKind::kNorm: return "norm";
    case OpKind::kElementwise: return "elementwise";
    case OpKind::kPool: return "pool";
    case OpKind::kSoftmaxXent: return "softmax_xent";
    case OpKind::kBoxDecodeNms: return "box_decode_nms";
    case OpKind::kRoiAlign: return "roi_align";
  }
  return "?";
}

int64_t ConvAttrs::OutH() const { return transposed ? h * stride : (h + 2 * pad - kh) / stride + 1; }
int64_t ConvAttrs::OutW() const { return transposed ? w * stride : (w + 2 * pad - kw) / stride + 1; }

int64_t Param::elements() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

double OpMacs(const Op& op) {
  double per = 0;
  if (const auto* c = std::get_if<ConvAttrs>(&op.attrs)) {
    // A transposed convolution does the MACs of the forward convolution it
    // is the gradient of: every input position times the whole kernel.
    const double positions = c->transposed ? double(c->h) * double(c->w) : double(c->OutH()) * double(c->OutW());
    per = positions * double(c->kh * c->kw) * double(c->c) * double(c->oc);
  } else if (const auto* m = std::get_if<MatMulAttrs>(&op.attrs)) {
    per = double(m->m) * double(m->k) * double(m->n);
  } else if (const auto* a = std::get_if<AttentionAttrs>(&op.attrs)) {
    // Q K^T and P V per head. The additive form's v . tanh(Wq + Uk) is one
    // multiply-add per score and width element too, so both count the same.
    per = 2.0 * double(a->heads) * double(a->tq) * double(a->tk) * double(a->head_dim);
  } else if (const auto* l = std::get_if<LstmAttrs>(&op.attrs)) {
    per = double(l->steps) * double(l->input + l->hidden) * 4.0 * double(l->hidden);
  }
  return per * double(op.instances) * double(op.sequential_steps);
}

namespace {
double SumMacs(const std::vector<Op>& ops) {
  double s = 0;
  for (const Op& op : ops) {
    if (!op.recomputed) s += OpMacs(op);
  }
  return s;
}
}  // namespace

int64_t ModelGraph::TotalParams() const {
  int64_t n = 0;
  std::set<std::string> seen;
  for (const Param& p : params) {
    if (seen.insert(p.name).second) n += p.elements();
  }
  return n;
}

int64_t ModelGraph::TrainableParams() const {
  int64_t n = 0;
  std::set<std::string> seen;
  for (const Param& p : params) {
    if (p.trainable && seen.insert(p.name).second) n += p.elements();
  }
  return n;
}

double ModelGraph::ForwardMacs() const { return SumMacs(train); }
double ModelGraph::EvalMacs() const { return SumMacs(eval); }

int ModelGraph::FindParam(const std::string& param) const {
  for (size_t i = 0; i < params.size(); ++i) {
    if (params[i].name == param) return static_cast<int>(i);
  }
  return -1;
}

}  // namespace podbench::projection
