// Functional execution: every algorithm, on every slice up to tpu-v3-2048,
// in fp32 and bf16, against a reference computed directly from the
// collective's contract; plus bitwise determinism across thread counts.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

#include <gtest/gtest.h>

#include "topology/collectives.h"

namespace podbench::topology {
namespace {

constexpr const char* kAlgorithms[] = {"ring",           "ring_bidir",     "torus2d",
                                       "torus2d_pipelined", "torus2d_bidir", "reduce_scatter",
                                       "all_gather",     "torus2d_reduce_scatter", "torus2d_all_gather",
                                       "torus2d_bidir_reduce_scatter", "torus2d_bidir_all_gather",
                                       "halo_exchange",  "broadcast"};
// The algorithms with the weight-update sharding layout of ShardOfCore.
constexpr const char* kSharded[] = {"reduce_scatter", "all_gather", "torus2d_reduce_scatter",
                                    "torus2d_all_gather", "torus2d_bidir_reduce_scatter",
                                    "torus2d_bidir_all_gather"};
constexpr const char* kSlices[] = {"tpu-v3-8",   "tpu-v3-32",  "tpu-v3-128", "tpu-v3-256",
                                   "tpu-v3-512", "tpu-v3-1024", "tpu-v3-2048"};

using Values = std::vector<std::vector<float>>;  // [core][element]

Values Snapshot(const CoreBuffers& b) {
  Values v(b.core_end(), std::vector<float>(b.elements()));
  for (int c = 0; c < b.core_end(); ++c) {
    for (uint64_t i = 0; i < b.elements(); ++i) v[c][i] = b.Get(c, i);
  }
  return v;
}

// What `kind` must leave in each core, and which elements are defined
// (kReduceScatter defines only the owned range).
Values Reference(CollectiveKind kind, const Schedule& s, const LogicalTopology& lt, const Values& in,
                 std::vector<ElementRange>* defined) {
  Values out = in;
  const uint64_t n = s.elements;
  defined->assign(s.num_cores, {0, n});
  for (const Group& g : lt.groups()) {
    const int first = g.first_core, last = g.first_core + g.size;
    switch (kind) {
      case CollectiveKind::kAllReduce:
      case CollectiveKind::kReduceScatter:
        for (uint64_t i = 0; i < n; ++i) {
          double sum = 0;
          for (int c = first; c < last; ++c) sum += in[c][i];
          for (int c = first; c < last; ++c) out[c][i] = static_cast<float>(sum);
        }
        if (kind == CollectiveKind::kReduceScatter) {
          for (int c = first; c < last; ++c) (*defined)[c] = s.owned[c];
        }
        break;
      case CollectiveKind::kAllGather:
        for (int d = first; d < last; ++d) {
          for (uint64_t i = s.owned[d].begin; i < s.owned[d].end; ++i) {
            for (int c = first; c < last; ++c) out[c][i] = in[d][i];
          }
        }
        break;
      case CollectiveKind::kBroadcast:
        for (int c = first; c < last; ++c) out[c] = in[first];
        break;
      case CollectiveKind::kHaloExchange:
        break;
    }
  }
  if (kind == CollectiveKind::kHaloExchange) {
    const int k = lt.cores_per_replica();
    const uint64_t h = n / 4;
    for (int c = 0; c < s.num_cores; ++c) {
      if (c % k > 0) std::copy(in[c - 1].begin() + 2 * h, in[c - 1].begin() + 3 * h, out[c].begin());
      if (c % k < k - 1) std::copy(in[c + 1].begin() + h, in[c + 1].begin() + 2 * h, out[c].begin() + 3 * h);
    }
  }
  return out;
}

// Fills inputs: integers whose every partial sum is exact in the type.
void FillExact(CoreBuffers& b, CollectiveKind kind) {
  const bool sparse = b.dtype() == DType::kBF16 &&
                      (kind == CollectiveKind::kAllReduce || kind == CollectiveKind::kReduceScatter);
  for (int c = 0; c < b.core_end(); ++c) {
    for (uint64_t i = 0; i < b.elements(); ++i) {
      // bf16 holds integers exactly up to 256: at most 16 cores of 2048 are
      // non-zero in any element, so every partial sum stays small.
      const float v = sparse ? ((c + i) % 128 == 0 ? float(1 + i % 3) : 0.0f)
                             : float(int((c * 7 + i * 13) % 9) - 4);
      b.Set(c, i, v);
    }
  }
}

void FillRandom(CoreBuffers& b, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (int c = 0; c < b.core_end(); ++c) {
    for (uint64_t i = 0; i < b.elements(); ++i) b.Set(c, i, u(rng));
  }
}

// Runs `algo` on `lt` and compares with the reference within `tol`.
void Check(const char* algo, const LogicalTopology& lt, DType dtype, uint64_t elements, bool exact,
           double tol = 0) {
  auto a = AlgorithmRegistry::Global().Create(algo);
  ASSERT_TRUE(a.ok());
  auto s = (*a)->Build(lt, elements);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  ASSERT_TRUE(ValidateSchedule(*s).ok()) << ValidateSchedule(*s).ToString();
  CoreBuffers buf(dtype, elements, 0, lt.torus().num_cores());
  if (exact) {
    FillExact(buf, (*a)->kind());
  } else {
    FillRandom(buf, 42);
  }
  const Values in = Snapshot(buf);
  std::vector<ElementRange> defined;
  const Values want = Reference((*a)->kind(), *s, lt, in, &defined);
  ASSERT_TRUE(RunFunctional(*s, buf).ok());
  int errors = 0;
  for (int c = 0; c < lt.torus().num_cores() && errors < 5; ++c) {
    for (uint64_t i = defined[c].begin; i < defined[c].end && errors < 5; ++i) {
      const float got = buf.Get(c, i);
      const float ref = dtype == DType::kBF16 && exact ? Bf16ToFloat(FloatToBf16(want[c][i])) : want[c][i];
      if (exact ? got != ref : std::abs(got - ref) > tol) {
        ++errors;
        ADD_FAILURE() << algo << " core " << c << " element " << i << ": got " << got << ", want " << ref;
      }
    }
  }
}

struct SliceCase {
  const char* algo;
  const char* slice;
};

void PrintTo(const SliceCase& c, std::ostream* os) { *os << c.algo << " on " << c.slice; }

class EverySliceTest : public ::testing::TestWithParam<SliceCase> {};

TEST_P(EverySliceTest, MatchesTheReferenceExactlyInFp32AndBf16) {
  auto slice = Slice::FromName(GetParam().slice, DefaultSystem());
  ASSERT_TRUE(slice.ok());
  LogicalTopology lt = LogicalTopology::WholeSlice(*slice);
  // 2052 elements: uneven chunks everywhere; halo needs a multiple of 4.
  Check(GetParam().algo, lt, DType::kF32, 2052, true);
  Check(GetParam().algo, lt, DType::kBF16, 2052, true);
}

std::vector<SliceCase> AllCases() {
  std::vector<SliceCase> v;
  for (const char* a : kAlgorithms) {
    for (const char* s : kSlices) v.push_back({a, s});
  }
  return v;
}

std::string SliceCaseName(const ::testing::TestParamInfo<SliceCase>& p) {
  std::string n = std::string(p.param.algo) + "_" + p.param.slice;
  std::replace(n.begin(), n.end(), '-', '_');
  return n;
}

INSTANTIATE_TEST_SUITE_P(All, EverySliceTest, ::testing::ValuesIn(AllCases()), SliceCaseName);

TEST(GroupsTest, EveryAlgorithmWithinReplicaGroupsAndSpatialPartitions) {
  auto slice = Slice::FromName("tpu-v3-128", DefaultSystem());
  for (auto [k, g] : {std::pair{1, 1}, std::pair{2, 4}, std::pair{1, 16}, std::pair{4, 8}, std::pair{8, 2}}) {
    auto lt = LogicalTopology::ReplicaGroups(*slice, k, g);
    ASSERT_TRUE(lt.ok()) << lt.status().ToString();
    for (const char* algo : kAlgorithms) {
      SCOPED_TRACE(std::string(algo) + " k=" + std::to_string(k) + " g=" + std::to_string(g));
      Check(algo, *lt, DType::kF32, 256, true);
      Check(algo, *lt, DType::kBF16, 256, true);
    }
  }
}

TEST(ToleranceTest, RandomFloatsWithinFp32AndBf16Tolerance) {
  auto slice = Slice::FromName("tpu-v3-128", DefaultSystem());
  LogicalTopology lt = LogicalTopology::WholeSlice(*slice);
  for (const char* algo : kAlgorithms) {
    SCOPED_TRACE(algo);
    Check(algo, lt, DType::kF32, 1000, false, 1e-4);
    // bf16 rounds at every hop (8 significant bits); sums of 128 values in [-1, 1].
    Check(algo, lt, DType::kBF16, 1000, false, 0.5);
  }
}

TEST(DeterminismTest, BitwiseEqualForAnyThreadCount) {
  auto slice = Slice::FromName("tpu-v3-128", DefaultSystem());
  LogicalTopology lt = LogicalTopology::WholeSlice(*slice);
  for (const char* algo : kAlgorithms) {
    for (DType dt : {DType::kF32, DType::kBF16}) {
      auto a = AlgorithmRegistry::Global().Create(algo);
      auto s = (*a)->Build(lt, 4000);
      ASSERT_TRUE(s.ok());
      CoreBuffers one(dt, 4000, 0, lt.torus().num_cores()), many(dt, 4000, 0, lt.torus().num_cores());
      FillRandom(one, 7);
      FillRandom(many, 7);
      ASSERT_TRUE(RunFunctional(*s, one, 1).ok());
      ASSERT_TRUE(RunFunctional(*s, many, 3).ok());
      for (int c = 0; c < lt.torus().num_cores(); ++c) {
        ASSERT_EQ(std::memcmp(one.Data(c), many.Data(c), 4000 * BytesPerElement(dt)), 0) << algo << " core " << c;
      }
    }
  }
}

// The contract callers rely on: every reduce-scatter and all-gather owns
// ShardOfCore's range, shards tile each group's buffer in member order, and
// a replica's cores own one contiguous run.
TEST(ShardTest, EveryShardedAlgorithmOwnsShardOfCoreInMemberOrder) {
  auto slice = Slice::FromName("tpu-v3-64", DefaultSystem());  // 4 x 8 chips, not square
  ASSERT_TRUE(slice.ok());
  for (auto [k, g] : {std::pair{1, 64}, std::pair{1, 1}, std::pair{1, 16}, std::pair{2, 4}, std::pair{1, 2}, std::pair{4, 16}}) {
    auto lt = LogicalTopology::ReplicaGroups(*slice, k, g);
    ASSERT_TRUE(lt.ok()) << lt.status().ToString();
    for (uint64_t n : {uint64_t{1000}, uint64_t{7}, uint64_t{64}}) {
      SCOPED_TRACE("k=" + std::to_string(k) + " g=" + std::to_string(g) + " n=" + std::to_string(n));
      for (const Group& grp : lt->groups()) {
        uint64_t next = 0;
        for (int c = grp.first_core; c < grp.first_core + grp.size; ++c) {
          const ElementRange r = ShardOfCore(*lt, n, c);
          EXPECT_EQ(r.begin, next) << "core " << c;
          EXPECT_LE(r.end - r.begin, n / grp.size + 1);
          EXPECT_GE(r.end - r.begin, n / grp.size);
          next = r.end;
        }
        EXPECT_EQ(next, n);
      }
      for (int r = 0; r < lt->num_replicas(); ++r) {
        const ElementRange rep = ShardOfReplica(*lt, n, r);
        EXPECT_EQ(rep.begin, ShardOfCore(*lt, n, r * k).begin);
        EXPECT_EQ(rep.end, ShardOfCore(*lt, n, r * k + k - 1).end);
      }
      for (const char* algo : kSharded) {
        auto a = AlgorithmRegistry::Global().Create(algo);
        ASSERT_TRUE(a.ok());
        auto s = (*a)->Build(*lt, n);
        ASSERT_TRUE(s.ok());
        ASSERT_EQ(s->owned.size(), size_t(s->num_cores));
        for (int c = 0; c < s->num_cores; ++c) {
          EXPECT_EQ(s->owned[c].begin, ShardOfCore(*lt, n, c).begin) << algo << " core " << c;
          EXPECT_EQ(s->owned[c].end, ShardOfCore(*lt, n, c).end) << algo << " core " << c;
        }
      }
    }
  }
  // Whole slice: core c owns part c of num_cores.
  LogicalTopology all = LogicalTopology::WholeSlice(*slice);
  EXPECT_EQ(ShardOfCore(all, 6400, 5).begin, 500u);
  EXPECT_EQ(ShardOfCore(all, 6400, 5).end, 600u);
  EXPECT_EQ(ShardOfReplica(all, 6400, 63).end, 6400u);
}

// Weight-update sharding as a workload runs it, through the public API:
// reduce-scatter, an update on each core's shard only, all-gather. The result
// equals all-reduce then the update everywhere, bitwise, for any pairing of
// 1-D and 2-D halves (one shard layout).
TEST(ShardTest, ReduceScatterUpdateAllGatherEqualsAllReduceThenUpdate) {
  for (const char* slice_name : {"tpu-v3-256", "tpu-v3-2048"}) {
    auto slice = Slice::FromName(slice_name, DefaultSystem());
    ASSERT_TRUE(slice.ok());
    LogicalTopology lt = LogicalTopology::WholeSlice(*slice);
    const int cores = lt.torus().num_cores();
    const uint64_t n = 3 * uint64_t(cores) + 5;
    for (DType dt : {DType::kF32, DType::kBF16}) {
      CoreBuffers want(dt, n, 0, cores);
      FillExact(want, CollectiveKind::kAllReduce);
      const Values in = Snapshot(want);
      ASSERT_TRUE(RunCollective("torus2d", lt, want, {}, 1).ok());
      for (int c = 0; c < cores; ++c) {
        for (uint64_t i = 0; i < n; ++i) want.Set(c, i, want.Get(c, i) * 0.5f - 1.0f);
      }
      for (auto [rs, ag] : {std::pair{"torus2d_reduce_scatter", "torus2d_all_gather"},
                            std::pair{"torus2d_bidir_reduce_scatter", "torus2d_bidir_all_gather"},
                            std::pair{"reduce_scatter", "torus2d_all_gather"},
                            std::pair{"torus2d_reduce_scatter", "all_gather"}}) {
        SCOPED_TRACE(std::string(slice_name) + " " + rs + " + " + ag + (dt == DType::kF32 ? " fp32" : " bf16"));
        CoreBuffers got(dt, n, 0, cores);
        for (int c = 0; c < cores; ++c) {
          for (uint64_t i = 0; i < n; ++i) got.Set(c, i, in[c][i]);
        }
        ASSERT_TRUE(RunCollective(rs, lt, got, {}, 1).ok());
        for (int c = 0; c < cores; ++c) {
          const ElementRange mine = ShardOfCore(lt, n, c);
          for (uint64_t i = mine.begin; i < mine.end; ++i) got.Set(c, i, got.Get(c, i) * 0.5f - 1.0f);
        }
        ASSERT_TRUE(RunCollective(ag, lt, got, {}, 1).ok());
        for (int c = 0; c < cores; ++c) {
          ASSERT_EQ(std::memcmp(got.Data(c), want.Data(c), n * BytesPerElement(dt)), 0) << "core " << c;
        }
      }
    }
  }
}

TEST(Bf16Test, RoundsToNearestEven) {
  EXPECT_EQ(FloatToBf16(1.0f), 0x3f80);
  EXPECT_EQ(Bf16ToFloat(FloatToBf16(1.0f + 1.0f / 256)), 1.0f);          // tie -> even
  EXPECT_EQ(Bf16ToFloat(FloatToBf16(1.0f + 3.0f / 256)), 1.0f + 4.0f / 256);  // tie -> even (up)
  EXPECT_TRUE(std::isnan(Bf16ToFloat(FloatToBf16(std::nanf("")))));
}

}  // namespace
}  // namespace podbench::topology
