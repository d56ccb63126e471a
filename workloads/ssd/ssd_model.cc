#include "workloads/ssd/ssd_model.h"

namespace podbench::ssd {

namespace {

// The reference's anchor scales and steps (strides), in pixels of its
// 300x300 input.
constexpr double kRefScales[] = {21, 45, 99, 153, 207, 261, 315};
constexpr double kRefSteps[] = {8, 16, 32, 64, 100, 300};
constexpr int kMaxLevels = 6;

class Builder {
 public:
  explicit Builder(SsdNet* net) : net_(net) {}

  int Conv(const std::string& name, int in, int out_c, int kernel, int stride, int pad, bool bias = false) {
    const TensorShape& x = net_->tensors[static_cast<size_t>(in)];
    TensorShape y{(x.h + 2 * pad - kernel) / stride + 1, (x.w + 2 * pad - kernel) / stride + 1, out_c};
    Op op;
    op.name = name;
    op.kind = OpKind::kConv;
    op.in = in;
    op.kernel = kernel;
    op.stride = stride;
    op.pad = pad;
    op.bias = bias;
    op.params = int64_t{kernel} * kernel * x.c * out_c + (bias ? out_c : 0);
    return Add(op, y);
  }
  int Bn(const std::string& name, int in) {
    Op op;
    op.name = name;
    op.kind = OpKind::kBatchNorm;
    op.in = in;
    op.params = 2 * int64_t{net_->tensors[static_cast<size_t>(in)].c};
    return Add(op, net_->tensors[static_cast<size_t>(in)]);
  }
  int Relu(const std::string& name, int in) {
    Op op;
    op.name = name;
    op.kind = OpKind::kRelu;
    op.in = in;
    return Add(op, net_->tensors[static_cast<size_t>(in)]);
  }
  int Sum(const std::string& name, int a, int b) {
    Op op;
    op.name = name;
    op.kind = OpKind::kAdd;
    op.in = a;
    op.in2 = b;
    return Add(op, net_->tensors[static_cast<size_t>(a)]);
  }
  int MaxPool(const std::string& name, int in, int kernel, int stride, int pad) {
    const TensorShape& x = net_->tensors[static_cast<size_t>(in)];
    Op op;
    op.name = name;
    op.kind = OpKind::kMaxPool;
    op.in = in;
    op.kernel = kernel;
    op.stride = stride;
    op.pad = pad;
    return Add(op, {(x.h + 2 * pad - kernel) / stride + 1, (x.w + 2 * pad - kernel) / stride + 1, x.c});
  }
  // conv + BN (+ ReLU).
  int ConvBn(const std::string& name, int in, int out_c, int kernel, int stride, int pad, bool relu) {
    int t = Bn(name + ".bn", Conv(name, in, out_c, kernel, stride, pad));
    return relu ? Relu(name + ".relu", t) : t;
  }
  int BasicBlock(const std::string& name, int in, int out_c, int stride) {
    const int in_c = net_->tensors[static_cast<size_t>(in)].c;
    int a = ConvBn(name + ".conv1", in, out_c, 3, stride, 1, true);
    int b = ConvBn(name + ".conv2", a, out_c, 3, 1, 1, false);
    int shortcut = in;
    if (stride != 1 || in_c != out_c) shortcut = ConvBn(name + ".shortcut", in, out_c, 1, stride, 0, false);
    return Relu(name + ".relu", Sum(name + ".add", b, shortcut));
  }

 private:
  int Add(Op op, TensorShape y) {
    op.param = op.params > 0 ? net_->num_params : -1;
    net_->num_params += op.params;
    op.out = static_cast<int>(net_->tensors.size());
    net_->tensors.push_back(y);
    net_->ops.push_back(std::move(op));
    return net_->ops.back().out;
  }
  SsdNet* net_;
};

}  // namespace

const char* OpKindName(OpKind k) {
  switch (k) {
    case OpKind::kConv: return "conv";
    case OpKind::kBatchNorm: return "batch_norm";
    case OpKind::kRelu: return "relu";
    case OpKind::kAdd: return "add";
    case OpKind::kMaxPool: return "max_pool";
  }
  return "?";
}

Status SsdConfig::Validate() const {
  if (image_size < 16 || image_size > 1024 || image_size % 8 != 0) {
    return Status::InvalidArgument("ssd: image_size " + std::to_string(image_size) +
                                   " must be a multiple of 8 from 16 to 1024");
  }
  if (classes < 1 || classes > 90) return Status::InvalidArgument("ssd: classes must be 1..90");
  if (width < 1 || width > 256) return Status::InvalidArgument("ssd: width must be 1..256");
  for (int b : blocks) {
    if (b < 1 || b > 16) return Status::InvalidArgument("ssd: blocks per stage must be 1..16");
  }
  // Levels: stride 8, then halving down to 1x1.
  int f = image_size / 8, levels = 1;
  while (f > 1) {
    f = f > 3 ? (f + 1) / 2 : 1;
    ++levels;
  }
  if (levels > kMaxLevels) {
    return Status::InvalidArgument("ssd: image_size " + std::to_string(image_size) + " gives " +
                                   std::to_string(levels) + " feature levels; the reference has at most " +
                                   std::to_string(kMaxLevels));
  }
  return Status::Ok();
}

SsdNet BuildSsdNet(const SsdConfig& c) {
  SsdNet net;
  net.config = c;
  net.tensors.push_back({c.image_size, c.image_size, 3});
  Builder b(&net);
  int t = b.ConvBn("conv0", 0, c.width, 7, 2, 3, true);
  t = b.MaxPool("pool0", t, 3, 2, 1);
  const int strides[3] = {1, 2, 1};  // stage 3 at stride 1, as Google's SSD-ResNet34
  for (int s = 0; s < 3; ++s) {
    for (int k = 0; k < c.blocks[static_cast<size_t>(s)]; ++k) {
      t = b.BasicBlock("stage" + std::to_string(s + 1) + ".block" + std::to_string(k), t, c.width << s,
                       k == 0 ? strides[s] : 1);
    }
  }
  std::vector<int> levels = {t};
  while (net.tensors[static_cast<size_t>(t)].h > 1) {
    const std::string name = "extra" + std::to_string(levels.size());
    const int h = net.tensors[static_cast<size_t>(t)].h;
    t = b.ConvBn(name + ".conv1", t, 2 * c.width, 1, 1, 0, true);
    t = h > 3 || h == 2 ? b.ConvBn(name + ".conv2", t, 4 * c.width, 3, 2, 1, true)
                        : b.ConvBn(name + ".conv2", t, 4 * c.width, 3, 1, 0, true);
    levels.push_back(t);
  }
  const int L = static_cast<int>(levels.size());
  net.anchors.image_size = c.image_size;
  for (int l = 0; l < L; ++l) {
    const int f = net.tensors[static_cast<size_t>(levels[static_cast<size_t>(l)])].h;
    net.anchors.feature_sizes.push_back(f);
    net.anchors.steps.push_back(static_cast<double>(c.image_size) / f);
    net.anchors.scales.push_back(kRefScales[l] / kRefSteps[l] * net.anchors.steps.back());
    if (l == 0 || l >= L - 2) {
      net.anchors.aspect_ratios.push_back({2});
    } else {
      net.anchors.aspect_ratios.push_back({2, 3});
    }
  }
  net.anchors.scales.push_back(net.anchors.scales.back() * kRefScales[L] / kRefScales[L - 1]);
  for (int l = 0; l < L; ++l) {
    net.level_outputs.push_back(b.Conv("head" + std::to_string(l), levels[static_cast<size_t>(l)],
                                       net.anchors.PerLocation(l) * net.pred_width(), 3, 1, 1, /*bias=*/true));
  }
  return net;
}

int64_t SsdNet::Macs() const {
  int64_t m = 0;
  for (const Op& op : ops) {
    if (op.kind != OpKind::kConv) continue;
    const TensorShape& x = tensors[static_cast<size_t>(op.in)];
    const TensorShape& y = tensors[static_cast<size_t>(op.out)];
    m += int64_t{y.h} * y.w * y.c * op.kernel * op.kernel * x.c;
  }
  return m;
}

}  // namespace podbench::ssd
