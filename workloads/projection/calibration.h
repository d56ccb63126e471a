// Calibration of the system description, for every model at once: the
// published figures each model declares (CalibrationPoint, registered from
// its folder), and the fit `podbench calibrate` makes to them through the
// shared composition (projected_run.h), the same pricing every projected run
// uses.
//
// The values no public source gives, and what each is fitted to:
//   core.mxu_efficiency, core.op_overhead_s   least squares of the relative
//       errors of every kBlock point (the median gap between evaluations: a
//       block of training and its evaluation's exposed part), the host input
//       taken as not binding while they are fitted;
//   host.input_bytes_per_s   the rate every kInputBound point needs so that
//       its hosts keep up with its steps (a lower bound: the published runs
//       were not input-bound), rounded up to 10 MB/s;
//   host.startup_s, host.startup_s_per_host, host.cache_fill_bytes_per_s
//       one least-squares fit of the relative errors of every
//       kFirstBlockExtra point (how much longer a run's first block is than
//       its median block): a start-up that grows with the slice's hosts,
//       plus, in a run that fills a decoded-example cache, the fill of its
//       hosts' shards (stored bytes at the fill rate) beyond its first
//       epoch's steps. The slope is kept >= 0 (a start-up does not shrink
//       with more hosts) and is 0 when the points give one host count;
//   host.scoring_ops_per_s   the rate at which every kScoring point's
//       counted operations (the model's HostWork::score_ops per example) take
//       the published host-scoring time, least squares of the relative
//       errors; kept at the system file's documented estimate when no model
//       declares a scoring point.
// Values read straight from a published time rather than fitted are listed
// by the fit too (Calibration::read_values). Nothing is per slice or per
// model: the host rates are in bytes and operations, which every model's
// per-example host work (graph.h HostWork) is stated in.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "base/status.h"
#include "topology/system.h"
#include "workloads/projection/projected_run.h"

namespace podbench::projection {

enum class CalibrationKind {
  // The median gap between consecutive evaluations before run_stop (seconds),
  // median over the published runs: a block and its evaluation's exposed part.
  kBlock,
  // How much longer the first block (run_start to the first evaluation) is
  // than the median block (seconds), median over the published runs.
  kFirstBlockExtra,
  // The published runs on this slice were not input-bound (no figure).
  kInputBound,
  // The host's scoring of one evaluation (seconds), median over the published
  // runs' evaluation windows.
  kScoring,
};
const char* CalibrationKindName(CalibrationKind k);  // "block", "first_block_extra", "input_bound", "scoring"

// A published figure a model declares for `podbench calibrate`.
struct CalibrationPoint {
  std::string slice;
  CalibrationKind kind = CalibrationKind::kBlock;
  double published_s = 0;  // 0 for kInputBound
  std::string source;      // where the figure is read, e.g. "median of 5 runs' logs"
};

// A point with how to price it: `predict` prices the model's preset on the
// point's slice on a system (the fit's trial values written in) through the
// composition.
struct CalibrationTarget {
  std::string model;
  CalibrationPoint point;
  // The prediction of the row, and what the point needs of it.
  struct Priced {
    RowPrediction row;
    bool caches_decoded_examples = false;
    int64_t hosts = 0;
    double first_epoch_fill_bytes = 0;  // device-ready bytes the busiest host caches in the first epoch
    double first_epoch_steps_s = 0;  // the first epoch's steps on the device
    double per_host_step_bytes = 0;  // infeed bytes the busiest host delivers per step
    double scoring_s = 0;            // one evaluation's host scoring, at the trial's host.scoring_ops_per_s
  };
  std::function<Result<Priced>(const topology::SystemSpec&)> predict;
};

// A value the fit sets or reads, with what it came from.
struct CalibratedValue {
  std::string key;       // the system file's key, e.g. "core.mxu_efficiency"
  double value = 0;
  std::string unit;      // "", "s", "B/s"
  std::string how;       // e.g. "least squares over 4 blocks: resnet tpu-v3-32, ..."
  bool fitted = true;    // false: read from a published time as it is, or documented
};

struct PointFit {
  std::string model;
  CalibrationPoint point;
  double predicted_s = 0;
  double error_pct() const { return point.published_s > 0 ? (predicted_s - point.published_s) / point.published_s * 100 : 0; }
};

struct Calibration {
  std::vector<CalibratedValue> values;  // every value set, in the system file's order
  std::vector<PointFit> points;         // every point after the fit
  int iterations = 0;
  // The value of `key`. REQUIRES: present.
  double Value(const std::string& key) const;
};

// Fits the values above to `targets` on `system`. FailedPrecondition when
// there is no kBlock point, when no value in range reproduces them, or when
// a point cannot be priced (the message names it).
Result<Calibration> Calibrate(const topology::SystemSpec& system, const std::vector<CalibrationTarget>& targets);

// `system` with the calibrated values written in.
topology::SystemSpec ApplyCalibration(topology::SystemSpec system, const Calibration& c);

}  // namespace podbench::projection
