#include "workloads/functional/parallel_hyperparameters.h"

#include <string>

namespace podbench::functional {

std::vector<workloads::HyperparameterSpec> DataParallelHyperparameters(const std::string& optimizer) {
  std::vector<workloads::HyperparameterSpec> s(3);
  s[0].name = "allreduce";
  s[0].default_value = std::string("torus2d");
  s[0].choices = {"ring", "ring_bidir", "torus2d", "torus2d_pipelined", "torus2d_bidir"};
  s[0].help = "gradient summation algorithm";
  s[1].name = "gradient_allreduce_dtype";
  s[1].default_value = std::string("fp32");
  s[1].choices = {"fp32", "bf16"};
  s[1].help = "gradients summed in fp32, or rounded to and summed in bf16";
  s[2].name = "weight_update_sharding";
  s[2].default_value = false;
  s[2].help = "reduce-scatter gradients, " + optimizer + " on each core's 1/N of the weights, all-gather";
  for (auto& spec : s) spec.log = false;
  return s;
}

DataParallelConfig DataParallelFromHyperparameters(const workloads::Hyperparameters& hp,
                                                   const workloads::SliceInfo& slice,
                                                   const topology::SystemSpec* system) {
  DataParallelConfig c;
  c.cores = static_cast<int>(slice.cores);
  c.slice = slice.name;
  c.system = system;
  c.allreduce = hp.String("allreduce");
  c.gradient_dtype = hp.String("gradient_allreduce_dtype") == "bf16" ? topology::DType::kBF16 : topology::DType::kF32;
  c.weight_update_sharding = hp.Bool("weight_update_sharding");
  return c;
}

Result<projection::ParallelLayout> SpatiallyPartitionedLayout(const workloads::Hyperparameters& hp,
                                                             const workloads::SliceInfo& slice) {
  const int64_t k = hp.Int("spatial_partitions");
  if ((k != 1 && k != 2 && k != 4) || slice.cores % k != 0) {
    return Status::InvalidArgument("spatial_partitions " + std::to_string(k) + " must be 1, 2 or 4 and divide the " +
                                   std::to_string(slice.cores) + " cores of " + slice.name);
  }
  projection::ParallelLayout l;
  l.cores_per_replica = k;
  l.split = k > 1 ? projection::SplitDim::kHeight : projection::SplitDim::kNone;
  l.replicas = slice.cores / k;
  const int64_t b = hp.Int("global_batch_size");
  if (b % l.replicas != 0) {
    return Status::InvalidArgument("global_batch_size " + std::to_string(b) + " does not split evenly over the " +
                                   std::to_string(l.replicas) + " replicas (" + std::to_string(slice.cores) +
                                   " cores of " + slice.name + " / spatial_partitions " + std::to_string(k) + ")");
  }
  l.allreduce = hp.String("allreduce");
  l.gradient_dtype = projection::DType::kF32;
  return l;
}

}  // namespace podbench::functional
