// Analytic alpha-beta times against the event simulation, and the
// simulation's capacity invariant.
#include <algorithm>
#include <cmath>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "topology/collectives.h"

namespace podbench::topology {
namespace {

using ::testing::HasSubstr;

Slice Get(const char* name, bool wrap = false) {
  auto s = Slice::FromName(name, DefaultSystem(), wrap);
  EXPECT_TRUE(s.ok());
  return std::move(s).value();
}

TEST(RegistryTest, HasEveryAlgorithmAndRejectsUnknownNames) {
  EXPECT_THAT(AlgorithmRegistry::Global().Names(),
              ::testing::IsSupersetOf({"ring", "ring_bidir", "torus2d", "torus2d_pipelined", "torus2d_bidir",
                                       "reduce_scatter", "all_gather", "torus2d_reduce_scatter", "torus2d_all_gather",
                                       "torus2d_bidir_reduce_scatter", "torus2d_bidir_all_gather",
                                       "halo_exchange", "broadcast"}));
  auto r = AlgorithmRegistry::Global().Create("butterfly");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("torus2d"));
}

TEST(AnalyticTest, RingMatchesTheTextbookFormula) {
  Slice s = Get("tpu-v3-2048");
  LogicalTopology lt = LogicalTopology::WholeSlice(s);
  const double n = 100e6, p = 1024, a = 1e-6, b = 1 / 82e9;
  const double local = 2 * (0.1e-6 + n / 450e9);
  EXPECT_NEAR(*CollectiveTime("ring", n, lt), 2 * (p - 1) * a + 2 * (p - 1) / p * n * b + local, 1e-9);
  // 2-D: 2 (X-1 + Y-1) alpha + 2 n beta [(X-1)/X + (Y-1)/(XY)].
  EXPECT_NEAR(*CollectiveTime("torus2d", n, lt),
              2 * 62 * a + 2 * n * b * (31.0 / 32 + 31.0 / 1024) + local, 1e-9);
}

TEST(AnalyticTest, TwoDBeatsTheRingOnTheFullPodAtResNetSize) {
  Slice s = Get("tpu-v3-2048");
  LogicalTopology lt = LogicalTopology::WholeSlice(s);
  const double n = 25.6e6 * 4;
  EXPECT_LT(*CollectiveTime("torus2d", n, lt), *CollectiveTime("ring", n, lt));
  EXPECT_LT(*CollectiveTime("torus2d_bidir", n, lt), *CollectiveTime("torus2d", n, lt));
}

// Weight-update sharding on the 2-D torus costs what the 2-D all-reduce
// costs (same bytes, same hops; Y-first instead of X-first), plus the two
// on-chip shard copies, and beats the 1-D pair on the full pod.
TEST(AnalyticTest, TwoDReduceScatterPlusAllGatherCostsTheTwoDAllReduce) {
  for (const char* name : {"tpu-v3-2048", "tpu-v3-256", "tpu-v3-32"}) {
    SCOPED_TRACE(name);
    Slice s = Get(name);
    LogicalTopology lt = LogicalTopology::WholeSlice(s);
    const double n = 25.6e6 * 4;
    const double rs = *CollectiveTime("torus2d_reduce_scatter", n, lt);
    const double ag = *CollectiveTime("torus2d_all_gather", n, lt);
    const double shard_copy = 0.1e-6 + n / lt.torus().num_cores() / 450e9;
    EXPECT_NEAR(rs + ag, *CollectiveTime("torus2d", n, lt) + 2 * shard_copy, 1e-9);
    EXPECT_GT(rs, 0.4 * (rs + ag));
    EXPECT_GT(ag, 0.4 * (rs + ag));
  }
  Slice pod = Get("tpu-v3-2048");
  LogicalTopology lt = LogicalTopology::WholeSlice(pod);
  const double n = 25.6e6 * 4;
  const double two_d = *CollectiveTime("torus2d_reduce_scatter", n, lt) + *CollectiveTime("torus2d_all_gather", n, lt);
  EXPECT_LT(two_d, *CollectiveTime("reduce_scatter", n, lt) + *CollectiveTime("all_gather", n, lt));
  // Both directions of every link: the bandwidth term halves.
  const double bidir =
      *CollectiveTime("torus2d_bidir_reduce_scatter", n, lt) + *CollectiveTime("torus2d_bidir_all_gather", n, lt);
  EXPECT_LT(bidir, 0.7 * two_d);
  EXPECT_GT(bidir, 0.5 * two_d);
}

struct Case {
  const char* algo;
  const char* slice;
  bool wrap;
  double bytes;
};

void PrintTo(const Case& c, std::ostream* os) {
  *os << c.algo << " on " << c.slice << (c.wrap ? " torus " : " mesh ") << c.bytes << " B";
}

std::string CaseName(const ::testing::TestParamInfo<Case>& info) {
  std::string s = std::string(info.param.algo) + "_" + info.param.slice + (info.param.wrap ? "_torus" : "_mesh");
  std::replace(s.begin(), s.end(), '-', '_');
  return s;
}

class UncontendedTest : public ::testing::TestWithParam<Case> {};

// Where no link carries two messages at once, the event simulation agrees
// with the alpha-beta time within 2%.
TEST_P(UncontendedTest, SimulationAgreesWithAnalyticWithinTwoPercent) {
  const Case& c = GetParam();
  Slice s = Get(c.slice, c.wrap);
  LogicalTopology lt = LogicalTopology::WholeSlice(s);
  const double analytic = *CollectiveTime(c.algo, c.bytes, lt);
  auto sim = SimulateCollective(c.algo, c.bytes, DType::kF32, lt);
  ASSERT_TRUE(sim.ok()) << sim.status().ToString();
  EXPECT_NEAR(sim->time_s / analytic, 1.0, 0.02) << "sim " << sim->time_s << " analytic " << analytic;
}

INSTANTIATE_TEST_SUITE_P(
    Algorithms, UncontendedTest,
    ::testing::Values(Case{"ring", "tpu-v3-32", true, 64e6}, Case{"ring", "tpu-v3-128", false, 64e6},
                      Case{"ring_bidir", "tpu-v3-128", true, 64e6}, Case{"torus2d", "tpu-v3-2048", true, 102.4e6},
                      Case{"torus2d", "tpu-v3-256", false, 64e6}, Case{"torus2d_bidir", "tpu-v3-2048", true, 102.4e6},
                      Case{"torus2d_bidir", "tpu-v3-512", true, 64e6},
                      Case{"reduce_scatter", "tpu-v3-128", true, 64e6},
                      Case{"all_gather", "tpu-v3-128", false, 64e6},
                      Case{"torus2d_reduce_scatter", "tpu-v3-2048", true, 102.4e6},
                      Case{"torus2d_all_gather", "tpu-v3-2048", true, 102.4e6},
                      Case{"torus2d_reduce_scatter", "tpu-v3-256", false, 64e6},
                      Case{"torus2d_all_gather", "tpu-v3-1024", false, 64e6},
                      Case{"torus2d_bidir_reduce_scatter", "tpu-v3-2048", true, 102.4e6},
                      Case{"torus2d_bidir_all_gather", "tpu-v3-2048", true, 102.4e6},
                      Case{"torus2d_bidir_all_gather", "tpu-v3-256", true, 64e6},
                      Case{"broadcast", "tpu-v3-512", true, 64e6}, Case{"broadcast", "tpu-v3-2048", true, 64e6}),
    CaseName);

TEST(ContentionTest, BidirectionalRingOnAMeshIsSlowerThanAnalytic) {
  // Without wraparound each ring's long return edge runs over the links the
  // other ring uses.
  Slice s = Get("tpu-v3-32", false);
  LogicalTopology lt = LogicalTopology::WholeSlice(s);
  const double analytic = *CollectiveTime("ring_bidir", 64e6, lt);
  auto sim = SimulateCollective("ring_bidir", 64e6, DType::kF32, lt);
  ASSERT_TRUE(sim.ok());
  EXPECT_GT(sim->time_s, analytic * 1.05);
}

TEST(UncontendedGroupsTest, HaloExchangeBetweenSpatialPartitionsMatchesAnalytic) {
  // 8 cores a replica = 4 chips along a row: on-chip and one-hop ICI halos.
  Slice s = Get("tpu-v3-2048");
  auto parts = LogicalTopology::ReplicaGroups(s, 8, 1);
  ASSERT_TRUE(parts.ok());
  const double analytic = *CollectiveTime("halo_exchange", 4e6, *parts);
  auto sim = SimulateCollective("halo_exchange", 4e6, DType::kBF16, *parts);
  ASSERT_TRUE(sim.ok());
  EXPECT_GT(analytic, 1e6 / 82e9);  // at least one ICI halo of 1 MB
  EXPECT_NEAR(sim->time_s / analytic, 1.0, 0.02);
}

TEST(UncontendedGroupsTest, BatchNormGroupsInARowShareNoLinks) {
  // Distributed batch norm in groups of 8 chips along a row: groups use
  // disjoint links, so the simulation matches the analytic time.
  Slice s = Get("tpu-v3-2048");
  auto groups = LogicalTopology::ReplicaGroups(s, 1, 16);
  ASSERT_TRUE(groups.ok());
  const double analytic = *CollectiveTime("ring", 4e6, *groups);
  auto sim = SimulateCollective("ring", 4e6, DType::kF32, *groups);
  ASSERT_TRUE(sim.ok());
  EXPECT_NEAR(sim->time_s / analytic, 1.0, 0.02);
}

TEST(PipelineTest, ChunksOverlapTheYPhasesWithTheXPhases) {
  Slice s = Get("tpu-v3-2048");
  LogicalTopology lt = LogicalTopology::WholeSlice(s);
  auto plain = SimulateCollective("torus2d", 64e6, DType::kF32, lt);
  auto piped = SimulateCollective("torus2d_pipelined", 64e6, DType::kF32, lt, {.chunks = 4});
  ASSERT_TRUE(plain.ok() && piped.ok());
  EXPECT_LT(piped->time_s, plain->time_s);
  // The analytic pipelined time is an upper bound the simulation stays under.
  EXPECT_LE(piped->time_s, *CollectiveTime("torus2d_pipelined", 64e6, lt, {.chunks = 4}) * 1.02);
}

// Capacity: replays every link's recorded busy intervals and checks none
// overlap, for contended and uncontended schedules.
TEST(CapacityTest, NoLinkEverCarriesTwoMessagesAtOnce) {
  for (const char* algo : {"ring_bidir", "torus2d_pipelined", "torus2d_bidir", "torus2d_reduce_scatter",
                           "torus2d_all_gather", "torus2d_bidir_reduce_scatter", "torus2d_bidir_all_gather",
                           "broadcast", "halo_exchange"}) {
    Slice s = Get("tpu-v3-128", false);
    auto lt = LogicalTopology::ReplicaGroups(s, 4, 8);
    ASSERT_TRUE(lt.ok());
    auto sim = SimulateCollective(algo, 1e6, DType::kBF16, *lt, {}, {.record_link_intervals = true});
    ASSERT_TRUE(sim.ok()) << algo;
    size_t used = 0;
    for (auto& iv : sim->intervals) {
      std::sort(iv.begin(), iv.end());
      for (size_t i = 1; i < iv.size(); ++i) {
        ASSERT_LE(iv[i - 1].second, iv[i].first + 1e-15) << algo << ": overlapping messages on a link";
      }
      used += iv.empty() ? 0 : 1;
    }
    EXPECT_GT(used, 0u) << algo;
    EXPECT_LE(sim->busiest_link_busy_s, sim->time_s) << algo;
  }
}

TEST(SimulateTest, RejectsEmptyPayloadAndUnknownAlgorithm) {
  Slice s = Get("tpu-v3-8");
  LogicalTopology lt = LogicalTopology::WholeSlice(s);
  EXPECT_FALSE(SimulateCollective("torus2d", 1, DType::kF32, lt).ok());
  EXPECT_FALSE(SimulateCollective("nope", 1e3, DType::kF32, lt).ok());
}

}  // namespace
}  // namespace podbench::topology

namespace podbench::topology {
namespace {

TEST(ShardedPairTest, EachAllReduceMapsToItsReduceScatterAndAllGather) {
  auto p = ShardedPairOf("torus2d");
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->reduce_scatter, "torus2d_reduce_scatter");
  EXPECT_EQ(p->all_gather, "torus2d_all_gather");
  EXPECT_EQ(ShardedPairOf("torus2d_bidir")->all_gather, "torus2d_bidir_all_gather");
  EXPECT_EQ(ShardedPairOf("ring")->reduce_scatter, "reduce_scatter");
  EXPECT_FALSE(ShardedPairOf("broadcast").ok());
  // Every pair is registered, and times like its all-reduce on the full pod.
  auto slice = Slice::FromName("tpu-v3-2048", DefaultSystem());
  ASSERT_TRUE(slice.ok());
  LogicalTopology all = LogicalTopology::WholeSlice(*slice);
  for (const char* ar : {"torus2d", "torus2d_pipelined", "torus2d_bidir", "ring", "ring_bidir"}) {
    auto pair = ShardedPairOf(ar);
    ASSERT_TRUE(pair.ok()) << ar;
    auto rs = CollectiveTime(pair->reduce_scatter, 102.4e6, all);
    auto ag = CollectiveTime(pair->all_gather, 102.4e6, all);
    ASSERT_TRUE(rs.ok() && ag.ok()) << ar;
    auto whole = CollectiveTime(ar, 102.4e6, all);
    ASSERT_TRUE(whole.ok());
    if (std::string_view(ar) != "ring_bidir") {  // the 1-D pair is one-directional
      EXPECT_NEAR(*rs + *ag, *whole, 0.03 * *whole) << ar;
    }
  }
}

}  // namespace
}  // namespace podbench::topology
