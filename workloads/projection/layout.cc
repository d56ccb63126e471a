#include "workloads/projection/layout.h"

namespace podbench::projection {

const char* OptimizerName(OptimizerKind k) {
  switch (k) {
    case OptimizerKind::kSgd: return "sgd";
    case OptimizerKind::kMomentum: return "momentum";
    case OptimizerKind::kLars: return "lars";
    case OptimizerKind::kAdam: return "adam";
    case OptimizerKind::kLazyAdam: return "lazy_adam";
  }
  return "?";
}

const char* SplitDimName(SplitDim d) { return d == SplitDim::kHeight ? "h" : "none"; }

Status ParallelLayout::Validate(int64_t slice_cores) const {
  auto bad = [](const std::string& what) { return Status::InvalidArgument("parallel layout: " + what); };
  if (replicas < 1) return bad("replicas " + std::to_string(replicas) + " must be >= 1");
  if (cores_per_replica < 1) return bad("cores_per_replica " + std::to_string(cores_per_replica) + " must be >= 1");
  if (bn_group < 1) return bad("bn_group " + std::to_string(bn_group) + " must be >= 1");
  if (replicas > slice_cores || cores_per_replica > slice_cores || replicas * cores_per_replica != slice_cores) {
    return bad("replicas " + std::to_string(replicas) + " x cores_per_replica " + std::to_string(cores_per_replica) +
               " must equal the slice's " + std::to_string(slice_cores) + " cores");
  }
  if (replicas % bn_group != 0) {
    return bad("bn_group " + std::to_string(bn_group) + " does not divide the " + std::to_string(replicas) +
               " replicas");
  }
  if ((cores_per_replica > 1) != (split != SplitDim::kNone)) {
    return bad(std::string("split '") + SplitDimName(split) + "' with " + std::to_string(cores_per_replica) +
               " cores per replica: a replica of several cores splits along h, one of one core does not split");
  }
  if (gradient_dtype == DType::kInt32) return bad("gradient_dtype must be bf16 or fp32");
  return Status::Ok();
}

}  // namespace podbench::projection
