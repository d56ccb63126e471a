// The learning-rate schedules of the functional ResNet: Google's v0.6 LARS
// package (linear warm-up, then power-2 polynomial decay to an end rate) and
// momentum SGD as the MLPerf reference and Goyal et al. 2017 schedule it
// (linear warm-up, then the base rate divided by 10 at each boundary epoch).
#pragma once

#include <cstdint>
#include <vector>

#include "base/status.h"
#include "workloads/workload.h"

namespace podbench::resnet {

class LearningRateSchedule {
 public:
  // The schedule `hp` sets (opt_name, opt_base_learning_rate,
  // opt_learning_rate_warmup_epochs, and LARS's lars_opt_end_learning_rate
  // and lars_opt_learning_rate_decay_steps, or SGD's
  // opt_learning_rate_decay_boundary_epochs) for epochs of
  // `steps_per_epoch` steps. InvalidArgument for a malformed boundary list.
  static Result<LearningRateSchedule> Of(const workloads::Hyperparameters& hp, int64_t steps_per_epoch);

  // The rate of step `step` (0-based): linear warm-up over the warm-up
  // epochs (reaching the base rate at the warm-up's last step), then LARS's
  // (base - end) x (1 - progress)^2 + end, progress over the steps from the
  // warm-up's end to decay_steps; or SGD's base x 0.1 per boundary passed.
  double At(int64_t step) const;

 private:
  bool sgd_ = false;
  double base_ = 0, warmup_steps_ = 0, end_ = 0, decay_steps_ = 1;
  int64_t steps_per_epoch_ = 1;
  std::vector<int64_t> boundaries_;  // SGD: epochs at which the rate drops
};

// The factor momentum SGD's rate is multiplied by at each boundary.
inline constexpr double kSgdDecayFactor = 0.1;

}  // namespace podbench::resnet
