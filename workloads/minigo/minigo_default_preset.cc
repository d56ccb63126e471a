#include "workloads/minigo/minigo_default_preset.h"

#include <string>

#include "workloads/registry.h"

namespace podbench::minigo {

Result<projection::StepConfig> DefaultPreset(std::string_view preset, std::string_view slice, int64_t slice_cores) {
  if (preset != "default") return workloads::PresetNotFound("minigo", preset, {"default"});
  if (slice_cores < 1 || kMiniGoTrainBatch % slice_cores != 0) {
    return Status::InvalidArgument("minigo preset 'default': " + std::string(slice) + " has " +
                                   std::to_string(slice_cores) + " cores, which do not divide the batch of " +
                                   std::to_string(kMiniGoTrainBatch) + " positions");
  }
  projection::StepConfig c;
  c.layout.replicas = slice_cores;
  c.layout.gradient_dtype = projection::DType::kF32;
  c.optimizer = projection::OptimizerKind::kMomentum;
  c.per_replica_batch = kMiniGoTrainBatch / slice_cores;
  c.eval_per_replica_batch = kMiniGoInferenceBatch;
  return workloads::CheckedPreset("minigo", preset, slice, slice_cores, c);
}

}  // namespace podbench::minigo
