#include "workloads/resnet/resnet_calibration.h"

#include <cmath>

#include "topology/slice.h"
#include "workloads/projection/host.h"
#include "workloads/resnet/google_v06.h"
#include "workloads/resnet/resnet_graph.h"

namespace podbench::resnet {

namespace {
constexpr const char* kSmall = "tpu-v3-32";
constexpr const char* kLarge = "tpu-v3-2048";
}  // namespace

Result<BlockPrediction> PredictGoogleBlock(const topology::SystemSpec& system, const std::string& name) {
  auto cfg = GoogleV06ConfigFor(name);
  if (!cfg) return Status::InvalidArgument("no Google v0.6 ResNet configuration for " + name);
  PODBENCH_ASSIGN_OR_RETURN(topology::Slice slice, topology::Slice::FromName(name, system));
  static const projection::ModelGraph graph = ResNet50Graph();
  PODBENCH_ASSIGN_OR_RETURN(projection::StepConfig config, ResNetPreset("google-v0.6", name, slice.num_cores()));
  PODBENCH_ASSIGN_OR_RETURN(projection::StepProjection step, projection::ProjectTrainStep(graph, config, slice));
  PODBENCH_ASSIGN_OR_RETURN(projection::EvalProjection eval,
                            projection::ProjectEvaluation(graph, config, slice, kImageNetEvalImages));
  BlockPrediction p;
  p.slice = name;
  p.step_s = step.step_s();
  p.step = step;
  const double train_s = static_cast<double>(cfg->steps_per_eval) * p.step_s;
  p.eval_s = eval.exposed_s(train_s);
  p.block_s = train_s + p.eval_s;
  p.published_block_s = cfg->published_block_s;
  const int64_t first_epoch_steps = (kImageNetTrainImages + cfg->global_batch - 1) / cfg->global_batch;
  p.first_extra_s = projection::FirstEpochExtraS(graph.host, config, p.step_s, first_epoch_steps,
                                                 kImageNetTrainImages, slice);
  p.published_first_extra_s = cfg->published_first_block_extra_s;
  return p;
}

topology::SystemSpec ApplyCalibration(topology::SystemSpec system, const Calibration& c) {
  system.core.mxu_efficiency = c.mxu_efficiency;
  system.core.op_overhead_s = c.op_overhead_s;
  system.host.input_bytes_per_s = c.input_bytes_per_s;
  system.host.startup_s = c.startup_s;
  system.host.cache_fill_bytes_per_s = c.cache_fill_bytes_per_s;
  return system;
}

Result<Calibration> CalibrateResNet(const topology::SystemSpec& input) {
  Calibration c;
  topology::SystemSpec system = input;
  system.host.input_bytes_per_s = 1e300;  // not binding while fitting the core
  system.host.startup_s = 0;               // the first block does not enter the fit
  system.host.cache_fill_bytes_per_s = 1e300;
  auto block = [&](const char* slice, double eff, double ovh) -> Result<BlockPrediction> {
    topology::SystemSpec s = system;
    s.core.mxu_efficiency = eff;
    s.core.op_overhead_s = ovh;
    return PredictGoogleBlock(s, slice);
  };
  // For a given overhead, the efficiency that matches the small slice
  // (block time falls as efficiency rises). Bisection on log(efficiency).
  auto fit_eff = [&](double ovh, double* eff) -> Status {
    double lo = std::log(1e-3), hi = 0;
    PODBENCH_ASSIGN_OR_RETURN(BlockPrediction at_hi, block(kSmall, 1.0, ovh));
    if (at_hi.block_s > at_hi.published_block_s) {
      return Status::FailedPrecondition("even at full MXU efficiency the projected tpu-v3-32 block (" +
                                        std::to_string(at_hi.block_s) + " s) is slower than published");
    }
    for (int i = 0; i < 60; ++i) {
      double mid = 0.5 * (lo + hi);
      PODBENCH_ASSIGN_OR_RETURN(BlockPrediction p, block(kSmall, std::exp(mid), ovh));
      (p.block_s > p.published_block_s ? lo : hi) = mid;
      ++c.iterations;
    }
    *eff = std::exp(0.5 * (lo + hi));
    return Status::Ok();
  };
  // Outer bisection on the overhead to match the large slice: more overhead
  // lowers the fitted efficiency's share and raises the large slice's time.
  double lo = 0, hi = 1e-3;
  double eff = 0;
  PODBENCH_RETURN_IF_ERROR(fit_eff(lo, &eff));
  PODBENCH_ASSIGN_OR_RETURN(BlockPrediction at_zero, block(kLarge, eff, lo));
  if (at_zero.block_s > at_zero.published_block_s) {
    return Status::FailedPrecondition(
        "with no per-op overhead the projected tpu-v3-2048 block is already slower than published (" +
        std::to_string(at_zero.block_s) + " s vs " + std::to_string(at_zero.published_block_s) + " s)");
  }
  for (int i = 0; i < 50; ++i) {
    double mid = 0.5 * (lo + hi);
    Status st = fit_eff(mid, &eff);
    if (!st.ok()) {  // too much overhead for the small slice
      hi = mid;
      continue;
    }
    PODBENCH_ASSIGN_OR_RETURN(BlockPrediction p, block(kLarge, eff, mid));
    (p.block_s > p.published_block_s ? hi : lo) = mid;
  }
  c.op_overhead_s = 0.5 * (lo + hi);
  PODBENCH_RETURN_IF_ERROR(fit_eff(c.op_overhead_s, &c.mxu_efficiency));
  // The input rate at which tpu-v3-32's hosts keep up, rounded up to 10 MB/s.
  const double image_bytes = ResNet50Graph().host.infeed_bytes;
  {
    PODBENCH_ASSIGN_OR_RETURN(BlockPrediction p, block(kSmall, c.mxu_efficiency, c.op_overhead_s));
    PODBENCH_ASSIGN_OR_RETURN(topology::Slice slice, topology::Slice::FromName(kSmall, system));
    const double per_host =
        static_cast<double>(projection::ExamplesPerHost(GoogleV06ConfigFor(kSmall)->global_batch, slice)) *
        image_bytes;
    c.input_bytes_per_s = std::ceil(per_host / p.step_s / 1e7) * 1e7;
    system.host.input_bytes_per_s = c.input_bytes_per_s;
  }
  // Start-up: tpu-v3-2048 caches no decoded images, so its first block's
  // extra is the start-up alone.
  {
    auto large = GoogleV06ConfigFor(kLarge);
    auto small = GoogleV06ConfigFor(kSmall);
    if (large->cache_decoded_image || !small->cache_decoded_image) {
      return Status::FailedPrecondition("calibration expects a decoded-image cache at " + std::string(kSmall) +
                                        " and none at " + std::string(kLarge));
    }
    c.startup_s = large->published_first_block_extra_s;
    system.host.startup_s = c.startup_s;
    // tpu-v3-32: the rest of its first block's extra is its hosts' first
    // epoch at the cache-fill rate beyond the device steps.
    PODBENCH_ASSIGN_OR_RETURN(BlockPrediction p, block(kSmall, c.mxu_efficiency, c.op_overhead_s));
    PODBENCH_ASSIGN_OR_RETURN(topology::Slice slice, topology::Slice::FromName(kSmall, system));
    const double fill_extra = small->published_first_block_extra_s - c.startup_s;
    if (!(fill_extra > 0)) {
      return Status::FailedPrecondition("the tpu-v3-32 first block is no longer than the start-up alone");
    }
    const double per_host =
        static_cast<double>(projection::ExamplesPerHost(kImageNetTrainImages, slice)) * image_bytes;
    const int64_t steps = (kImageNetTrainImages + small->global_batch - 1) / small->global_batch;
    c.cache_fill_bytes_per_s = per_host / (static_cast<double>(steps) * p.step_s + fill_extra);
    system.host.cache_fill_bytes_per_s = c.cache_fill_bytes_per_s;
  }
  PODBENCH_ASSIGN_OR_RETURN(c.small, block(kSmall, c.mxu_efficiency, c.op_overhead_s));
  PODBENCH_ASSIGN_OR_RETURN(c.large, block(kLarge, c.mxu_efficiency, c.op_overhead_s));
  const double first_small = c.small.first_extra_s - c.small.published_first_extra_s;
  const double first_large = c.large.first_extra_s - c.large.published_first_extra_s;
  if (std::fabs(first_small) > 0.01 || std::fabs(first_large) > 0.01) {
    return Status::Internal("calibration of the first block did not reproduce it: tpu-v3-32 off by " +
                            std::to_string(first_small) + " s, tpu-v3-2048 by " + std::to_string(first_large) + " s");
  }
  if (std::fabs(c.large.error_pct()) > 1 || std::fabs(c.small.error_pct()) > 1) {
    return Status::FailedPrecondition("calibration did not converge: tpu-v3-32 off by " +
                                      std::to_string(c.small.error_pct()) + "%, tpu-v3-2048 by " +
                                      std::to_string(c.large.error_pct()) + "%");
  }
  return c;
}

}  // namespace podbench::resnet
