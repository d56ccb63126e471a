// Calibration of the system description from two ResNet-50 runs only,
// through the shared projection layer (workloads/projection/projection.h):
// the same pricing every projected workload uses.
//
// The procedure (`podbench calibrate`): take Google's v0.6 configuration of
// ResNet-50 at tpu-v3-32 and tpu-v3-2048 (resnet_graph.h's preset) and the
// published median time of a 4-epoch block including its evaluation there
// (164.1 s and 3.95 s), and fit the two calibration parameters of the core
// that no public source gives:
//   core.mxu_efficiency  the fraction of MXU peak reached on 128-aligned tiles
//   core.op_overhead_s   the fixed cost of each op (issue, pipeline fill)
// so that the projected block times equal the published ones, with the host
// input pipeline taken as not binding; then
//   host.input_bytes_per_s
// is set to the rate tpu-v3-32 needs not to be input-bound (its hosts feed
// 1,024 images a step from a decoded-image cache, 301,060 device-ready bytes
// each), a lower bound, since the published runs were not input-bound. Last,
// the two host start-up values:
//   host.startup_s               how much longer tpu-v3-2048's first block is
//                                than its median block (no decoded cache there)
//   host.cache_fill_bytes_per_s  the rate at which tpu-v3-32's hosts fill their
//                                decoded-image cache, from how much longer its
//                                first block is, after the start-up
// (both published figures are medians over the five runs' logs). Link
// bandwidth, hop latency and host.scoring_ops_per_s keep their documented
// values. No other slice or benchmark is looked at; nothing is per slice or
// per model: the host rates are in bytes, which every model's per-example
// host work is stated in.
#pragma once

#include <string>

#include "base/status.h"
#include "topology/system.h"
#include "workloads/projection/projection.h"

namespace podbench::resnet {

struct BlockPrediction {
  std::string slice;
  double step_s = 0;
  projection::StepProjection step;  // the step's parts
  double eval_s = 0;
  double block_s = 0;        // steps_per_eval steps + one evaluation
  double published_block_s = 0;
  // The first block's extra time over a steady one (FirstEpochExtraS),
  // and the published median of the same.
  double first_extra_s = 0;
  double published_first_extra_s = 0;
  double error_pct() const { return (block_s - published_block_s) / published_block_s * 100; }
};

// Projected 4-epoch block (with its evaluation) of Google's v0.6 ResNet-50
// configuration for `slice` on `system`. InvalidArgument for a slice the
// submission did not run.
Result<BlockPrediction> PredictGoogleBlock(const topology::SystemSpec& system, const std::string& slice);

struct Calibration {
  double mxu_efficiency = 0;
  double op_overhead_s = 0;
  double input_bytes_per_s = 0;
  double startup_s = 0;
  double cache_fill_bytes_per_s = 0;
  BlockPrediction small, large;  // the two calibration slices after the fit
  int iterations = 0;
};

// Fits mxu_efficiency in (0, 1] and op_overhead_s >= 0 to the two slices'
// blocks, then the input rate and the two start-up values.
// FailedPrecondition when no values in range reproduce both (e.g. a system
// file whose links alone are slower than the published block, or a first
// block the start-up alone makes too slow).
Result<Calibration> CalibrateResNet(const topology::SystemSpec& system);

// `system` with the calibrated values written into its core.
topology::SystemSpec ApplyCalibration(topology::SystemSpec system, const Calibration& c);

}  // namespace podbench::resnet
