#include "workloads/detection/coco_eval.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>

namespace podbench::detection {

namespace {

constexpr int kT = 10;   // IoU thresholds
constexpr int kR = 101;  // recall thresholds
constexpr int kA = 4;    // area ranges: all, small, medium, large
constexpr int kM = 3;    // maxDets
constexpr std::array<int, kM> kMaxDets = {1, 10, 100};
constexpr double kBig = 1e5 * 1e5;
constexpr std::array<std::array<double, 2>, kA> kAreaRanges = {
    {{0, kBig}, {0, 32.0 * 32.0}, {32.0 * 32.0, 96.0 * 96.0}, {96.0 * 96.0, kBig}}};

// numpy.linspace(start, stop, num): i * ((stop - start) / (num - 1)) + start,
// the last element exactly `stop`.
template <int N>
std::array<double, N> Linspace(double start, double stop) {
  std::array<double, N> y{};
  const double step = (stop - start) / (N - 1);
  for (int i = 0; i < N; ++i) y[static_cast<size_t>(i)] = static_cast<double>(i) * step + start;
  y[N - 1] = stop;
  return y;
}

// One (image, category) cell at one area range: COCOeval.evaluateImg.
struct ImageEval {
  std::vector<double> dt_scores;                 // D, score-sorted
  std::array<std::vector<int64_t>, kT> dtm;      // matched ground-truth id, 0 = none
  std::array<std::vector<char>, kT> dt_ignore;
  std::vector<char> gt_ignore;                   // G, ignore-sorted
};

// COCOeval.evaluateImg for one cell. `dets` are score-sorted and truncated to
// 100; ious[d][g] in the input order of `gts`.
ImageEval EvaluateCell(const CocoInput& in, const CocoGeometry& geo, const std::vector<size_t>& gts,
                       const std::vector<size_t>& dets, const std::vector<std::vector<double>>& ious,
                       const std::array<double, 2>& range, const std::array<double, kT>& thresholds) {
  ImageEval e;
  const size_t G = gts.size(), D = dets.size();
  std::vector<char> ignore(G);
  for (size_t g = 0; g < G; ++g) {
    const CocoGroundTruth& t = in.truth[gts[g]];
    ignore[g] = t.iscrowd || t.area < range[0] || t.area > range[1];
  }
  // Ground truth with ignore last, stable (np.argsort kind='mergesort').
  std::vector<size_t> order(G);
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return ignore[a] < ignore[b]; });
  e.gt_ignore.resize(G);
  for (size_t g = 0; g < G; ++g) e.gt_ignore[g] = ignore[order[g]];
  e.dt_scores.resize(D);
  for (size_t d = 0; d < D; ++d) e.dt_scores[d] = in.detections[dets[d]].score;
  for (int t = 0; t < kT; ++t) {
    auto& dtm = e.dtm[static_cast<size_t>(t)];
    auto& dtig = e.dt_ignore[static_cast<size_t>(t)];
    dtm.assign(D, 0);
    dtig.assign(D, 0);
    std::vector<int64_t> gtm(G, 0);
    if (G == 0) continue;  // no IoUs: nothing matches
    for (size_t d = 0; d < D; ++d) {
      double best = std::min(thresholds[static_cast<size_t>(t)], 1 - 1e-10);
      long m = -1;
      for (size_t g = 0; g < G; ++g) {
        const size_t og = order[g];
        const bool crowd = in.truth[gts[og]].iscrowd;
        if (gtm[g] > 0 && !crowd) continue;  // taken, and not a crowd region
        // Matched a regular object already; the rest are ignored ones.
        if (m > -1 && !e.gt_ignore[static_cast<size_t>(m)] && e.gt_ignore[g]) break;
        if (ious[d][og] < best) continue;
        best = ious[d][og];
        m = static_cast<long>(g);
      }
      if (m == -1) continue;
      const size_t um = static_cast<size_t>(m);
      dtig[d] = e.gt_ignore[um];
      dtm[d] = in.truth[gts[order[um]]].id;
      gtm[um] = static_cast<int64_t>(d) + 1;  // any nonzero detection mark
    }
  }
  // Unmatched detections outside the area range are ignored.
  for (size_t d = 0; d < D; ++d) {
    const double a = geo.DetectionArea(dets[d]);
    if (a < range[0] || a > range[1]) {
      for (int t = 0; t < kT; ++t) {
        if (e.dtm[static_cast<size_t>(t)][d] == 0) e.dt_ignore[static_cast<size_t>(t)][d] = 1;
      }
    }
  }
  return e;
}

Status CheckInput(const CocoInput& in, const std::map<int64_t, size_t>& images,
                  const std::map<int64_t, size_t>& cats) {
  std::map<int64_t, size_t> ids;
  for (size_t i = 0; i < in.truth.size(); ++i) {
    const CocoGroundTruth& t = in.truth[i];
    const std::string at = "COCO ground truth #" + std::to_string(i) + " (id " + std::to_string(t.id) + ")";
    if (t.id < 1) return Status::InvalidArgument(at + ": ids must be >= 1 (COCOeval uses 0 for 'unmatched')");
    if (!ids.emplace(t.id, i).second) return Status::InvalidArgument(at + ": repeated id");
    if (!images.count(t.image_id)) {
      return Status::InvalidArgument(at + ": image " + std::to_string(t.image_id) + " is not among the images");
    }
    if (!cats.count(t.category_id)) {
      return Status::InvalidArgument(at + ": category " + std::to_string(t.category_id) +
                                     " is not among the categories");
    }
    if (!std::isfinite(t.area)) return Status::InvalidArgument(at + ": area is not finite");
  }
  for (size_t i = 0; i < in.detections.size(); ++i) {
    const CocoDetection& d = in.detections[i];
    const std::string at = "COCO detection #" + std::to_string(i);
    if (!images.count(d.image_id)) {
      return Status::InvalidArgument(at + ": image " + std::to_string(d.image_id) + " is not among the images");
    }
    if (!cats.count(d.category_id)) {
      return Status::InvalidArgument(at + ": category " + std::to_string(d.category_id) +
                                     " is not among the categories");
    }
    if (!std::isfinite(d.score)) return Status::InvalidArgument(at + ": score is not finite");
  }
  return Status::Ok();
}

// One shape per ground truth and per detection.
Status CheckCounts(const CocoInput& in, size_t detections, size_t truth, const char* kind) {
  if (detections != in.detections.size() || truth != in.truth.size()) {
    return Status::InvalidArgument(std::string("COCO ") + kind + " geometry: " + std::to_string(detections) +
                                   " detections and " + std::to_string(truth) + " ground truths, the input has " +
                                   std::to_string(in.detections.size()) + " and " + std::to_string(in.truth.size()));
  }
  return Status::Ok();
}

Status CheckMask(const Rle& m, const std::string& at) {
  uint64_t sum = 0;
  for (uint32_t c : m.counts) sum += c;
  if (m.height < 0 || m.width < 0 || sum != static_cast<uint64_t>(m.height) * static_cast<uint64_t>(m.width)) {
    return Status::InvalidArgument(at + ": mask counts sum to " + std::to_string(sum) + ", not its " +
                                   std::to_string(m.height) + "x" + std::to_string(m.width) + " pixels");
  }
  return Status::Ok();
}

}  // namespace

Status CocoBoxGeometry::Validate(const CocoInput& in) const {
  PODBENCH_RETURN_IF_ERROR(CheckCounts(in, dt_.size(), gt_.size(), "bbox"));
  for (size_t i = 0; i < dt_.size() + gt_.size(); ++i) {
    const bool det = i < dt_.size();
    const CocoBox& b = det ? dt_[i] : gt_[i - dt_.size()];
    for (double v : b) {
      if (!std::isfinite(v)) {
        return Status::InvalidArgument(std::string(det ? "COCO detection #" : "COCO ground truth #") +
                                       std::to_string(det ? i : i - dt_.size()) + ": box is not finite");
      }
    }
  }
  return Status::Ok();
}

CocoMaskGeometry::CocoMaskGeometry(std::vector<Rle> detections, std::vector<Rle> truth)
    : dt_(std::move(detections)), gt_(std::move(truth)) {
  for (const Rle& m : dt_) dt_area_.push_back(static_cast<double>(MaskArea(m)));
}

Status CocoMaskGeometry::Validate(const CocoInput& in) const {
  PODBENCH_RETURN_IF_ERROR(CheckCounts(in, dt_.size(), gt_.size(), "segm"));
  std::map<int64_t, std::pair<const Rle*, std::string>> first_on_image;
  auto check = [&](const Rle& m, int64_t image, const std::string& at) -> Status {
    PODBENCH_RETURN_IF_ERROR(CheckMask(m, at));
    auto [it, fresh] = first_on_image.emplace(image, std::make_pair(&m, at));
    const Rle& f = *it->second.first;
    if (!fresh && (f.height != m.height || f.width != m.width)) {
      return Status::InvalidArgument(at + ": mask is " + std::to_string(m.height) + "x" + std::to_string(m.width) +
                                     " but " + it->second.second + " on the same image " + std::to_string(image) +
                                     " is " + std::to_string(f.height) + "x" + std::to_string(f.width));
    }
    return Status::Ok();
  };
  for (size_t i = 0; i < gt_.size(); ++i) {
    PODBENCH_RETURN_IF_ERROR(check(gt_[i], in.truth[i].image_id, "COCO ground truth #" + std::to_string(i)));
  }
  for (size_t i = 0; i < dt_.size(); ++i) {
    PODBENCH_RETURN_IF_ERROR(check(dt_[i], in.detections[i].image_id, "COCO detection #" + std::to_string(i)));
  }
  return Status::Ok();
}

double CocoMaskGeometry::Iou(size_t d, size_t g, bool crowd) const {
  return MaskIou(dt_[d], gt_[g], crowd);
}

double CocoBoxGeometry::Iou(size_t d, size_t g, bool crowd) const {
  const CocoBox& D = dt_[d];
  const CocoBox& G = gt_[g];
  const double w = std::min(D[2] + D[0], G[2] + G[0]) - std::max(D[0], G[0]);
  if (w <= 0) return 0;
  const double h = std::min(D[3] + D[1], G[3] + G[1]) - std::max(D[1], G[1]);
  if (h <= 0) return 0;
  const double i = w * h;
  const double da = D[2] * D[3], ga = G[2] * G[3];
  return i / (crowd ? da : da + ga - i);
}

const std::array<const char*, CocoSummary::kCount>& CocoSummary::Names() {
  static const std::array<const char*, kCount> names = {"AP",   "AP50", "AP75",  "APs", "APm", "APl",
                                                       "AR1",  "AR10", "AR100", "ARs", "ARm", "ARl"};
  return names;
}

Result<CocoSummary> EvaluateCoco(const CocoInput& in, const CocoGeometry& geo) {
  std::map<int64_t, size_t> images, cats;  // sorted ids -> index
  for (int64_t id : in.image_ids) images.emplace(id, 0);
  for (int64_t id : in.category_ids) cats.emplace(id, 0);
  size_t n = 0;
  for (auto& [id, idx] : images) idx = n++;
  n = 0;
  for (auto& [id, idx] : cats) idx = n++;
  PODBENCH_RETURN_IF_ERROR(CheckInput(in, images, cats));
  PODBENCH_RETURN_IF_ERROR(geo.Validate(in));
  const size_t I = images.size(), K = cats.size();
  const auto thresholds = Linspace<kT>(0.5, 0.95);
  const auto recall_thresholds = Linspace<kR>(0.0, 1.0);

  // Annotations per (category, image) cell, in input order.
  std::vector<std::vector<size_t>> cell_gt(K * I), cell_dt(K * I);
  for (size_t i = 0; i < in.truth.size(); ++i) {
    cell_gt[cats[in.truth[i].category_id] * I + images[in.truth[i].image_id]].push_back(i);
  }
  for (size_t i = 0; i < in.detections.size(); ++i) {
    cell_dt[cats[in.detections[i].category_id] * I + images[in.detections[i].image_id]].push_back(i);
  }
  // evaluate(): per cell and area range; empty cells stay absent.
  std::vector<std::array<ImageEval, kA>> evals(K * I);
  std::vector<char> present(K * I, 0);
  for (size_t c = 0; c < K * I; ++c) {
    const auto& gts = cell_gt[c];
    std::vector<size_t> dets = cell_dt[c];
    if (gts.empty() && dets.empty()) continue;
    present[c] = 1;
    std::stable_sort(dets.begin(), dets.end(),
                     [&](size_t a, size_t b) { return in.detections[a].score > in.detections[b].score; });
    if (dets.size() > static_cast<size_t>(kMaxDets.back())) dets.resize(static_cast<size_t>(kMaxDets.back()));
    std::vector<std::vector<double>> ious(dets.size(), std::vector<double>(gts.size()));
    for (size_t d = 0; d < dets.size(); ++d) {
      for (size_t g = 0; g < gts.size(); ++g) ious[d][g] = geo.Iou(dets[d], gts[g], in.truth[gts[g]].iscrowd);
    }
    for (int a = 0; a < kA; ++a) {
      evals[c][static_cast<size_t>(a)] =
          EvaluateCell(in, geo, gts, dets, ious, kAreaRanges[static_cast<size_t>(a)], thresholds);
    }
  }

  // accumulate(): precision [T][R][K][A][M] and recall [T][K][A][M], -1 = absent.
  auto pidx = [&](int t, int r, size_t k, int a, int m) {
    return (((static_cast<size_t>(t) * kR + static_cast<size_t>(r)) * K + k) * kA + static_cast<size_t>(a)) * kM +
           static_cast<size_t>(m);
  };
  auto ridx = [&](int t, size_t k, int a, int m) {
    return ((static_cast<size_t>(t) * K + k) * kA + static_cast<size_t>(a)) * kM + static_cast<size_t>(m);
  };
  std::vector<double> precision(kT * kR * K * kA * kM, -1.0), recall(kT * K * kA * kM, -1.0);
  const double eps = std::numeric_limits<double>::epsilon();  // np.spacing(1)
  for (size_t k = 0; k < K; ++k) {
    for (int a = 0; a < kA; ++a) {
      for (int m = 0; m < kM; ++m) {
        const size_t max_det = static_cast<size_t>(kMaxDets[static_cast<size_t>(m)]);
        std::vector<double> scores;
        std::array<std::vector<int64_t>, kT> dtm;
        std::array<std::vector<char>, kT> dtig;
        size_t npig = 0;
        bool any = false;
        for (size_t i = 0; i < I; ++i) {  // images in ascending id
          const size_t c = k * I + i;
          if (!present[c]) continue;
          any = true;
          const ImageEval& e = evals[c][static_cast<size_t>(a)];
          const size_t take = std::min(max_det, e.dt_scores.size());
          scores.insert(scores.end(), e.dt_scores.begin(), e.dt_scores.begin() + static_cast<long>(take));
          for (int t = 0; t < kT; ++t) {
            const auto& src_m = e.dtm[static_cast<size_t>(t)];
            const auto& src_i = e.dt_ignore[static_cast<size_t>(t)];
            dtm[static_cast<size_t>(t)].insert(dtm[static_cast<size_t>(t)].end(), src_m.begin(),
                                               src_m.begin() + static_cast<long>(take));
            dtig[static_cast<size_t>(t)].insert(dtig[static_cast<size_t>(t)].end(), src_i.begin(),
                                                src_i.begin() + static_cast<long>(take));
          }
          for (char g : e.gt_ignore) npig += g == 0;
        }
        if (!any || npig == 0) continue;
        std::vector<size_t> order(scores.size());
        std::iota(order.begin(), order.end(), size_t{0});
        std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) { return -scores[x] < -scores[y]; });
        const size_t nd = order.size();
        for (int t = 0; t < kT; ++t) {
          std::vector<double> rc(nd), pr(nd);
          double tp = 0, fp = 0;
          for (size_t j = 0; j < nd; ++j) {
            const size_t o = order[j];
            const bool ignored = dtig[static_cast<size_t>(t)][o] != 0;
            const bool matched = dtm[static_cast<size_t>(t)][o] != 0;
            if (!ignored && matched) tp += 1;
            if (!ignored && !matched) fp += 1;
            rc[j] = tp / static_cast<double>(npig);
            pr[j] = tp / (fp + tp + eps);
          }
          recall[ridx(t, k, a, m)] = nd ? rc[nd - 1] : 0.0;
          for (size_t j = nd; j-- > 1;) {
            if (pr[j] > pr[j - 1]) pr[j - 1] = pr[j];
          }
          for (int r = 0; r < kR; ++r) {
            // np.searchsorted(rc, threshold, side='left')
            const size_t at = static_cast<size_t>(
                std::lower_bound(rc.begin(), rc.end(), recall_thresholds[static_cast<size_t>(r)]) - rc.begin());
            precision[pidx(t, r, k, a, m)] = at < nd ? pr[at] : 0.0;
          }
        }
      }
    }
  }

  // summarize(): means over the entries > -1; -1 when there are none.
  auto mean = [](const std::vector<double>& v) {
    double s = 0;
    size_t c = 0;
    for (double x : v) {
      if (x > -1) {
        s += x;
        ++c;
      }
    }
    return c ? s / static_cast<double>(c) : -1.0;
  };
  auto threshold_index = [&](double thr) {
    for (int t = 0; t < kT; ++t) {
      if (thresholds[static_cast<size_t>(t)] == thr) return t;
    }
    return -1;
  };
  auto summarize = [&](bool ap, double iou_thr, int a, int m) {
    std::vector<double> sel;
    const int only = iou_thr < 0 ? -1 : threshold_index(iou_thr);
    for (int t = 0; t < kT; ++t) {
      if (iou_thr >= 0 && t != only) continue;
      for (size_t k = 0; k < K; ++k) {
        if (ap) {
          for (int r = 0; r < kR; ++r) sel.push_back(precision[pidx(t, r, k, a, m)]);
        } else {
          sel.push_back(recall[ridx(t, k, a, m)]);
        }
      }
    }
    return mean(sel);
  };
  CocoSummary s;
  s.stats = {summarize(true, -1, 0, 2),  summarize(true, 0.5, 0, 2), summarize(true, 0.75, 0, 2),
             summarize(true, -1, 1, 2),  summarize(true, -1, 2, 2),  summarize(true, -1, 3, 2),
             summarize(false, -1, 0, 0), summarize(false, -1, 0, 1), summarize(false, -1, 0, 2),
             summarize(false, -1, 1, 2), summarize(false, -1, 2, 2), summarize(false, -1, 3, 2)};
  return s;
}

}  // namespace podbench::detection
