// Slices, the physical torus and logical views.
#include <set>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "topology/logical.h"
#include "topology/slice.h"

namespace podbench::topology {
namespace {

using ::testing::HasSubstr;

struct Expect {
  const char* name;
  int x, y, hosts;
  bool wrap_x, wrap_y;
};

TEST(SliceTest, NamesCountCoresAndMapToGrids) {
  for (const Expect& e : {Expect{"tpu-v3-8", 2, 2, 1, false, false}, Expect{"tpu-v3-32", 4, 4, 4, false, false},
                          Expect{"tpu-v3-128", 8, 8, 16, false, false},
                          Expect{"tpu-v3-256", 8, 16, 32, false, false},
                          Expect{"tpu-v3-512", 16, 16, 64, false, false},
                          Expect{"tpu-v3-1024", 16, 32, 128, false, true},
                          Expect{"tpu-v3-2048", 32, 32, 256, true, true}}) {
    auto s = Slice::FromName(e.name, DefaultSystem());
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    EXPECT_EQ(s->torus().chips_x(), e.x) << e.name;
    EXPECT_EQ(s->torus().chips_y(), e.y) << e.name;
    EXPECT_EQ(s->num_cores(), 2 * e.x * e.y) << e.name;
    EXPECT_EQ(s->num_hosts(), e.hosts) << e.name;
    EXPECT_EQ(s->torus().wrap_x(), e.wrap_x) << e.name;
    EXPECT_EQ(s->torus().wrap_y(), e.wrap_y) << e.name;
  }
}

TEST(SliceTest, FullPodHas126PetaflopsAndFourLinksEveryChip) {
  auto s = Slice::FromName("tpu-v3-2048", DefaultSystem());
  ASSERT_TRUE(s.ok());
  EXPECT_NEAR(s->peak_flops() / 1e15, 126.2, 0.1);
  EXPECT_EQ(s->torus().NumIciLinks(), 4 * 1024);
  EXPECT_EQ(s->torus().BisectionLinks(), 64);
}

TEST(SliceTest, SubpodWraparoundIsAParameter) {
  auto mesh = Slice::FromName("tpu-v3-32", DefaultSystem());
  auto torus = Slice::FromName("tpu-v3-32", DefaultSystem(), /*subpod_wraparound=*/true);
  ASSERT_TRUE(mesh.ok() && torus.ok());
  EXPECT_EQ(mesh->torus().NumIciLinks(), 2 * 2 * 4 * 3);  // 4 rows x 3 links x 2 directions, both dims
  EXPECT_EQ(torus->torus().NumIciLinks(), 4 * 16);
  EXPECT_EQ(mesh->torus().Hops(0, 3), 3);
  EXPECT_EQ(torus->torus().Hops(0, 3), 1);
}

TEST(SliceTest, UnknownNameListsKnownSlices) {
  for (const char* bad : {"tpu-v3-96", "tpu-v2-8", "tpu-v3-", "tpu-v3-8x"}) {
    auto s = Slice::FromName(bad, DefaultSystem());
    ASSERT_FALSE(s.ok()) << bad;
    EXPECT_THAT(s.status().message(), HasSubstr("tpu-v3-2048")) << bad;
  }
}

TEST(TorusTest, RoutesAreShortestAndUseExistingLinks) {
  auto s = Slice::FromName("tpu-v3-2048", DefaultSystem());
  const Torus& t = s->torus();
  std::vector<int32_t> route;
  t.Route(t.CoreOf(t.ChipAt(0, 0), 0), t.CoreOf(t.ChipAt(31, 17), 1), &route);
  EXPECT_EQ(route.size(), 1u + 15u);  // -X once (wrap), then 15 hops in Y
  EXPECT_EQ(route.front(), t.IciLink(t.ChipAt(0, 0), Dir::kMinusX));
  t.Route(4, 5, &route);  // the two cores of chip 2
  ASSERT_EQ(route.size(), 1u);
  EXPECT_TRUE(t.IsCoreLink(route[0]));
  std::set<int> ids;
  for (int c = 0; c < t.num_chips(); ++c) {
    for (int d = 0; d < 4; ++d) ids.insert(t.IciLink(c, static_cast<Dir>(d)));
  }
  EXPECT_EQ(ids.size(), 4096u);
  EXPECT_LT(*ids.rbegin(), t.num_links());
}

TEST(LogicalTest, ReplicaGroupsAreChipRectangles) {
  auto s = Slice::FromName("tpu-v3-2048", DefaultSystem());
  // Distributed batch norm over 16 replicas: 8 chips of one row.
  auto bn = LogicalTopology::ReplicaGroups(*s, 1, 16);
  ASSERT_TRUE(bn.ok()) << bn.status().ToString();
  EXPECT_EQ(bn->groups().size(), 128u);
  EXPECT_EQ(bn->groups()[5].w, 8);
  EXPECT_EQ(bn->groups()[5].h, 1);
  EXPECT_EQ(bn->groups()[5].x0, 8);
  EXPECT_EQ(bn->groups()[5].y0, 1);
  // Spatial partitioning: 4 cores a replica, groups of 32 replicas = 2 rows.
  auto sp = LogicalTopology::ReplicaGroups(*s, 4, 32);
  ASSERT_TRUE(sp.ok());
  EXPECT_EQ(sp->num_replicas(), 512);
  EXPECT_EQ(sp->groups().front().h, 2);
  EXPECT_EQ(sp->groups().front().w, 32);
  // A single core: half a chip.
  auto one = LogicalTopology::ReplicaGroups(*s, 1, 1);
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(one->groups()[3].local_begin, 1);
  EXPECT_EQ(one->groups()[3].members_per_chip, 1);
  // 48 cores is not a rectangle of 32-chip rows.
  EXPECT_FALSE(LogicalTopology::ReplicaGroups(*s, 1, 48).ok());
  EXPECT_FALSE(LogicalTopology::ReplicaGroups(*s, 3, 1).ok());
}

TEST(LogicalTest, SnakeVisitsEveryChipOnceWithNeighbours) {
  auto s = Slice::FromName("tpu-v3-128", DefaultSystem());
  LogicalTopology lt = LogicalTopology::WholeSlice(*s);
  auto snake = lt.SnakeChips(lt.groups().front());
  ASSERT_EQ(snake.size(), 64u);
  EXPECT_EQ(std::set<int>(snake.begin(), snake.end()).size(), 64u);
  for (size_t i = 0; i + 1 < snake.size(); ++i) EXPECT_EQ(lt.torus().Hops(snake[i], snake[i + 1]), 1);
}

}  // namespace
}  // namespace podbench::topology
