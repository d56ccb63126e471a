// The multi-thread peak's retry (kernels/bench/peak.h): measured again only
// while it looks shared, at most the retries allowed, keeping the best.
#include <vector>

#include <gtest/gtest.h>

#include "kernels/bench/peak.h"

namespace podbench::kernels::bench {
namespace {

TEST(PeakRetryTest, SharedMeansBelowFourFifthsOfThreadsTimesOneThread) {
  EXPECT_TRUE(PeakLooksShared(268.6, 245.7, 2));  // the Zen 5 reading that prompted it
  EXPECT_FALSE(PeakLooksShared(480.0, 245.7, 2));
  EXPECT_FALSE(PeakLooksShared(0.8 * 2 * 100.0, 100.0, 2));  // at the bound is not shared
  EXPECT_FALSE(PeakLooksShared(10.0, 100.0, 1)) << "one thread is never shared";
  EXPECT_FALSE(PeakLooksShared(0.0, 0.0, 2)) << "a unit the CPU lacks";
}

// measure() returns the readings in turn; the count of calls and pauses.
struct Script {
  std::vector<double> readings;
  int calls = 0, pauses = 0;
  double Next() { return readings[std::size_t(calls++)]; }
};

TEST(PeakRetryTest, AnUnsharedFirstReadingIsKeptWithoutRetrying) {
  Script s{{450.0, 999.0}};
  EXPECT_EQ(BestWhileShared([&] { return s.Next(); }, [&] { ++s.pauses; }, 245.0, 2, 10), 450.0);
  EXPECT_EQ(s.calls, 1);
  EXPECT_EQ(s.pauses, 0);
}

TEST(PeakRetryTest, ASharedReadingIsRetriedUntilItIsNotAndTheBestIsKept) {
  Script s{{260.0, 250.0, 470.0, 999.0}};
  EXPECT_EQ(BestWhileShared([&] { return s.Next(); }, [&] { ++s.pauses; }, 245.0, 2, 10), 470.0);
  EXPECT_EQ(s.calls, 3);
  EXPECT_EQ(s.pauses, 2) << "a pause before each retry";
}

TEST(PeakRetryTest, RetriesStopAtTheLimitWithTheBestShared) {
  Script s{{260.0, 270.0, 250.0, 999.0}};
  EXPECT_EQ(BestWhileShared([&] { return s.Next(); }, [&] { ++s.pauses; }, 245.0, 2, 2), 270.0);
  EXPECT_EQ(s.calls, 3);
  EXPECT_TRUE(PeakLooksShared(270.0, 245.0, 2)) << "the caller reports it as still shared";
}

}  // namespace
}  // namespace podbench::kernels::bench
