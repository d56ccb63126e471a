// The shared data-parallel machinery: gradient sums over 8 emulated cores in
// fp32 and bf16, weight-update sharding that tiles the parameters and
// matches the replicated update, collectives inside a step, bad configs;
// and the same spread over ranks (an in-process rank group of threads, so
// ThreadSanitizer sees the threads a rank runs), bitwise equal to one
// process.
#include <atomic>
#include <barrier>
#include <cmath>
#include <cstring>
#include <thread>

#include <gtest/gtest.h>

#include "kernels/bf16.h"
#include "topology/rank_group.h"
#include "workloads/functional/data_parallel.h"

namespace podbench::functional {
namespace {

DataParallelConfig Config(int cores, bool sharded = false, topology::DType dtype = topology::DType::kF32) {
  DataParallelConfig c;
  c.cores = cores;
  c.slice = cores > 1 ? "tpu-v3-" + std::to_string(cores) : "";
  c.weight_update_sharding = sharded;
  c.gradient_dtype = dtype;
  return c;
}

float Grad(int core, int64_t i) { return 0.001f * static_cast<float>((i * 7 + core * 13) % 101) - 0.05f; }

void FillGradients(DataParallel& dp) {
  ASSERT_TRUE(dp.OnEveryCore([&](int c) {
                  float* g = dp.gradient(c);
                  for (int64_t i = 0; i < dp.parameters(); ++i) g[i] = Grad(c, i);
                  return Status::Ok();
                }).ok());
}

TEST(DataParallelTest, SumsGradientsOverEightCores) {
  for (const char* algo : {"torus2d", "ring"}) {
    DataParallelConfig cfg = Config(8);
    cfg.allreduce = algo;
    auto dp = DataParallel::Create(cfg, 1000);
    ASSERT_TRUE(dp.ok()) << dp.status().ToString();
    FillGradients(**dp);
    ASSERT_TRUE((*dp)->SumGradients().ok());
    EXPECT_EQ((*dp)->shard(0), (std::pair<int64_t, int64_t>{0, 1000}));
    EXPECT_EQ((*dp)->shard(3), (std::pair<int64_t, int64_t>{0, 0}));
    const float* s = (*dp)->summed_gradient(0);
    for (int64_t i = 0; i < 1000; ++i) {
      double want = 0;
      for (int c = 0; c < 8; ++c) want += Grad(c, i);
      EXPECT_NEAR(s[i], want, 1e-6) << algo << " element " << i;
    }
  }
}

TEST(DataParallelTest, Bf16SummationRoundsAsTheLinksWould) {
  auto f32 = DataParallel::Create(Config(8), 512);
  auto b16 = DataParallel::Create(Config(8, false, topology::DType::kBF16), 512);
  ASSERT_TRUE(f32.ok() && b16.ok());
  FillGradients(**f32);
  FillGradients(**b16);
  ASSERT_TRUE((*f32)->SumGradients().ok());
  ASSERT_TRUE((*b16)->SumGradients().ok());
  int differ = 0;
  for (int64_t i = 0; i < 512; ++i) {
    const float a = (*f32)->summed_gradient(0)[i], b = (*b16)->summed_gradient(0)[i];
    EXPECT_EQ(b, kernels::RoundToBf16(b)) << "the bf16 sum is a bf16 value";
    EXPECT_NEAR(a, b, 0.02 * std::abs(a) + 1e-3) << i;
    differ += a != b;
  }
  EXPECT_GT(differ, 100);  // it really is a different (rounded) summation
}

TEST(DataParallelTest, WeightUpdateShardingTilesAndMatchesTheReplicatedUpdate) {
  const int64_t n = 1003;
  for (auto dtype : {topology::DType::kF32, topology::DType::kBF16}) {
    auto plain = DataParallel::Create(Config(8, false, dtype), n);
    auto sharded = DataParallel::Create(Config(8, true, dtype), n);
    ASSERT_TRUE(plain.ok() && sharded.ok()) << sharded.status().ToString();
    EXPECT_TRUE((*sharded)->sharded());
    std::vector<float> w0(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) w0[static_cast<size_t>(i)] = 0.01f * static_cast<float>(i % 17);
    (*plain)->SetWeights(w0);
    (*sharded)->SetWeights(w0);
    int64_t covered = 0, at = 0;
    for (int c = 0; c < 8; ++c) {
      auto [b, e] = (*sharded)->shard(c);
      EXPECT_EQ(b, at);
      covered += e - b;
      at = e;
    }
    EXPECT_EQ(covered, n);
    std::atomic<int> calls{0};
    auto sgd = [&](int, int64_t b, int64_t e, float* w, const float* g) {
      ++calls;
      for (int64_t i = b; i < e; ++i) w[i] -= 0.5f * g[i];
    };
    for (int step = 0; step < 3; ++step) {
      for (auto* dp : {plain->get(), sharded->get()}) {
        FillGradients(*dp);
        ASSERT_TRUE(dp->SumGradients().ok());
        ASSERT_TRUE(dp->ApplyUpdate(sgd).ok());
      }
    }
    EXPECT_EQ(calls.load(), 3 * (1 + 8));
    for (int c = 0; c < 8; ++c) {
      for (int64_t i = 0; i < n; ++i) {
        // fp32: the same sums; bf16: each transfer rounds, and the
        // reduce-scatter rounds partial sums in another order than the
        // all-reduce, so they agree to bf16 precision only.
        const double tol = dtype == topology::DType::kF32 ? 1e-6 : 2e-3;
        ASSERT_NEAR((*sharded)->weights(c)[i], (*plain)->weights(0)[i], tol)
            << "core " << c << " element " << i << (dtype == topology::DType::kF32 ? " fp32" : " bf16");
      }
    }
  }
}

TEST(DataParallelTest, CollectiveInsideAStepAndErrorsInCoreOrder) {
  auto dp = DataParallel::Create(Config(8), 10);
  ASSERT_TRUE(dp.ok());
  topology::CoreBuffers stats(topology::DType::kF32, 4, 0, 8);
  std::vector<float> seen(8);
  Status s = (*dp)->OnEveryCore([&](int c) {
    for (uint64_t i = 0; i < 4; ++i) stats.Set(c, i, static_cast<float>(c + 1));
    PODBENCH_RETURN_IF_ERROR((*dp)->CollectiveInStep(c, "ring", (*dp)->whole_slice(), stats));
    seen[static_cast<size_t>(c)] = stats.Get(c, 2);
    return Status::Ok();
  });
  ASSERT_TRUE(s.ok()) << s.ToString();
  for (float v : seen) EXPECT_EQ(v, 36.f);  // 1 + ... + 8
  s = (*dp)->OnEveryCore([&](int c) {
    return c >= 5 ? Status::Internal("core " + std::to_string(c) + " failed") : Status::Ok();
  });
  EXPECT_EQ(s.message(), "core 5 failed");
}

TEST(DataParallelTest, AllReduceOfSmallPerCoreVectors) {
  auto dp = DataParallel::Create(Config(8), 10);
  ASSERT_TRUE(dp.ok());
  topology::CoreBuffers norms(topology::DType::kF32, 3, 0, 8);
  for (int c = 0; c < 8; ++c) {
    for (uint64_t i = 0; i < 3; ++i) norms.Set(c, i, static_cast<float>(c * (i + 1)));
  }
  ASSERT_TRUE((*dp)->AllReduce(norms).ok());
  for (int c = 0; c < 8; ++c) EXPECT_EQ(norms.Get(c, 2), 3.f * 28.f);  // 3 x (0 + ... + 7)
}

TEST(DataParallelTest, OneCoreNeedsNoSlice) {
  auto dp = DataParallel::Create(Config(1, false, topology::DType::kBF16), 8);
  ASSERT_TRUE(dp.ok()) << dp.status().ToString();
  (*dp)->gradient(0)[0] = 1.00390625f;  // not a bf16 value: rounds to 1
  ASSERT_TRUE((*dp)->SumGradients().ok());
  EXPECT_EQ((*dp)->summed_gradient(0)[0], 1.f);
}

TEST(DataParallelTest, RefusesBadConfigs) {
  EXPECT_FALSE(DataParallel::Create(Config(0), 10).ok());
  EXPECT_FALSE(DataParallel::Create(Config(8), 0).ok());
  DataParallelConfig c = Config(8);
  c.slice = "tpu-v3-32";
  auto r = DataParallel::Create(c, 10);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("tpu-v3-32"), std::string::npos);
  c = Config(8);
  c.allreduce = "no_such_algorithm";
  EXPECT_FALSE(DataParallel::Create(c, 10).ok());
  c.allreduce = "all_gather";  // not an all-reduce
  EXPECT_FALSE(DataParallel::Create(c, 10).ok());
  c = Config(8, true);
  c.allreduce = "reduce_scatter";  // has no sharded pair
  EXPECT_FALSE(DataParallel::Create(c, 10).ok());
}

// R ranks as threads of this process: a rank's Run copies its cores into
// one buffer of every core, rank 0 runs the schedule there with
// topology::RunFunctional, and every rank copies its cores back.
class ThreadWorld {
 public:
  explicit ThreadWorld(int ranks) : ranks_(ranks), barrier_(ranks), parts_(ranks), gathered_(ranks) {}

  class Rank : public topology::RankGroup {
   public:
    Rank(ThreadWorld* w, int r) : w_(w), r_(r) {}
    int rank() const override { return r_; }
    int size() const override { return w_->ranks_; }
    uint64_t bytes_sent() const override { return 0; }
    Status Run(const topology::Schedule& schedule, topology::CoreBuffers& buffers, int threads) override {
      w_->parts_[static_cast<size_t>(r_)] = &buffers;
      w_->barrier_.arrive_and_wait();
      if (r_ == 0) {
        topology::CoreBuffers whole(buffers.dtype(), buffers.elements(), 0, schedule.num_cores);
        const size_t bytes = buffers.elements() * static_cast<size_t>(topology::BytesPerElement(buffers.dtype()));
        for (topology::CoreBuffers* p : w_->parts_) {
          for (int c = p->core_begin(); c < p->core_end(); ++c) std::memcpy(whole.Data(c), p->Data(c), bytes);
        }
        w_->status_ = topology::RunFunctional(schedule, whole, threads);
        for (topology::CoreBuffers* p : w_->parts_) {
          for (int c = p->core_begin(); c < p->core_end(); ++c) std::memcpy(p->Data(c), whole.Data(c), bytes);
        }
      }
      w_->barrier_.arrive_and_wait();
      Status s = w_->status_;
      w_->barrier_.arrive_and_wait();
      return s;
    }
    Result<std::vector<std::string>> AllGather(std::string_view mine) override {
      w_->gathered_[static_cast<size_t>(r_)] = std::string(mine);
      w_->barrier_.arrive_and_wait();
      std::vector<std::string> all = w_->gathered_;
      w_->barrier_.arrive_and_wait();
      return all;
    }

   private:
    ThreadWorld* w_;
    int r_;
  };

  // Runs f(rank group) on one thread per rank.
  void OnEveryRank(const std::function<void(const std::shared_ptr<topology::RankGroup>&)>& f) {
    std::vector<std::thread> threads;
    for (int r = 0; r < ranks_; ++r) {
      threads.emplace_back([this, r, &f] { f(std::make_shared<Rank>(this, r)); });
    }
    for (auto& t : threads) t.join();
  }

 private:
  int ranks_;
  std::barrier<> barrier_;
  std::vector<topology::CoreBuffers*> parts_;
  std::vector<std::string> gathered_;
  Status status_;
};

// Three steps of gradient sums, a collective inside each step, shared
// per-core values and an SGD update; returns the weights of core `probe`'s
// process (every replica) and the per-core values.
struct Trained {
  std::vector<float> weights;
  std::vector<double> values;
  std::vector<float> stats;
};
Trained TrainSteps(DataParallel& dp, int probe) {
  const int64_t n = dp.parameters();
  std::vector<float> w0(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) w0[static_cast<size_t>(i)] = 0.01f * static_cast<float>(i % 17);
  dp.SetWeights(w0);
  topology::CoreBuffers stats(topology::DType::kF32, 4, dp.local_cores().begin, dp.local_cores().end);
  Trained t;
  t.values.assign(static_cast<size_t>(dp.cores()), 0.0);
  for (int step = 0; step < 3; ++step) {
    Status s = dp.OnEveryCore([&](int c) {
      float* g = dp.gradient(c);
      const float* w = dp.weights(c);
      for (int64_t i = 0; i < n; ++i) g[i] = Grad(c, i) * (1.f + w[i]);
      for (uint64_t i = 0; i < 4; ++i) stats.Set(c, i, static_cast<float>(c + step) + g[i]);
      PODBENCH_RETURN_IF_ERROR(dp.CollectiveInStep(c, "ring", dp.whole_slice(), stats));
      t.values[static_cast<size_t>(c)] = stats.Get(c, 1) * (c + 1);
      return Status::Ok();
    });
    EXPECT_TRUE(s.ok()) << s.ToString();
    EXPECT_TRUE(dp.ShareCoreValues(t.values).ok());
    EXPECT_TRUE(dp.SumGradients().ok());
    EXPECT_TRUE(dp.ApplyUpdate([](int, int64_t b, int64_t e, float* w, const float* g) {
                    for (int64_t i = b; i < e; ++i) w[i] -= 0.5f * g[i];
                  }).ok());
  }
  t.weights.assign(dp.weights(probe), dp.weights(probe) + n);
  t.stats = {stats.Get(probe, 0), stats.Get(probe, 3)};
  return t;
}

TEST(DataParallelTest, OverRanksEqualsOneProcessBitwise) {
  for (bool sharded : {false, true}) {
    for (auto dtype : {topology::DType::kF32, topology::DType::kBF16}) {
      auto one = DataParallel::Create(Config(8, sharded, dtype), 1003);
      ASSERT_TRUE(one.ok());
      const Trained ref = TrainSteps(**one, 0);
      for (int ranks : {2, 4, 3}) {
        ThreadWorld world(ranks);
        std::vector<Trained> got(static_cast<size_t>(ranks));
        std::vector<topology::CoreBlock> blocks(static_cast<size_t>(ranks));
        world.OnEveryRank([&](const std::shared_ptr<topology::RankGroup>& g) {
          DataParallelConfig cfg = Config(8, sharded, dtype);
          cfg.ranks = g;
          auto dp = DataParallel::Create(cfg, 1003);
          ASSERT_TRUE(dp.ok()) << dp.status().ToString();
          blocks[static_cast<size_t>(g->rank())] = (*dp)->local_cores();
          got[static_cast<size_t>(g->rank())] = TrainSteps(**dp, (*dp)->local_cores().end - 1);
        });
        for (int r = 0; r < ranks; ++r) {
          const std::string what = std::to_string(ranks) + " ranks, rank " + std::to_string(r) +
                                   (sharded ? ", sharded" : "") + (dtype == topology::DType::kBF16 ? ", bf16" : "");
          const topology::CoreBlock b = blocks[static_cast<size_t>(r)];
          EXPECT_EQ(b.begin, topology::CoresOfRank(8, ranks, r).begin) << what;
          EXPECT_EQ(b.end, topology::CoresOfRank(8, ranks, r).end) << what;
          const Trained& t = got[static_cast<size_t>(r)];
          ASSERT_EQ(t.weights.size(), ref.weights.size()) << what;
          EXPECT_EQ(std::memcmp(t.weights.data(), ref.weights.data(), ref.weights.size() * sizeof(float)), 0) << what;
          EXPECT_EQ(t.values, ref.values) << what;
          EXPECT_EQ(t.stats, ref.stats) << what;
        }
      }
    }
  }
}

TEST(DataParallelTest, RefusesMoreRanksThanCores) {
  ThreadWorld world(3);
  world.OnEveryRank([&](const std::shared_ptr<topology::RankGroup>& g) {
    DataParallelConfig cfg = Config(1);
    cfg.ranks = g;
    auto dp = DataParallel::Create(cfg, 10);
    ASSERT_FALSE(dp.ok());
    EXPECT_NE(dp.status().message().find("every rank needs at least one core"), std::string::npos);
  });
}

// A configured reduce-scatter/all-gather pair replaces ShardedPairOf's: the
// 2-D torus pair under a ring all-reduce sums exactly as torus2d's own pair.
// Half a pair and an algorithm of the wrong kind are refused, naming it.
TEST(DataParallelTest, AConfiguredShardedPairReplacesTheAllReducesOwn) {
  DataParallelConfig chosen = Config(8, true);
  chosen.allreduce = "ring";
  chosen.reduce_scatter = "torus2d_reduce_scatter";
  chosen.all_gather = "torus2d_all_gather";
  DataParallelConfig own = Config(8, true);
  own.allreduce = "torus2d";
  const int64_t n = 1003;
  auto a = DataParallel::Create(chosen, n);
  auto b = DataParallel::Create(own, n);
  ASSERT_TRUE(a.ok() && b.ok()) << a.status().ToString();
  FillGradients(**a);
  FillGradients(**b);
  ASSERT_TRUE((*a)->SumGradients().ok());
  ASSERT_TRUE((*b)->SumGradients().ok());
  for (int c = 0; c < 8; ++c) {
    ASSERT_EQ((*a)->shard(c), (*b)->shard(c));
    const auto [begin, end] = (*a)->shard(c);
    for (int64_t i = begin; i < end; ++i) {
      ASSERT_EQ((*a)->summed_gradient(c)[i], (*b)->summed_gradient(c)[i]) << "core " << c << " element " << i;
    }
  }
  DataParallelConfig half = chosen;
  half.all_gather.clear();
  auto r = DataParallel::Create(half, n);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Status::Code::kInvalidArgument);
  EXPECT_NE(r.status().message().find("reduce_scatter and all_gather"), std::string::npos) << r.status().ToString();
  DataParallelConfig wrong = chosen;
  wrong.reduce_scatter = "all_gather";
  r = DataParallel::Create(wrong, n);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("'all_gather' is of kind all-gather, expected reduce-scatter"), std::string::npos)
      << r.status().ToString();
}

}  // namespace
}  // namespace podbench::functional
