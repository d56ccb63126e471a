#include "workloads/maskrcnn/maskrcnn_graph.h"

#include <algorithm>
#include <array>
#include <string>
#include <utility>

#include "workloads/maskrcnn/maskrcnn_google_v06.h"
#include "workloads/projection/graph_builder.h"

namespace podbench::maskrcnn {
namespace {

using projection::DType;
using projection::FeatureMap;
using projection::OpWriter;
using projection::Placement;
using projection::PoolAttrs;

constexpr int64_t kFpnChannels = 256;
constexpr int64_t kAnchorsPerLocation = 3;
constexpr int64_t kMaxGtInstances = 100;  // ground-truth boxes and masks padded per image
constexpr int64_t kBoxHeadWidth = 1024;   // fast_rcnn_mlp_head_dim
constexpr int64_t kMaskResolution = 28;   // mrcnn_resolution

struct Stage {
  int blocks;
  int64_t width, stride;
};
constexpr std::array<Stage, 4> kStages = {{{3, 64, 1}, {4, 128, 2}, {6, 256, 2}, {3, 512, 2}}};

// The ResNet-50 backbone; returns C2..C5. conv0 and res2 are frozen (neither
// their weights nor their input get a gradient), so is every batch norm.
std::array<FeatureMap, 4> WriteBackbone(OpWriter& w, const MaskRcnnGraphOptions& o) {
  w.frozen_norms = true;
  w.train_norms = false;
  w.trainable = false;
  w.defaults.needs_input_grad = false;
  FeatureMap x;
  if (o.space_to_depth) {
    // The host's space-to-depth image, padded on the device by 2 before and
    // 1 after, through the 4x4 transform of the 7x7 kernel.
    projection::ConvAttrs a;
    a.h = o.image_height / 2 + 3;
    a.w = o.image_width / 2 + 3;
    a.c = 12;
    a.oc = 64;
    a.kh = a.kw = 4;
    a.space_to_depth = true;
    w.Add("conv0", a, {w.Param("conv0/kernel", {7, 7, 3, 64})});
    x = FeatureMap{a.OutH(), a.OutW(), 64};
  } else {
    x = w.Conv("conv0", FeatureMap{o.image_height, o.image_width, 3}, 64, 7, 2, 3, /*bias=*/false);
  }
  w.BatchNorm("conv0.bn", x);
  w.Fused("conv0.relu", x.elements(), 1);
  x = w.Pool("pool0", PoolAttrs::kMax, x, 3, 2, 1);

  std::array<FeatureMap, 4> c;
  for (size_t s = 0; s < kStages.size(); ++s) {
    const Stage& st = kStages[s];
    const int64_t out = 4 * st.width;
    const bool grads = s >= 1;  // res3 onwards is trained and backpropagates
    w.trainable = grads;
    for (int b = 0; b < st.blocks; ++b) {
      const std::string n = "res" + std::to_string(s + 2) + ".block" + std::to_string(b);
      const int64_t stride = b == 0 ? st.stride : 1;
      // The convolutions that read res2's output need no input gradient.
      const bool reads_frozen = s == 1 && b == 0;
      auto first_conv = [&](const std::string& name, int64_t oc, int64_t k, int64_t conv_stride) {
        w.defaults.needs_input_grad = grads && !reads_frozen;
        const FeatureMap y = w.Conv(name, x, oc, k, conv_stride, 0, /*bias=*/false);
        w.defaults.needs_input_grad = grads;
        w.BatchNorm(name + ".bn", y);
        return y;
      };
      if (b == 0) first_conv(n + ".shortcut", out, 1, stride);
      FeatureMap y = first_conv(n + ".conv1", st.width, 1, o.stride_in_1x1 ? stride : 1);
      w.Fused(n + ".conv1.relu", y.elements(), 1);
      y = w.ConvBn(n + ".conv2", y, st.width, 3, o.stride_in_1x1 ? 1 : stride, 1, /*relu=*/true);
      y = w.ConvBn(n + ".conv3", y, out, 1, 1, 0, /*relu=*/false);
      w.Fused(n + ".add_relu", y.elements(), 2, 2);
      x = y;
    }
    c[s] = x;
  }
  return c;
}

// FPN P2..P6 from C2..C5.
std::array<FeatureMap, 5> WriteFpn(OpWriter& w, const std::array<FeatureMap, 4>& c) {
  std::array<FeatureMap, 5> p;
  for (int l = 3; l >= 0; --l) {
    const std::string lvl = std::to_string(l + 2);
    // C2 comes from the frozen res2: its lateral needs no input gradient.
    w.defaults.needs_input_grad = l > 0;
    p[size_t(l)] = w.Conv("fpn.lateral" + lvl, c[size_t(l)], kFpnChannels, 1, 1, 0, /*bias=*/true);
    w.defaults.needs_input_grad = true;
    if (l < 3) w.Fused("fpn.topdown" + lvl, p[size_t(l)].elements(), 1, 2);  // upsampled P(l+1) + lateral
  }
  for (int l = 0; l < 4; ++l) {
    const std::string lvl = std::to_string(l + 2);
    p[size_t(l)] = w.Conv("fpn.output" + lvl, p[size_t(l)], kFpnChannels, 3, 1, 1, /*bias=*/true);
  }
  p[4] = w.Pool("fpn.p6", PoolAttrs::kMax, p[3], 1, 2, 0);
  return p;
}

// The shared RPN head on every level and the proposals (top `pre_nms` per
// level, NMS 0.7, `post_nms` kept); returns the anchors of all levels.
int64_t WriteRpn(OpWriter& w, const std::array<FeatureMap, 5>& p, int64_t pre_nms, int64_t post_nms) {
  int64_t anchors = 0;
  for (size_t l = 0; l < p.size(); ++l) {
    const std::string n = "rpn.p" + std::to_string(l + 2);
    const FeatureMap h = w.Conv(n + ".conv", p[l], kFpnChannels, 3, 1, 1, true, "rpn.conv");
    w.Fused(n + ".relu", h.elements(), 1);
    w.Conv(n + ".class", h, kAnchorsPerLocation, 1, 1, 0, true, "rpn.class");
    w.Conv(n + ".box", h, 4 * kAnchorsPerLocation, 1, 1, 0, true, "rpn.box");
    anchors += h.h * h.w * kAnchorsPerLocation;
  }
  const projection::OpDefaults saved = w.defaults;
  w.defaults.dtype = DType::kF32;
  w.defaults.needs_input_grad = false;  // proposals are stop_gradient'ed
  for (size_t l = 0; l < p.size(); ++l) {
    const int64_t boxes = p[l].h * p[l].w * kAnchorsPerLocation;
    const int64_t top = std::min(boxes, pre_nms);
    w.Add("rpn.proposals.p" + std::to_string(l + 2),
          projection::NmsAttrs{boxes, 1, top, std::min(top, post_nms), 0.7});
  }
  w.defaults = saved;
  return anchors;
}

// ROIAlign on the FPN levels, then the box head (2 x FC 1024 with ReLU, class
// and box outputs) over `rois` per image.
void WriteBoxHead(OpWriter& w, int64_t rois, int64_t classes) {
  w.Add("rcnn.roi_align", projection::RoiAlignAttrs{rois, 7, kFpnChannels, 1});
  w.Dense("rcnn.fc6", rois, 7 * 7 * kFpnChannels, kBoxHeadWidth, true);
  w.Fused("rcnn.fc6.relu", rois * kBoxHeadWidth, 1);
  w.Dense("rcnn.fc7", rois, kBoxHeadWidth, kBoxHeadWidth, true);
  w.Fused("rcnn.fc7.relu", rois * kBoxHeadWidth, 1);
  w.Dense("rcnn.class", rois, kBoxHeadWidth, classes, true);
  w.Dense("rcnn.box", rois, kBoxHeadWidth, 4 * classes, true);
}

// ROIAlign 14x14, then the mask head over `rois` per image (each ROI an
// instance of the 14x14 convolutions).
void WriteMaskHead(OpWriter& w, int64_t rois, int64_t classes) {
  w.Add("mask.roi_align", projection::RoiAlignAttrs{rois, 14, kFpnChannels, 1});
  const int64_t saved = w.defaults.instances;
  w.defaults.instances = rois;
  FeatureMap x{14, 14, kFpnChannels};
  for (int i = 0; i < 4; ++i) {
    const std::string n = "mask.conv" + std::to_string(i + 1);
    x = w.Conv(n, x, kFpnChannels, 3, 1, 1, /*bias=*/true);
    w.Fused(n + ".relu", x.elements(), 1);
  }
  x = w.ConvTranspose("mask.deconv", x, kFpnChannels, 2);
  w.Fused("mask.deconv.relu", x.elements(), 1);
  x = w.Conv("mask.logits", x, classes, 1, 1, 0, /*bias=*/true);
  w.defaults.instances = saved;
  // The class's mask of each ROI (a one-hot einsum in mask_post_processing).
  w.Fused("mask.select_class", rois * kMaskResolution * kMaskResolution * classes, 1, 2);
}

// Mean pixels of a COCO val2017 image: most are 640 on the long side and
// about 480 on the short one (an estimate, not fitted).
constexpr double kCocoImagePixels = 640.0 * 480.0;
constexpr double kCocoGtPerImage = 36781.0 / 5000.0;  // val2017 annotations per image
constexpr int64_t kGtMaskSide = 112 + 4;              // gt_mask_size, padded by 2 on each side (cropped_gt_masks)

Status Validate(const MaskRcnnGraphOptions& o) {
  auto side = [](const char* what, int64_t v) {
    return v > 0 && v % 32 == 0 ? Status::Ok()
                                : Status::InvalidArgument(std::string("maskrcnn graph: ") + what + " " +
                                                          std::to_string(v) + " must be a positive multiple of 32");
  };
  PODBENCH_RETURN_IF_ERROR(side("image_height", o.image_height));
  PODBENCH_RETURN_IF_ERROR(side("image_width", o.image_width));
  if (o.num_classes < 2) {
    return Status::InvalidArgument("maskrcnn graph: num_classes " + std::to_string(o.num_classes) + " must be >= 2");
  }
  return Status::Ok();
}

}  // namespace

int64_t PinnedCore(SecondStagePart part) {
  switch (part) {
    case SecondStagePart::kSamples:
      return 0;
    case SecondStagePart::kMaskHead:
      return 1;
    case SecondStagePart::kBoxHead:
      return 2;
  }
  return 0;
}

void PinSecondStage(OpWriter& w, SecondStagePart part, bool distribute) {
  w.defaults.placement = Placement::kPinnedCore0;
  w.defaults.pinned_core = distribute ? PinnedCore(part) : 0;
}

projection::HostWork MaskRcnnHostWork(const MaskRcnnGraphOptions& o, int64_t anchors) {
  projection::HostWork h;
  // Infeed (M/dataloader.py): the bf16 image (space-to-depth or not, the
  // same bytes); the RPN targets labelled on the host, int32 scores and fp32
  // box deltas for every anchor; the padded ground truth: 100 fp32 boxes,
  // int32 classes and fp32 cropped masks of 116x116.
  h.infeed_bytes = double(o.image_height) * double(o.image_width) * 3 * 2 + double(anchors) * (4 + 4 * 4) +
                   double(kMaxGtInstances) * (4 * 4 + 4 + double(kGtMaskSide * kGtMaskSide) * 4);
  // Outfeed: 100 detections of [image id, box, score, class] fp32 and their
  // 28x28 fp32 masks.
  h.outfeed_bytes = double(kEvalDetectionsPerImage) * (7 + kMaskResolution * kMaskResolution) * 4;
  // Scoring (§1 Evaluation, §3), in scalar operations (an estimate from the
  // algorithm, not fitted; the rate is host.scoring_ops_per_s):
  //   in the 16 workers (EVAL_WORKER_COUNT), per detection: the mask resized
  //   to its box and pasted into a zeroed image, then its Fortran-order copy
  //   and pycocotools' run-length encoding, each a pass over the image's
  //   pixels: 2 x 307,200 x 100 detections                        61,440,000
  h.score_ops = 2 * kCocoImagePixels * kEvalDetectionsPerImage;
  h.scoring_processes = 16;
  //   then in one process, COCOeval with the C++ extension (D = 100
  //   detections, G = 7.4 ground truths, T = 10 IoU thresholds, A = 4 area
  //   ranges, M = 3 maxDets), for boxes and for masks:
  //     loadRes, a Python dict per detection (~1 us of CPython), twice 200,000
  //     IoUs, D x G x ~15 for boxes; RLE mask IoUs D x G x ~100 runs  85,100
  //     the greedy matching, 2 x A x T x D x G x ~4                  236,800
  //     accumulate, 2 x D x T x A x M x ~4                            96,000
  h.serial_score_ops = 200000 + 100 * kCocoGtPerImage * (15 + 100) + 2 * 4 * 10 * 100 * kCocoGtPerImage * 4 +
                       2 * 100 * 10 * 4 * 3 * 4;
  return h;
}

Result<projection::ModelGraph> BuildMaskRcnnGraph(const MaskRcnnGraphOptions& o) {
  PODBENCH_RETURN_IF_ERROR(Validate(o));
  projection::ModelGraph g;
  g.name = "maskrcnn";
  const std::string size = std::to_string(o.image_height) + "x" + std::to_string(o.image_width);
  g.description = "Mask R-CNN ResNet-50-FPN, " + size + "x3, " + std::to_string(o.num_classes) +
                  " classes, frozen BN, conv0 and res2 frozen";
  g.example_unit = "image " + size;

  OpWriter train(&g, &g.train);
  // The first stage whole on core 0 when it is not partitioned.
  if (!o.partition_first_stage) train.defaults.placement = Placement::kPinnedCore0;
  const std::array<FeatureMap, 5> p = WriteFpn(train, WriteBackbone(train, o));
  const int64_t anchors = WriteRpn(train, p, /*pre_nms=*/2000, /*post_nms=*/1000);
  g.host = MaskRcnnHostWork(o, anchors);
  train.defaults.dtype = DType::kF32;
  // RPN losses over every anchor (score, and box where labelled), then the
  // proposals' labels: IoU of 1000 proposals + the ground truth against it,
  // balanced sampling of 512 ROIs.
  train.Elementwise("rpn.loss", anchors * 5, 8, 3);
  train.Elementwise("rcnn.proposal_labels", (1000 + kMaxGtInstances) * kMaxGtInstances, 12, 2).needs_input_grad =
      false;
  train.defaults.dtype = DType::kBf16;
  // The second stage's cores (all 0 when its distribution is switched off).
  PinSecondStage(train, SecondStagePart::kBoxHead, o.distribute_heads);
  WriteBoxHead(train, kTrainRoisPerImage, o.num_classes);
  train.defaults.dtype = DType::kF32;
  train.Add("rcnn.class_loss", projection::SoftmaxXentAttrs{kTrainRoisPerImage, o.num_classes});
  train.Elementwise("rcnn.box_loss", kTrainRoisPerImage * 4, 6, 3);
  PinSecondStage(train, SecondStagePart::kSamples, o.distribute_heads);
  // Targets: each foreground ROI's ground-truth mask cropped and resized to
  // 28x28 (get_mask_targets).
  train.Add("mask.targets", projection::RoiAlignAttrs{kMaskedRoisPerImage, kMaskResolution, 1, 1})
      .needs_input_grad = false;
  train.defaults.dtype = DType::kBf16;
  PinSecondStage(train, SecondStagePart::kMaskHead, o.distribute_heads);
  WriteMaskHead(train, kMaskedRoisPerImage, o.num_classes);
  train.defaults.dtype = DType::kF32;
  train.Elementwise("mask.loss", kMaskedRoisPerImage * kMaskResolution * kMaskResolution, 6, 3);

  OpWriter eval(&g, &g.eval);
  const std::array<FeatureMap, 5> pe = WriteFpn(eval, WriteBackbone(eval, o));
  WriteRpn(eval, pe, /*pre_nms=*/1000, /*post_nms=*/1000);
  WriteBoxHead(eval, kEvalRoisPerImage, o.num_classes);
  eval.defaults.dtype = DType::kF32;
  eval.Elementwise("eval.class_softmax", kEvalRoisPerImage * o.num_classes, 4);
  // The best 1000 (box, class) pairs, per-class NMS at 0.5, 100 kept
  // (post_processing.py generate_detections_per_image_op).
  eval.Add("eval.detections", projection::NmsAttrs{kEvalRoisPerImage, o.num_classes - 1, kEvalRoisPerImage,
                                                    kEvalDetectionsPerImage, 0.5});
  eval.defaults.dtype = DType::kBf16;
  WriteMaskHead(eval, kEvalDetectionsPerImage, o.num_classes);
  eval.defaults.dtype = DType::kF32;
  eval.Elementwise("eval.mask_sigmoid", kEvalDetectionsPerImage * kMaskResolution * kMaskResolution, 4);
  return g;
}

}  // namespace podbench::maskrcnn
