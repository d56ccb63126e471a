#include "workloads/ssd/ssd_graph.h"

#include <string>
#include <utility>

#include "workloads/projection/graph_builder.h"
#include "workloads/ssd/ssd_google_v06.h"

namespace podbench::ssd {
namespace {

using projection::DType;
using projection::FeatureMap;
using projection::OpWriter;
using projection::Placement;
using projection::PoolAttrs;

constexpr std::array<int64_t, 6> kAnchorsPerLocation = {4, 6, 6, 6, 4, 4};

// The extra layers after the backbone: 1x1 to `mid`, 3x3 to `out` (padding
// `pad`: 'same' for the first three, 'valid' for the last two).
struct Extra {
  int64_t mid, out, pad;
};
constexpr std::array<Extra, 5> kExtras = {{{256, 512, 1}, {256, 512, 1}, {128, 256, 1}, {128, 256, 0}, {128, 256, 0}}};

// ResNet-34 block groups 1-3: basic blocks (two 3x3 convolutions), the first
// block of a group projects its shortcut where the shape changes.
struct Group {
  int blocks;
  int64_t width, stride;
};
constexpr std::array<Group, 3> kGroups = {{{3, 64, 1}, {4, 128, 2}, {6, 256, 1}}};

// Hard-negative mining (topk_mask.py): two binary searches for the k-th
// largest loss (31 bit steps each, a compare and a count per anchor per step)
// and a handful of selects: vector ops per anchor.
constexpr double kMiningOpsPerAnchor = 2 * 31 * 2 + 8;

// The forward network shared by the training and evaluation lists; returns
// the number of anchors.
int64_t WriteNetwork(OpWriter& w, const SsdGraphOptions& o) {
  FeatureMap x;
  w.defaults.needs_input_grad = false;  // the image
  if (o.space_to_depth) {
    // The host's space-to-depth image (S/2 x S/2 x 12), padded on the device
    // by 2 before and 1 after (space_to_depth_fixed_padding), through the 4x4
    // transform of the 7x7 kernel.
    projection::ConvAttrs a;
    a.h = a.w = o.image_size / 2 + 3;
    a.c = 12;
    a.oc = 64;
    a.kh = a.kw = 4;
    a.space_to_depth = true;
    w.Add("conv0", a, {w.Param("conv0/kernel", {7, 7, 3, 64})});
    x = FeatureMap{a.OutH(), a.OutW(), 64};
  } else {
    x = w.Conv("conv0", FeatureMap{o.image_size, o.image_size, 3}, 64, 7, 2, 3, /*bias=*/false);
  }
  w.defaults.needs_input_grad = true;
  w.BatchNorm("conv0.bn", x);
  w.Fused("conv0.relu", x.elements(), 1);
  x = w.Pool("pool0", PoolAttrs::kMax, x, 3, 2, 1);

  for (size_t g = 0; g < kGroups.size(); ++g) {
    for (int b = 0; b < kGroups[g].blocks; ++b) {
      const std::string n = "group" + std::to_string(g + 1) + ".block" + std::to_string(b);
      const int64_t stride = b == 0 ? kGroups[g].stride : 1;
      if (b == 0 && (stride != 1 || x.c != kGroups[g].width)) {
        w.ConvBn(n + ".shortcut", x, kGroups[g].width, 1, stride, 0, /*relu=*/false);
      }
      FeatureMap y = w.ConvBn(n + ".conv1", x, kGroups[g].width, 3, stride, 1, /*relu=*/true);
      y = w.ConvBn(n + ".conv2", y, kGroups[g].width, 3, 1, 1, /*relu=*/false);
      w.Fused(n + ".add_relu", y.elements(), 2, 2);
      x = y;
    }
  }

  std::array<FeatureMap, 6> levels;
  levels[0] = x;
  for (size_t i = 0; i < kExtras.size(); ++i) {
    const std::string n = "extra" + std::to_string(i + 1);
    FeatureMap y = w.Conv(n + ".conv1x1", x, kExtras[i].mid, 1, 1, 0, /*bias=*/true);
    w.Fused(n + ".relu1", y.elements(), 1);
    x = w.Conv(n + ".conv3x3", y, kExtras[i].out, 3, o.extra_strides[i], kExtras[i].pad, /*bias=*/true);
    w.Fused(n + ".relu2", x.elements(), 1);
    levels[i + 1] = x;
  }

  int64_t anchors = 0;
  for (size_t i = 0; i < levels.size(); ++i) {
    const std::string n = "head.level" + std::to_string(i + 3);
    const FeatureMap cls =
        w.Conv(n + ".class", levels[i], kAnchorsPerLocation[i] * o.num_classes, 3, o.head_stride, 1, true);
    w.Conv(n + ".box", levels[i], kAnchorsPerLocation[i] * 4, 3, o.head_stride, 1, true);
    anchors += cls.h * cls.w * kAnchorsPerLocation[i];
  }
  return anchors;
}

// What a host does per image (dataloader.py, coco_metric.py; reference
// section 2). Sizes and counts only; the rates are the system file's.
projection::HostWork SsdHostWork(const SsdGraphOptions& o, int64_t anchors) {
  projection::HostWork h;
  // Infeed: the bf16 image (space-to-depth or not, the same bytes) and the
  // anchor-matched labels: fp32 box targets [anchors, 4], int32 classes
  // [anchors] and the fp32 count of matched boxes.
  h.infeed_bytes = double(o.image_size) * double(o.image_size) * 3 * 2 + double(anchors) * (4 * 4 + 4) + 4;
  // The stored JPEG a host decodes to fill its decoded-image cache: COCO
  // train2017's JPEGs average 152 KB (train2017.zip, 18 GB for 118,287
  // images).
  h.decode_bytes = 152000;
  // Outfeed: [200, 7] fp32 detections per image (image id, box, score,
  // class).
  h.outfeed_bytes = double(kSsdEvalTopK) * 7 * 4;
  // COCO bbox evaluation of one image, counted in scalar operations (an
  // estimate from the algorithm, not fitted): D = 200 detections, G = 7.4
  // ground-truth boxes (36,781 annotations over val2017's 5,000 images),
  // T = 10 IoU thresholds, A = 4 area ranges, M = 3 maxDets:
  //   loadRes: a Python dict per detection, ~1 us of CPython each   200,000
  //   IoUs, D x G x ~15 ops                                          22,200
  //   evaluateImg's greedy matching, A x T x D x G x ~4             236,800
  //   accumulate's sort, cumulative sums and 101-point precision,
  //     D x T x A x M x ~4                                           96,000
  h.score_ops = 200000 + 22200 + 236800 + 96000;
  // Google's runner hands each evaluation to one process of a pool of 10
  // (COCO in 10 host processes, overlapped with training): the results of
  // consecutive evaluations arrive at the block cadence with a constant lag
  // in the v0.6 logs (6.5-6.9 s of scoring behind 4-5 s blocks on the larger
  // slices), so evaluations are scored side by side, each by one process.
  h.scoring_processes = 1;
  h.scoring_pool = 10;
  return h;
}

Status Validate(const SsdGraphOptions& o) {
  auto bad = [](const std::string& what) { return Status::InvalidArgument("ssd graph: " + what); };
  if (o.num_classes < 2) return bad("num_classes " + std::to_string(o.num_classes) + " must be >= 2");
  if (o.head_stride < 1) return bad("head_stride " + std::to_string(o.head_stride) + " must be >= 1");
  for (int64_t s : o.extra_strides) {
    if (s < 1) return bad("extra_strides must be >= 1, got " + std::to_string(s));
  }
  if (o.space_to_depth && o.image_size % 2 != 0) {
    return bad("space_to_depth needs an even image_size, got " + std::to_string(o.image_size));
  }
  // The backbone divides by 8; each extra layer by its stride (the last two
  // also lose 2 to 'valid' padding); the smallest level must stay >= 1.
  int64_t s = (o.image_size + 7) / 8;
  for (size_t i = 0; i < kExtras.size(); ++i) s = projection::WindowOut(s, 3, o.extra_strides[i], kExtras[i].pad);
  if (o.image_size < 8 || s < 1) {
    return bad("image_size " + std::to_string(o.image_size) + " is too small for six feature levels");
  }
  return Status::Ok();
}

}  // namespace

Result<projection::ModelGraph> BuildSsdGraph(const SsdGraphOptions& o) {
  PODBENCH_RETURN_IF_ERROR(Validate(o));
  projection::ModelGraph g;
  g.name = "ssd";
  g.description = "SSD-ResNet34, " + std::to_string(o.image_size) + "x" + std::to_string(o.image_size) + "x3, " +
                  std::to_string(o.num_classes) + " classes" + (o.space_to_depth ? ", space-to-depth conv0" : "");
  g.example_unit = "image " + std::to_string(o.image_size) + "x" + std::to_string(o.image_size);

  OpWriter train(&g, &g.train);
  // distributed_batch_norm.py: one cross_replica_sum of [mean, variance].
  train.concat_bn_stats = true;
  const int64_t anchors = WriteNetwork(train, o);
  g.host = SsdHostWork(o, anchors);
  train.defaults.dtype = DType::kF32;  // logits and losses in fp32
  train.Add("loss.class_xent", projection::SoftmaxXentAttrs{anchors, o.num_classes});
  train.Elementwise("loss.box_smooth_l1", anchors * 4, 6, 3);
  // Under spatial partitioning the concatenation, the mining and the masked
  // sum ran on logical core 0 (ssd_model.py _classification_loss).
  train.defaults.placement = Placement::kPinnedCore0;
  train.Elementwise("loss.hard_negative_mining", anchors, kMiningOpsPerAnchor, 2).needs_input_grad = false;
  train.Elementwise("loss.class_sum", anchors, 3, 3);

  OpWriter eval(&g, &g.eval);
  eval.frozen_norms = true;
  WriteNetwork(eval, o);
  eval.defaults.dtype = DType::kF32;
  eval.defaults.needs_input_grad = false;
  eval.Elementwise("eval.softmax", anchors * o.num_classes, 4);
  // Per class (background skipped): top 200 scores, padded NMS at IoU 0.5,
  // then the best 200 over all classes (ssd_model.py non_max_suppression).
  eval.Add("eval.decode_nms", projection::NmsAttrs{anchors, o.num_classes - 1, kSsdEvalTopK, kSsdEvalTopK, 0.5});
  return g;
}

}  // namespace podbench::ssd
