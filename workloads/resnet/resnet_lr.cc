#include "workloads/resnet/resnet_lr.h"

#include <algorithm>

namespace podbench::resnet {

Result<LearningRateSchedule> LearningRateSchedule::Of(const workloads::Hyperparameters& hp, int64_t steps_per_epoch) {
  LearningRateSchedule s;
  s.sgd_ = hp.String("opt_name") == "sgd";
  s.base_ = hp.Float("opt_base_learning_rate");
  s.steps_per_epoch_ = std::max<int64_t>(1, steps_per_epoch);
  s.warmup_steps_ = static_cast<double>(hp.Int("opt_learning_rate_warmup_epochs") * s.steps_per_epoch_);
  if (s.sgd_) {
    PODBENCH_ASSIGN_OR_RETURN(s.boundaries_, workloads::ParseIntList("opt_learning_rate_decay_boundary_epochs",
                                                                     hp.String("opt_learning_rate_decay_boundary_epochs")));
  } else {
    s.end_ = hp.Float("lars_opt_end_learning_rate");
    s.decay_steps_ = static_cast<double>(hp.Int("lars_opt_learning_rate_decay_steps"));
  }
  return s;
}

double LearningRateSchedule::At(int64_t step) const {
  const double s = static_cast<double>(step);
  if (s < warmup_steps_) return base_ * (s + 1) / warmup_steps_;
  if (sgd_) {
    double lr = base_;
    for (int64_t b : boundaries_) {
      if (step >= b * steps_per_epoch_) lr *= kSgdDecayFactor;
    }
    return lr;
  }
  const double left = std::clamp(1 - (s - warmup_steps_) / std::max(1.0, decay_steps_ - warmup_steps_), 0.0, 1.0);
  return (base_ - end_) * left * left + end_;
}

}  // namespace podbench::resnet
