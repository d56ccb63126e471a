#include "workloads/ssd/ssd_data.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "base/flags.h"
#include "base/hash.h"
#include "workloads/data/augment.h"
#include "workloads/detection/box_coder.h"
#include "workloads/detection/matching.h"

namespace podbench::ssd {

using detection::Box;

namespace {

constexpr float kMean[3] = {0.485f, 0.456f, 0.406f};
constexpr float kStd[3] = {0.229f, 0.224f, 0.225f};
constexpr double kMinIou[] = {0, 0.1, 0.3, 0.5, 0.7, 0.9};
// Passes before giving up and keeping the whole image (a pass picks "no
// crop" with probability 1/7, so this is never reached in practice).
constexpr int kMaxPasses = 1000;

double Uniform(std::mt19937_64& rng, double lo, double hi) {
  return lo + (hi - lo) * (static_cast<double>(rng() >> 11) * 0x1.0p-53);
}

void Normalise(const data::Image& img, const data::CropWindow& win, int S, bool flip, float* out) {
  data::ResizeNormalize(img, win, S, S, flip, kMean, kStd, out);
}

}  // namespace

SsdCrop SampleSsdCrop(const std::vector<Box>& boxes, int H, int W, int max_samples, std::mt19937_64& rng) {
  SsdCrop whole{0, 0, W, H, std::vector<char>(boxes.size(), 1)};
  for (int pass = 0; pass < kMaxPasses; ++pass) {
    const int mode = static_cast<int>(rng() % 7);
    if (mode == 6) return whole;  // no crop
    const double min_iou = kMinIou[mode];
    for (int t = 0; t < max_samples; ++t) {
      const double w = Uniform(rng, 0.3, 1.0) * W, h = Uniform(rng, 0.3, 1.0) * H;
      if (w / h < 0.5 || w / h > 2) continue;
      const double left = Uniform(rng, 0, W - w), top = Uniform(rng, 0, H - h);
      SsdCrop c;
      c.x = static_cast<int>(std::lround(left));
      c.y = static_cast<int>(std::lround(top));
      c.width = std::clamp(static_cast<int>(std::lround(w)), 1, W - c.x);
      c.height = std::clamp(static_cast<int>(std::lround(h)), 1, H - c.y);
      const Box frame = Box::FromXywh(c.x, c.y, c.width, c.height);
      bool ok = true;
      for (const Box& b : boxes) ok = ok && detection::Iou(b, frame) > min_iou;
      if (!ok) continue;
      c.keep.assign(boxes.size(), 0);
      bool any = false;
      for (size_t i = 0; i < boxes.size(); ++i) {
        const double cx = boxes[i].cx(), cy = boxes[i].cy();
        c.keep[i] = cx > frame.x0 && cx < frame.x1 && cy > frame.y0 && cy < frame.y1;
        any = any || c.keep[i];
      }
      if (any) return c;
    }
  }
  return whole;
}

void EncodeTargets(const std::vector<detection::Anchor>& anchors, const std::vector<Box>& truth,
                   const std::vector<int>& labels, int32_t* out_labels, float* out_targets) {
  std::vector<Box> anchor_boxes(anchors.size());
  for (size_t a = 0; a < anchors.size(); ++a) anchor_boxes[a] = anchors[a].box();
  const std::vector<int> match = detection::MatchAnchors(anchor_boxes, truth, 0.5);
  const detection::BoxCoder coder;
  for (size_t a = 0; a < anchors.size(); ++a) {
    const int m = match[a];
    out_labels[a] = m < 0 ? 0 : labels[static_cast<size_t>(m)];
    if (m < 0) {
      std::fill(out_targets + 4 * a, out_targets + 4 * a + 4, 0.f);
    } else {
      const auto t = coder.Encode(truth[static_cast<size_t>(m)], anchors[a]);
      std::copy(t.begin(), t.end(), out_targets + 4 * a);
    }
  }
}

Result<std::unique_ptr<SsdData>> SsdData::Create(const SsdNet& net, const SsdDataConfig& config) {
  PODBENCH_RETURN_IF_ERROR(config.shapes.Validate());
  if (config.shapes.height != net.config.image_size || config.shapes.width != net.config.image_size) {
    return Status::InvalidArgument("ssd data: images must be the network's input size");
  }
  if (config.shapes.classes != net.config.classes) {
    return Status::InvalidArgument("ssd data: the shapes' classes must be the network's");
  }
  if (config.train_images < 1 || config.eval_images < 1) {
    return Status::InvalidArgument("ssd data: at least one training and one held-out image");
  }
  if (config.max_samples < 1) return Status::InvalidArgument("ssd data: max_samples must be >= 1");
  std::unique_ptr<SsdData> d(new SsdData());
  d->cfg_ = config;
  d->S_ = net.config.image_size;
  d->classes_ = net.config.classes;
  d->anchors_ = detection::MakeAnchors(net.anchors);
  const auto train_n = static_cast<size_t>(config.train_images), eval_n = static_cast<size_t>(config.eval_images);
  d->train_.resize(train_n);
  d->train_made_.assign(train_n, 0);
  d->eval_made_.assign(eval_n, 0);
  d->eval_truth_.resize(eval_n);
  d->eval_truth_known_.assign(eval_n, 0);
  const size_t px = static_cast<size_t>(d->S_) * static_cast<size_t>(d->S_) * 3;
  d->eval_pixels_.assign(px * eval_n, 0.f);
  for (size_t i = 0; i < eval_n; ++i) {
    if (config.eval_image_needed && !config.eval_image_needed(static_cast<int64_t>(i))) continue;
    detection::ShapesImage s = detection::MakeShapesImage(config.shapes, static_cast<uint64_t>(config.train_images) + i);
    Normalise(s.image, {0, 0, d->S_, d->S_}, d->S_, false, d->eval_pixels_.data() + px * i);
    d->eval_truth_[i] = std::move(s.objects);
    d->eval_truth_known_[i] = 1;
    d->eval_made_[i] = 1;
  }
  return d;
}

void SsdData::MakeBatch(const std::vector<int64_t>& indices, uint64_t step_seed, DetectionBatch* out) {
  const size_t B = indices.size(), A = anchors_.size();
  const size_t px = static_cast<size_t>(S_) * static_cast<size_t>(S_) * 3;
  out->images.assign(B * px, 0.f);
  out->labels.assign(B * A, 0);
  out->targets.assign(B * A * 4, 0.f);
  for (size_t b = 0; b < B; ++b) {
    if (cfg_.train_row_needed && !cfg_.train_row_needed(static_cast<int64_t>(b))) continue;
    const auto index = static_cast<size_t>(indices[b]);
    if (!train_made_[index]) {
      train_[index] = detection::MakeShapesImage(cfg_.shapes, static_cast<uint64_t>(index));
      train_made_[index] = 1;
    }
    const detection::ShapesImage& s = train_[index];
    std::mt19937_64 rng(MixSeed(step_seed, b));
    std::vector<Box> boxes;
    for (const auto& o : s.objects) boxes.push_back(o.box);
    const SsdCrop crop = SampleSsdCrop(boxes, S_, S_, cfg_.max_samples, rng);
    const bool flip = cfg_.flip && (rng() & 1);
    Normalise(s.image, {crop.y, crop.x, crop.height, crop.width}, S_, flip, out->images.data() + b * px);
    const Box frame = Box::FromXywh(crop.x, crop.y, crop.width, crop.height);
    std::vector<Box> truth;
    std::vector<int> labels;
    for (size_t i = 0; i < boxes.size(); ++i) {
      if (!crop.keep[i]) continue;
      const Box c = detection::Clip(boxes[i], frame);
      Box n{(c.x0 - frame.x0) / frame.width(), (c.y0 - frame.y0) / frame.height(), (c.x1 - frame.x0) / frame.width(),
            (c.y1 - frame.y0) / frame.height()};
      if (flip) n = {1 - n.x1, n.y0, 1 - n.x0, n.y1};
      truth.push_back(n);
      labels.push_back(s.objects[i].label);
    }
    EncodeTargets(anchors_, truth, labels, out->labels.data() + b * A, out->targets.data() + b * A * 4);
  }
}

namespace {

template <typename T>
void Put(std::string& out, T v) {
  out.append(reinterpret_cast<const char*>(&v), sizeof v);
}

template <typename T>
bool Take(std::string_view& in, T* v) {
  if (in.size() < sizeof *v) return false;
  std::memcpy(v, in.data(), sizeof *v);
  in.remove_prefix(sizeof *v);
  return true;
}

}  // namespace

// Per rendered held-out image: its index (int64), its object count (int32),
// then per object the label (int32), the box x0 y0 x1 y1 and the area
// (doubles), in this machine's byte order (the ranks of one job share it).
std::string SsdData::LocalEvalTruth() const {
  std::string out;
  for (size_t i = 0; i < eval_made_.size(); ++i) {
    if (!eval_made_[i]) continue;
    Put(out, static_cast<int64_t>(i));
    Put(out, static_cast<int32_t>(eval_truth_[i].size()));
    for (const detection::ShapeObject& o : eval_truth_[i]) {
      Put(out, static_cast<int32_t>(o.label));
      for (double v : {o.box.x0, o.box.y0, o.box.x1, o.box.y1, o.area}) Put(out, v);
    }
  }
  return out;
}

Status SsdData::AddEvalTruth(std::string_view in) {
  const auto bad = [](const std::string& why) { return Status::Corruption("ssd held-out ground truth: " + why); };
  while (!in.empty()) {
    int64_t i = 0;
    int32_t count = 0;
    if (!Take(in, &i) || !Take(in, &count) || count < 0) return bad("truncated record");
    if (i < 0 || i >= eval_images()) return bad("image " + std::to_string(i) + " out of range");
    std::vector<detection::ShapeObject> objects(static_cast<size_t>(count));
    for (detection::ShapeObject& o : objects) {
      int32_t label = 0;
      if (!Take(in, &label) || !Take(in, &o.box.x0) || !Take(in, &o.box.y0) || !Take(in, &o.box.x1) ||
          !Take(in, &o.box.y1) || !Take(in, &o.area)) {
        return bad("truncated object of image " + std::to_string(i));
      }
      o.label = label;
    }
    eval_truth_[static_cast<size_t>(i)] = std::move(objects);
    eval_truth_known_[static_cast<size_t>(i)] = 1;
  }
  return Status::Ok();
}

std::vector<int64_t> SsdData::GeneratedTrainImages() const { return IndicesOf(train_made_); }
std::vector<int64_t> SsdData::GeneratedEvalImages() const { return IndicesOf(eval_made_); }

Result<detection::CocoSummary> SsdData::Evaluate(const std::vector<float>& pred,
                                                 const detection::NmsConfig& nms) const {
  const size_t A = anchors_.size(), C = static_cast<size_t>(classes_) + 1, P = C + 4;
  const size_t eval_n = eval_truth_.size();
  if (pred.size() != eval_n * A * P) {
    return Status::InvalidArgument("ssd evaluation: predictions for " + std::to_string(eval_n) +
                                   " images of " + std::to_string(A) + " anchors expected");
  }
  detection::CocoInput in;
  std::vector<detection::CocoBox> det_boxes, gt_boxes;
  for (int c = 1; c <= classes_; ++c) in.category_ids.push_back(c);
  const detection::BoxCoder coder;
  const double S = S_;
  const Box image{0, 0, S, S};
  std::vector<Box> boxes(A);
  std::vector<float> scores(A * C);
  for (size_t i = 0; i < eval_n; ++i) {
    if (!eval_truth_known_[i]) {
      return Status::FailedPrecondition("ssd evaluation: the ground truth of held-out image " + std::to_string(i) +
                                        " is missing (another rank's: AddEvalTruth first)");
    }
  }
  for (size_t i = 0; i < eval_n; ++i) {
    const int64_t id = static_cast<int64_t>(i) + 1;
    in.image_ids.push_back(id);
    for (const auto& o : eval_truth_[i]) {
      in.truth.push_back({static_cast<int64_t>(in.truth.size()) + 1, id, o.label, o.area, false});
      gt_boxes.push_back({o.box.x0, o.box.y0, o.box.width(), o.box.height()});
    }
    const float* p = pred.data() + i * A * P;
    for (size_t a = 0; a < A; ++a) {
      const float* z = p + a * P;
      const float m = *std::max_element(z, z + C);
      double sum = 0;
      for (size_t c = 0; c < C; ++c) sum += std::exp(static_cast<double>(z[c] - m));
      for (size_t c = 0; c < C; ++c) scores[a * C + c] = static_cast<float>(std::exp(static_cast<double>(z[c] - m)) / sum);
      const Box b = coder.Decode(z + C, anchors_[a]);
      boxes[a] = {b.x0 * S, b.y0 * S, b.x1 * S, b.y1 * S};
    }
    for (const detection::Detection& d : detection::PerClassNms(boxes, scores.data(), static_cast<int>(C), nms)) {
      const Box b = detection::Clip(d.box, image);
      in.detections.push_back({id, d.label, d.score});
      det_boxes.push_back({b.x0, b.y0, b.width(), b.height()});
    }
  }
  detection::CocoBoxGeometry geo(std::move(det_boxes), std::move(gt_boxes));
  return detection::EvaluateCoco(in, geo);
}

}  // namespace podbench::ssd
