// Data-parallel training over a slice's emulated TPU cores, for functional
// workloads (Transformer; SSD and ResNet can run on it too): the machinery
// between a model's per-core forward/backward and its optimizer.
//
//   - One host thread per emulated core (OnEveryCore); cores can meet inside
//     a step (Sync) and run a collective there (CollectiveInStep, e.g. the
//     batch-norm statistics of a group of replicas).
//   - Each core has an fp32 gradient buffer the backward pass fills.
//     SumGradients sums them over all cores with the topology's functional
//     collectives: the all-reduce `allreduce`, or with weight-update sharding
//     the reduce-scatter of topology::ShardedPairOf(allreduce). With
//     gradient_dtype bf16 every core's gradient is rounded to bf16 first and
//     the collective moves and adds bf16 (each transfer adds in fp32 and
//     rounds once, as topology/functional.h defines), as Google's
//     Transformer on tpu-v3-32 summed its gradients (bfloat16_grads_all_reduce);
//     the sum is widened back to fp32 for the optimizer.
//   - Weights are fp32 master weights. Without sharding there is one copy
//     that every core reads and the optimizer updates once (identical
//     replicas computing identical updates). With weight-update sharding
//     every core has its own replica; ApplyUpdate runs the optimizer on each
//     core's shard of its own replica (its thread, its shard of the summed
//     gradient), then the all-gather of the pair gives every replica every
//     shard. Shards are topology::ShardOfCore's layout.
//
//   - Over processes: with DataParallelConfig::ranks (a topology::RankGroup,
//     e.g. the ranks of `mpirun`), this process holds only its block of the
//     cores (local_cores(): their threads, gradients, replicas) and every
//     collective runs over the group, bitwise as in one process. Without
//     sharding every rank keeps the one fp32 copy and updates it
//     identically. Per-core results the whole run needs (losses, evaluation
//     outputs) are exchanged with ShareCoreBytes/ShareCoreValues.
//
// Threading contract: OnEveryCore's function may call Sync and
// CollectiveInStep; then every core must make the same calls in the same
// order, even after an error (finish the step, return the error after).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"
#include "topology/collectives.h"
#include "topology/rank_group.h"
#include "topology/slice.h"
#include "topology/system.h"

namespace podbench::functional {

struct DataParallelConfig {
  int cores = 1;                 // emulated cores = data-parallel replicas
  std::string slice;             // REQUIRED when cores > 1: a slice of exactly `cores` cores
  const topology::SystemSpec* system = nullptr;  // null = topology::DefaultSystem()
  std::string allreduce = "torus2d";              // a registered all-reduce
  topology::DType gradient_dtype = topology::DType::kF32;
  bool weight_update_sharding = false;
  // The processes the cores are spread over; null = this process holds
  // every core (topology::OneProcess()).
  std::shared_ptr<topology::RankGroup> ranks;
  // Weight-update sharding: the registered reduce-scatter and all-gather to
  // run instead of topology::ShardedPairOf(allreduce) (e.g. to keep one pair
  // whatever the all-reduce). Both or neither; each must give core c its
  // topology::ShardOfCore shard (InvalidArgument otherwise).
  std::string reduce_scatter, all_gather;
};

class DataParallel {
 public:
  // InvalidArgument naming the field for a bad config (cores < 1, a slice of
  // another size, an unknown all-reduce or one without a sharded pair when
  // sharding, parameters < 1). Every weight copy starts at zero.
  static Result<std::unique_ptr<DataParallel>> Create(const DataParallelConfig& config, int64_t parameters);
  ~DataParallel();

  const DataParallelConfig& config() const { return cfg_; }
  int cores() const { return cfg_.cores; }
  int64_t parameters() const { return n_; }
  bool sharded() const { return replicas_ != nullptr; }

  // The cores this process holds: all of them, or its rank's block.
  topology::CoreBlock local_cores() const { return local_; }
  bool IsLocal(int core) const { return local_.Holds(core); }
  // Whether this process holds any core of the replica that trains row
  // `row` of a global batch of `global_batch` rows, the cores split into
  // replicas of `cores_per_replica` consecutive cores, each replica taking
  // global_batch / replicas consecutive rows (spatially partitioned models:
  // every core of a replica reads the replica's images).
  // REQUIRES: cores_per_replica divides cores(), replicas divide global_batch.
  bool IsLocalReplicaRow(int64_t row, int64_t global_batch, int cores_per_replica) const {
    const int64_t rows_per_replica = global_batch / (cores() / cores_per_replica);
    const int first = static_cast<int>(row / rows_per_replica) * cores_per_replica;
    for (int c = first; c < first + cores_per_replica; ++c) {
      if (IsLocal(c)) return true;
    }
    return false;
  }
  topology::RankGroup& ranks() const { return *group_; }

  // Runs f(core) for every local core, each on its own host thread (the
  // caller's when there is one); returns the first error in core order.
  Status OnEveryCore(const std::function<Status(int core)>& f);
  // Inside OnEveryCore: returns once every core has called it.
  void Sync();
  // Inside OnEveryCore, on every core: once all cores have arrived, runs
  // `algorithm` on `buffers` (holding every local core) over `logical`,
  // over the ranks; returns its status on every core.
  Status CollectiveInStep(int core, std::string_view algorithm, const topology::LogicalTopology& logical,
                          topology::CoreBuffers& buffers);
  // Every core of the slice (REQUIRES: cores() > 1).
  const topology::LogicalTopology& whole_slice() const { return *whole_; }
  // The slice itself, e.g. to build replica groups for CollectiveInStep
  // (REQUIRES: cores() > 1).
  const topology::Slice& slice() const { return *slice_; }

  // Every rank's values of its own cores: on entry per_core[c] is set for
  // the local cores c (per_core.size() == cores()); on return every entry
  // holds its core's value, from the rank that owns it. Call between steps,
  // on every rank.
  Status ShareCoreBytes(std::vector<std::string>& per_core);
  Status ShareCoreValues(std::span<double> per_core);

  // Sets every weight copy to `w`. REQUIRES: w.size() == parameters().
  void SetWeights(std::span<const float> w);
  // The weights core `core` (a local core) computes with: its replica with
  // sharding, else the one shared copy.
  const float* weights(int core) const;
  // Without sharding: the one shared copy itself, which the caller may read
  // and edit between steps (ApplyUpdate updates it in place). REQUIRES:
  // !sharded().
  std::vector<float>& shared_weights() { return weights_; }
  // Core `core`'s gradient buffer (fp32, parameters() elements), for its
  // backward pass to fill. SumGradients replaces it with the sum.
  float* gradient(int core);

  // Sums the cores' gradients (see above). Call between steps, not inside
  // OnEveryCore. Errors come from the collectives.
  Status SumGradients();
  // The half-open range of parameters core `core` updates: its shard with
  // weight-update sharding, else everything for core 0 and nothing for the
  // others.
  std::pair<int64_t, int64_t> shard(int core) const;
  // After SumGradients: the summed gradient, valid on shard(core); indexed
  // like the parameters.
  const float* summed_gradient(int core) const;

  // The optimizer on one range: update weights w[begin, end) from g[begin,
  // end) (both indexed like the parameters). With sharding it runs on every
  // core's thread at once, so it must touch only [begin, end) of any state.
  using ShardUpdate = std::function<void(int core, int64_t begin, int64_t end, float* w, const float* g)>;
  // Applies `update` to shard(core) of the weights core `core` owns, for
  // every local core that owns any, then all-gathers the shards (with
  // sharding). Without sharding every rank updates its copy as core 0.
  Status ApplyUpdate(const ShardUpdate& update);

  // Sums small per-core vectors over all cores with `allreduce` (e.g. the
  // per-layer partial norms LARS needs under sharding). `buffers` hold the
  // local cores.
  Status AllReduce(topology::CoreBuffers& buffers);

 private:
  DataParallel() = default;
  Status Setup(const DataParallelConfig& config, int64_t parameters);

  DataParallelConfig cfg_;
  int64_t n_ = 0;
  std::shared_ptr<topology::RankGroup> group_;
  topology::CoreBlock local_;
  std::optional<topology::Slice> slice_;
  std::optional<topology::LogicalTopology> whole_;
  std::optional<topology::Schedule> allreduce_, reduce_scatter_, all_gather_;
  std::unique_ptr<topology::CoreBuffers> grads_;       // fp32, every core
  std::unique_ptr<topology::CoreBuffers> grads_bf16_;  // gradient_dtype bf16
  std::unique_ptr<topology::CoreBuffers> replicas_;    // sharding: every core's weights
  std::vector<float> weights_;                         // no sharding: the one copy
  struct Meeting;
  std::unique_ptr<Meeting> meeting_;
};

// For outputs dealt to the cores round-robin in chunks (chunk k of `chunk`
// rows to core k % cores(), as the Translate functions deal sentences):
// `rows` holds the rows of this process's cores on entry, every row on
// return (from the ranks that computed them). Call on every rank.
Status ShareRoundRobinRows(DataParallel& dp, int64_t chunk, std::vector<std::vector<int32_t>>& rows);

}  // namespace podbench::functional
