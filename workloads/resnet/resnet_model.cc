#include "workloads/resnet/resnet_model.h"

namespace podbench::resnet {

Status ResNetConfig::Validate() const {
  if (image_size < 32) return Status::InvalidArgument("resnet: image_size must be >= 32");
  if (num_classes < 2) return Status::InvalidArgument("resnet: num_classes must be >= 2");
  if (width < 1) return Status::InvalidArgument("resnet: width must be >= 1");
  if (expansion < 1) return Status::InvalidArgument("resnet: expansion must be >= 1");
  for (int b : blocks) {
    if (b < 1) return Status::InvalidArgument("resnet: every stage needs at least one block");
  }
  return Status::Ok();
}

const char* LayerKindName(LayerKind k) {
  switch (k) {
    case LayerKind::kConv: return "conv";
    case LayerKind::kBatchNorm: return "batch_norm";
    case LayerKind::kRelu: return "relu";
    case LayerKind::kMaxPool: return "max_pool";
    case LayerKind::kAvgPool: return "avg_pool";
    case LayerKind::kAdd: return "add";
    case LayerKind::kDense: return "dense";
    case LayerKind::kSoftmaxXent: return "softmax_xent";
  }
  return "?";
}

int64_t Layer::params() const {
  switch (kind) {
    case LayerKind::kConv: return int64_t{kernel} * kernel * in_c * out_c;
    case LayerKind::kBatchNorm: return 2 * int64_t{out_c};
    case LayerKind::kDense: return int64_t{in_c} * out_c + out_c;
    default: return 0;
  }
}

int64_t Layer::macs() const {
  switch (kind) {
    case LayerKind::kConv: return int64_t{out_h} * out_w * out_c * kernel * kernel * in_c;
    case LayerKind::kDense: return int64_t{in_c} * out_c;
    default: return 0;
  }
}

namespace {

// Output size of a convolution or pool with "same"-style padding.
int OutSize(int in, int kernel, int stride, int pad) { return (in + 2 * pad - kernel) / stride + 1; }

class Builder {
 public:
  explicit Builder(std::vector<Layer>* out) : out_(out) {}

  void Conv(const std::string& name, int out_c, int kernel, int stride) {
    Layer l = Next(name, LayerKind::kConv);
    l.kernel = kernel;
    l.stride = stride;
    l.pad = (kernel - 1) / 2;
    l.out_h = OutSize(h_, kernel, stride, l.pad);
    l.out_w = OutSize(w_, kernel, stride, l.pad);
    l.out_c = out_c;
    Push(l);
  }
  void Elementwise(const std::string& name, LayerKind kind) { Push(Next(name, kind)); }
  void MaxPool(const std::string& name, int kernel, int stride) {
    Layer l = Next(name, LayerKind::kMaxPool);
    l.kernel = kernel;
    l.stride = stride;
    l.pad = (kernel - 1) / 2;
    l.out_h = OutSize(h_, kernel, stride, l.pad);
    l.out_w = OutSize(w_, kernel, stride, l.pad);
    Push(l);
  }
  void GlobalAvgPool(const std::string& name) {
    Layer l = Next(name, LayerKind::kAvgPool);
    l.kernel = h_;
    l.out_h = l.out_w = 1;
    Push(l);
  }
  void Dense(const std::string& name, int out_c) {
    Layer l = Next(name, LayerKind::kDense);
    l.in_c = h_ * w_ * c_;
    l.in_h = l.in_w = 1;
    l.out_h = l.out_w = 1;
    l.out_c = out_c;
    Push(l);
  }
  // Sets the current shape (a shortcut branch restarts from the block input).
  void SetShape(int h, int w, int c) { h_ = h; w_ = w; c_ = c; }
  int h() const { return h_; }
  int w() const { return w_; }
  int c() const { return c_; }

 private:
  Layer Next(const std::string& name, LayerKind kind) const {
    Layer l;
    l.name = name;
    l.kind = kind;
    l.in_h = l.out_h = h_;
    l.in_w = l.out_w = w_;
    l.in_c = l.out_c = c_;
    return l;
  }
  void Push(const Layer& l) {
    out_->push_back(l);
    SetShape(l.out_h, l.out_w, l.out_c);
  }
  std::vector<Layer>* out_;
  int h_ = 0, w_ = 0, c_ = 0;
};

}  // namespace

std::vector<Layer> BuildResNet(const ResNetConfig& cfg) {
  std::vector<Layer> layers;
  Builder b(&layers);
  b.SetShape(cfg.image_size, cfg.image_size, 3);
  b.Conv("stem.conv", cfg.width, 7, 2);
  b.Elementwise("stem.bn", LayerKind::kBatchNorm);
  b.Elementwise("stem.relu", LayerKind::kRelu);
  b.MaxPool("stem.pool", 3, 2);
  for (int s = 0; s < 4; ++s) {
    int width = cfg.width << s;
    int out_c = width * cfg.expansion;
    for (int k = 0; k < cfg.blocks[static_cast<size_t>(s)]; ++k) {
      std::string p = "stage" + std::to_string(s + 1) + ".block" + std::to_string(k) + ".";
      int stride = (k == 0 && s > 0) ? 2 : 1;
      int in_h = b.h(), in_w = b.w(), in_c = b.c();
      b.Conv(p + "conv1", width, 1, 1);
      b.Elementwise(p + "bn1", LayerKind::kBatchNorm);
      b.Elementwise(p + "relu1", LayerKind::kRelu);
      b.Conv(p + "conv2", width, 3, stride);  // v1.5: the stride is here
      b.Elementwise(p + "bn2", LayerKind::kBatchNorm);
      b.Elementwise(p + "relu2", LayerKind::kRelu);
      b.Conv(p + "conv3", out_c, 1, 1);
      b.Elementwise(p + "bn3", LayerKind::kBatchNorm);
      int out_h = b.h(), out_w = b.w();
      if (k == 0) {  // projection shortcut
        b.SetShape(in_h, in_w, in_c);
        b.Conv(p + "shortcut.conv", out_c, 1, stride);
        b.Elementwise(p + "shortcut.bn", LayerKind::kBatchNorm);
      }
      b.SetShape(out_h, out_w, out_c);
      b.Elementwise(p + "add", LayerKind::kAdd);
      b.Elementwise(p + "relu3", LayerKind::kRelu);
    }
  }
  b.GlobalAvgPool("head.pool");
  b.Dense("head.fc", cfg.num_classes);
  b.Elementwise("head.loss", LayerKind::kSoftmaxXent);
  return layers;
}

kernels::Conv2dShape ConvShapeOf(const Layer& l, int64_t batch) {
  kernels::Conv2dShape s;
  s.n = batch;
  s.h = l.in_h;
  s.w = l.in_w;
  s.c = l.in_c;
  s.oc = l.out_c;
  s.kh = s.kw = l.kernel;
  s.stride = l.stride;
  s.pad = l.pad;
  return s;
}

int64_t TotalParams(const std::vector<Layer>& layers) {
  int64_t n = 0;
  for (const Layer& l : layers) n += l.params();
  return n;
}

int64_t TotalMacs(const std::vector<Layer>& layers) {
  int64_t n = 0;
  for (const Layer& l : layers) n += l.macs();
  return n;
}

}  // namespace podbench::resnet
