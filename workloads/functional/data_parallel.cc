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
  group_ = cfg_.ranks ? cfg_.ranks : topology::OneProcess();
  if (group_->size() > cfg_.cores) {
    return Status::InvalidArgument("data parallel: " + std::to_string(group_->size()) +
                                   " ranks for " + std::to_string(cfg_.cores) +
                                   " emulated cores: every rank needs at least one core");
  }
  local_ = group_->CoresOf(cfg_.cores);
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
      replicas_ = std::make_unique<topology::CoreBuffers>(topology::DType::kF32, n, local_.begin, local_.end);
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
  grads_ = std::make_unique<topology::CoreBuffers>(topology::DType::kF32, n, local_.begin, local_.end);
  if (cfg_.gradient_dtype == topology::DType::kBF16) {
    grads_bf16_ = std::make_unique<topology::CoreBuffers>(topology::DType::kBF16, n, local_.begin, local_.end);
  }
  meeting_ = std::make_unique<Meeting>(local_.size());
  return Status::Ok();
}

Status DataParallel::OnEveryCore(const std::function<Status(int core)>& f) {
  std::vector<Status> status(static_cast<size_t>(local_.size()));
  if (local_.size() == 1) {
    status[0] = f(local_.begin);
  } else {
    std::vector<std::thread> threads;
    threads.reserve(status.size());
    for (int c = local_.begin; c < local_.end; ++c) {
      threads.emplace_back([&, c] { status[static_cast<size_t>(c - local_.begin)] = f(c); });
    }
    for (auto& t : threads) t.join();
  }
  for (const Status& s : status) PODBENCH_RETURN_IF_ERROR(s);
  return Status::Ok();
}

void DataParallel::Sync() {
  if (local_.size() > 1) meeting_->barrier.arrive_and_wait();
}

Status DataParallel::CollectiveInStep(int core, std::string_view algorithm, const topology::LogicalTopology& logical,
                                      topology::CoreBuffers& buffers) {
  Sync();
  if (core == local_.begin) meeting_->collective = group_->RunCollective(algorithm, logical, buffers, {}, 1);
  Sync();
  // No third meeting is needed before the status may be overwritten: core 0
  // writes it again only past the next CollectiveInStep's first Sync, which
  // every core reaches after reading it here.
  return meeting_->collective;
}

void DataParallel::SetWeights(std::span<const float> w) {
  if (replicas_) {
    for (int c = local_.begin; c < local_.end; ++c) {
      std::memcpy(replicas_->Data(c), w.data(), w.size() * sizeof(float));
    }
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
  return reinterpret_cast<const float*>(grads_->Data(replicas_ ? core : local_.begin));
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
    return sched ? group_->Run(*sched, *grads_, 0) : Status::Ok();
  }
  // bf16: round every core's gradient, sum in bf16, widen the part each
  // core's optimizer reads.
  PODBENCH_RETURN_IF_ERROR(OnEveryCore([&](int c) {
    kernels::ConvertToBf16(gradient(c), reinterpret_cast<kernels::Bf16*>(grads_bf16_->Data(c)), static_cast<long>(n_));
    return Status::Ok();
  }));
  if (sched) PODBENCH_RETURN_IF_ERROR(group_->Run(*sched, *grads_bf16_, 0));
  return OnEveryCore([&](int c) {
    // Without sharding every rank's optimizer reads its first core's sum.
    const auto [begin, end] = replicas_ || c != local_.begin ? shard(c) : std::pair<int64_t, int64_t>{0, n_};
    if (end > begin) {
      kernels::ConvertToFloat(reinterpret_cast<const kernels::Bf16*>(grads_bf16_->Data(c)) + begin,
                              gradient(c) + begin, static_cast<long>(end - begin));
    }
    return Status::Ok();
  });
}

Status DataParallel::ApplyUpdate(const ShardUpdate& update) {
  if (!replicas_) {
    update(0, 0, n_, weights_.data(), summed_gradient(local_.begin));
    return Status::Ok();
  }
  PODBENCH_RETURN_IF_ERROR(OnEveryCore([&](int c) {
    const auto [begin, end] = shard(c);
    if (end > begin) update(c, begin, end, reinterpret_cast<float*>(replicas_->Data(c)), summed_gradient(c));
    return Status::Ok();
  }));
  return group_->Run(*all_gather_, *replicas_, 0);
}

Status DataParallel::AllReduce(topology::CoreBuffers& buffers) {
  if (cfg_.cores == 1) return Status::Ok();
  return group_->RunCollective(cfg_.allreduce, *whole_, buffers, {}, 0);
}

Status DataParallel::ShareCoreBytes(std::vector<std::string>& per_core) {
  if (per_core.size() != static_cast<size_t>(cfg_.cores)) {
    return Status::Internal("data parallel: ShareCoreBytes needs one entry per core");
  }
  if (group_->size() == 1) return Status::Ok();
  // This rank's entries, each as an 8-byte length and its bytes.
  std::string mine;
  for (int c = local_.begin; c < local_.end; ++c) {
    const std::string& v = per_core[static_cast<size_t>(c)];
    const uint64_t len = v.size();
    mine.append(reinterpret_cast<const char*>(&len), sizeof len);
    mine += v;
  }
  PODBENCH_ASSIGN_OR_RETURN(std::vector<std::string> all, group_->AllGather(mine));
  for (int r = 0; r < group_->size(); ++r) {
    const topology::CoreBlock b = topology::CoresOfRank(cfg_.cores, group_->size(), r);
    const std::string& s = all[static_cast<size_t>(r)];
    size_t pos = 0;
    for (int c = b.begin; c < b.end; ++c) {
      uint64_t len = 0;
      if (pos + sizeof len > s.size()) return Status::Internal("data parallel: rank " + std::to_string(r) + " sent a short record");
      std::memcpy(&len, s.data() + pos, sizeof len);
      pos += sizeof len;
      if (pos + len > s.size()) return Status::Internal("data parallel: rank " + std::to_string(r) + " sent a short record");
      per_core[static_cast<size_t>(c)] = s.substr(pos, len);
      pos += len;
    }
  }
  return Status::Ok();
}

Status DataParallel::ShareCoreValues(std::span<double> per_core) {
  if (group_->size() == 1) return Status::Ok();
  std::vector<std::string> bytes(per_core.size());
  for (int c = local_.begin; c < local_.end && static_cast<size_t>(c) < per_core.size(); ++c) {
    bytes[static_cast<size_t>(c)].assign(reinterpret_cast<const char*>(&per_core[static_cast<size_t>(c)]),
                                         sizeof(double));
  }
  PODBENCH_RETURN_IF_ERROR(ShareCoreBytes(bytes));
  for (size_t c = 0; c < per_core.size(); ++c) std::memcpy(&per_core[c], bytes[c].data(), sizeof(double));
  return Status::Ok();
}

Status ShareRoundRobinRows(DataParallel& dp, int64_t chunk, std::vector<std::vector<int32_t>>& rows) {
  if (dp.ranks().size() == 1) return Status::Ok();
  const int cores = dp.cores();
  auto core_of = [&](size_t i) { return static_cast<int>((static_cast<int64_t>(i) / chunk) % cores); };
  // Per core: its rows in order, each as a 4-byte length and its ids.
  std::vector<std::string> per_core(static_cast<size_t>(cores));
  for (size_t i = 0; i < rows.size(); ++i) {
    const int c = core_of(i);
    if (!dp.IsLocal(c)) continue;
    std::string& s = per_core[static_cast<size_t>(c)];
    const auto len = static_cast<uint32_t>(rows[i].size());
    s.append(reinterpret_cast<const char*>(&len), sizeof len);
    s.append(reinterpret_cast<const char*>(rows[i].data()), rows[i].size() * sizeof(int32_t));
  }
  PODBENCH_RETURN_IF_ERROR(dp.ShareCoreBytes(per_core));
  std::vector<size_t> pos(static_cast<size_t>(cores), 0);
  for (size_t i = 0; i < rows.size(); ++i) {
    const int c = core_of(i);
    const std::string& s = per_core[static_cast<size_t>(c)];
    size_t& p = pos[static_cast<size_t>(c)];
    uint32_t len = 0;
    if (p + sizeof len > s.size()) return Status::Internal("data parallel: core " + std::to_string(c) + "'s rows are short");
    std::memcpy(&len, s.data() + p, sizeof len);
    p += sizeof len;
    if (p + len * sizeof(int32_t) > s.size()) {
      return Status::Internal("data parallel: core " + std::to_string(c) + "'s rows are short");
    }
    if (!dp.IsLocal(c)) {
      rows[i].resize(len);
      std::memcpy(rows[i].data(), s.data() + p, len * sizeof(int32_t));
    }
    p += len * sizeof(int32_t);
  }
  return Status::Ok();
}

}  // namespace podbench::functional
