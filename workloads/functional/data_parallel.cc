#include "workloads/functional/data_parallel.h"

#include <algorithm>
#include <barrier>
#include <cstring>
#include <thread>
#include <vector>

#include "kernels/bf16.h"
#include "topology/algorithm.h"
#include "topology/functional.h"

namespace podbench::functional {

// Where the cores' threads meet inside a step.
struct DataParallel::Meeting {
  explicit Meeting(int n) : barrier(n) {}
  std::barrier<> barrier;
  Status collective;  // written by core 0 between two barrier phases
};

DataParallel::~DataParallel() = default;

Result<std::unique_ptr<DataParallel>> DataParallel::Create(const DataParallelConfig& config, int64_t parameters) {
  std::unique_ptr<DataParallel> dp(new DataParallel());
  PODBENCH_RETURN_IF_ERROR(dp->Setup(config, parameters));
  return dp;
}

namespace {

// The schedule of registered algorithm `name`, which must be of `kind`.
Result<topology::Schedule> BuildSchedule(const std::string& name, topology::CollectiveKind kind,
                                         const topology::LogicalTopology& logical, uint64_t elements) {
  PODBENCH_ASSIGN_OR_RETURN(auto algo, topology::AlgorithmRegistry::Global().Create(name));
  if (algo->kind() != kind) {
    return Status::InvalidArgument("data parallel: '" + name + "' is of kind " + topology::KindName(algo->kind()) +
                                   ", expected " + topology::KindName(kind));
  }
  return algo->Build(logical, elements);
}

}  // namespace

Status DataParallel::Setup(const DataParallelConfig& config, int64_t parameters) {
  cfg_ = config;
  n_ = parameters;
  if (cfg_.cores < 1) return Status::InvalidArgument("data parallel: cores must be >= 1");
  if (parameters < 1) return Status::InvalidArgument("data parallel: the model has no parameters");
  const auto n = static_cast<uint64_t>(parameters);
  if (cfg_.cores > 1) {
    PODBENCH_ASSIGN_OR_RETURN(
        slice_, topology::Slice::FromName(cfg_.slice, cfg_.system ? *cfg_.system : topology::DefaultSystem()));
    if (slice_->num_cores() != cfg_.cores) {
      return Status::InvalidArgument("data parallel: slice " + cfg_.slice + " has " +
                                     std::to_string(slice_->num_cores()) + " cores, the config says " +
                                     std::to_string(cfg_.cores));
    }
    whole_ = topology::LogicalTopology::WholeSlice(*slice_);
    if (cfg_.weight_update_sharding) {
      // The configured pair, else the one that matches the all-reduce.
      topology::ShardedAllReduce pair{cfg_.reduce_scatter, cfg_.all_gather};
      const bool chosen = !pair.reduce_scatter.empty() || !pair.all_gather.empty();
      if (chosen && (pair.reduce_scatter.empty() || pair.all_gather.empty())) {
        return Status::InvalidArgument("data parallel: reduce_scatter and all_gather are given together or not at all");
      }
      if (!chosen) {
        PODBENCH_ASSIGN_OR_RETURN(pair, topology::ShardedPairOf(cfg_.allreduce));
      }
      PODBENCH_ASSIGN_OR_RETURN(
          reduce_scatter_, BuildSchedule(pair.reduce_scatter, topology::CollectiveKind::kReduceScatter, *whole_, n));
      PODBENCH_ASSIGN_OR_RETURN(
          all_gather_, BuildSchedule(pair.all_gather, topology::CollectiveKind::kAllGather, *whole_, n));
      for (int c = 0; c < cfg_.cores; ++c) {
        const auto& a = reduce_scatter_->owned[static_cast<size_t>(c)];
        const auto& b = all_gather_->owned[static_cast<size_t>(c)];
        const topology::ElementRange want = topology::ShardOfCore(*whole_, n, c);
        if (a.begin != want.begin || a.end != want.end || b.begin != want.begin || b.end != want.end) {
          // A pair the config chose is a bad input; ShardedPairOf's own is a bug.
          const std::string what = "data parallel: '" + pair.reduce_scatter + "' and '" + pair.all_gather +
                                   "' do not give core " + std::to_string(c) + " its ShardOfCore shard";
          return chosen ? Status::InvalidArgument(what) : Status::Internal(what);
        }
      }
      replicas_ = std::make_unique<topology::CoreBuffers>(topology::DType::kF32, n, 0, cfg_.cores);
    } else {
      PODBENCH_ASSIGN_OR_RETURN(allreduce_,
                                BuildSchedule(cfg_.allreduce, topology::CollectiveKind::kAllReduce, *whole_, n));
    }
  } else {
    // One core sums nothing, but the name must still be an all-reduce.
    PODBENCH_ASSIGN_OR_RETURN(auto algo, topology::AlgorithmRegistry::Global().Create(cfg_.allreduce));
    if (algo->kind() != topology::CollectiveKind::kAllReduce) {
      return Status::InvalidArgument("data parallel: '" + cfg_.allreduce + "' is not an all-reduce");
    }
  }
  if (!replicas_) weights_.assign(n, 0.f);
  grads_ = std::make_unique<topology::CoreBuffers>(topology::DType::kF32, n, 0, cfg_.cores);
  if (cfg_.gradient_dtype == topology::DType::kBF16) {
    grads_bf16_ = std::make_unique<topology::CoreBuffers>(topology::DType::kBF16, n, 0, cfg_.cores);
  }
  meeting_ = std::make_unique<Meeting>(cfg_.cores);
  return Status::Ok();
}

Status DataParallel::OnEveryCore(const std::function<Status(int core)>& f) {
  std::vector<Status> status(static_cast<size_t>(cfg_.cores));
  if (cfg_.cores == 1) {
    status[0] = f(0);
  } else {
    std::vector<std::thread> threads;
    threads.reserve(status.size());
    for (int c = 0; c < cfg_.cores; ++c) {
      threads.emplace_back([&, c] { status[static_cast<size_t>(c)] = f(c); });
    }
    for (auto& t : threads) t.join();
  }
  for (const Status& s : status) PODBENCH_RETURN_IF_ERROR(s);
  return Status::Ok();
}

void DataParallel::Sync() {
  if (cfg_.cores > 1) meeting_->barrier.arrive_and_wait();
}

Status DataParallel::CollectiveInStep(int core, std::string_view algorithm, const topology::LogicalTopology& logical,
                                      topology::CoreBuffers& buffers) {
  Sync();
  if (core == 0) meeting_->collective = topology::RunCollective(algorithm, logical, buffers, {}, 1);
  Sync();
  // No third meeting is needed before the status may be overwritten: core 0
  // writes it again only past the next CollectiveInStep's first Sync, which
  // every core reaches after reading it here.
  return meeting_->collective;
}

void DataParallel::SetWeights(std::span<const float> w) {
  if (replicas_) {
    for (int c = 0; c < cfg_.cores; ++c) std::memcpy(replicas_->Data(c), w.data(), w.size() * sizeof(float));
  } else {
    std::copy(w.begin(), w.end(), weights_.begin());
  }
}

const float* DataParallel::weights(int core) const {
  if (replicas_) return reinterpret_cast<const float*>(replicas_->Data(core));
  return weights_.data();
}

float* DataParallel::gradient(int core) { return reinterpret_cast<float*>(grads_->Data(core)); }

const float* DataParallel::summed_gradient(int core) const {
  return reinterpret_cast<const float*>(grads_->Data(replicas_ ? core : 0));
}

std::pair<int64_t, int64_t> DataParallel::shard(int core) const {
  if (replicas_) {
    const topology::ElementRange& r = reduce_scatter_->owned[static_cast<size_t>(core)];
    return {static_cast<int64_t>(r.begin), static_cast<int64_t>(r.end)};
  }
  return core == 0 ? std::pair<int64_t, int64_t>{0, n_} : std::pair<int64_t, int64_t>{0, 0};
}

Status DataParallel::SumGradients() {
  const topology::Schedule* sched = replicas_ ? &*reduce_scatter_ : allreduce_ ? &*allreduce_ : nullptr;
  if (!grads_bf16_) {
    return sched ? topology::RunFunctional(*sched, *grads_, 0) : Status::Ok();
  }
  // bf16: round every core's gradient, sum in bf16, widen the part each
  // core's optimizer reads.
  PODBENCH_RETURN_IF_ERROR(OnEveryCore([&](int c) {
    kernels::ConvertToBf16(gradient(c), reinterpret_cast<kernels::Bf16*>(grads_bf16_->Data(c)), static_cast<long>(n_));
    return Status::Ok();
  }));
  if (sched) PODBENCH_RETURN_IF_ERROR(topology::RunFunctional(*sched, *grads_bf16_, 0));
  return OnEveryCore([&](int c) {
    const auto [begin, end] = shard(c);
    if (end > begin) {
      kernels::ConvertToFloat(reinterpret_cast<const kernels::Bf16*>(grads_bf16_->Data(c)) + begin,
                              gradient(c) + begin, static_cast<long>(end - begin));
    }
    return Status::Ok();
  });
}

Status DataParallel::ApplyUpdate(const ShardUpdate& update) {
  if (!replicas_) {
    update(0, 0, n_, weights_.data(), summed_gradient(0));
    return Status::Ok();
  }
  PODBENCH_RETURN_IF_ERROR(OnEveryCore([&](int c) {
    const auto [begin, end] = shard(c);
    if (end > begin) update(c, begin, end, reinterpret_cast<float*>(replicas_->Data(c)), summed_gradient(c));
    return Status::Ok();
  }));
  return topology::RunFunctional(*all_gather_, *replicas_, 0);
}

Status DataParallel::AllReduce(topology::CoreBuffers& buffers) {
  if (cfg_.cores == 1) return Status::Ok();
  return topology::RunCollective(cfg_.allreduce, *whole_, buffers, {}, 0);
}

}  // namespace podbench::functional
