// The calibration of the system file to the points the registered models
// declare (workloads/projection/calibration.h): the committed system file is
// the fit, every declared point lands near its published figure, the start-up
// and cache-fill values reproduce the first blocks they are read from, and a
// system that cannot reach the published blocks is refused, not fitted.
#include "workloads/projection/calibration.h"

#include <cmath>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/testing/sanitizers.h"
#include "topology/system.h"
#include "workloads/projected_runs.h"

namespace podbench::projection {
namespace {

std::vector<CalibrationTarget> Targets(const topology::SystemSpec& system) {
  auto t = workloads::RegisteredCalibrationTargets(system);
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  return t.ok() ? *std::move(t) : std::vector<CalibrationTarget>{};
}

// `podbench calibrate` wrote the committed system file. Fails when the cost
// model, the composition or a declared point changes without a re-run.
TEST(CalibrationTest, CommittedSystemFileIsTheFit) {
  // A full fit: about 13 s under ASan. The numbers do not depend on the build.
  PODBENCH_RELEASE_STAGE_ONLY("the fit runs under the sanitizers in ImpossibleSystemsAreRefusedNotFitted");
  const topology::SystemSpec& sys = topology::DefaultSystem();
  auto cal = Calibrate(sys, Targets(sys));
  ASSERT_TRUE(cal.ok()) << cal.status().ToString();
  EXPECT_NEAR(cal->Value("core.mxu_efficiency"), sys.core.mxu_efficiency, 1e-4 * sys.core.mxu_efficiency);
  EXPECT_NEAR(cal->Value("core.op_overhead_s"), sys.core.op_overhead_s, 1e-3 * sys.core.op_overhead_s);
  EXPECT_EQ(cal->Value("host.input_bytes_per_s"), sys.host.input_bytes_per_s);
  EXPECT_NEAR(cal->Value("host.startup_s"), sys.host.startup_s, 1e-3);
  EXPECT_NEAR(cal->Value("host.startup_s_per_host"), sys.host.startup_s_per_host, 1e-5);
  EXPECT_NEAR(cal->Value("host.cache_fill_bytes_per_s"), sys.host.cache_fill_bytes_per_s,
              1e-5 * sys.host.cache_fill_bytes_per_s);
  EXPECT_NEAR(cal->Value("host.scoring_ops_per_s"), sys.host.scoring_ops_per_s, 1e-5 * sys.host.scoring_ops_per_s);
}

TEST(CalibrationTest, EveryDeclaredPointLandsNearItsPublishedFigure) {
  // A full fit: about 13 s under ASan. The numbers do not depend on the build.
  PODBENCH_RELEASE_STAGE_ONLY("the fit runs under the sanitizers in ImpossibleSystemsAreRefusedNotFitted");
  auto cal = Calibrate(topology::DefaultSystem(), Targets(topology::DefaultSystem()));
  ASSERT_TRUE(cal.ok()) << cal.status().ToString();
  int blocks = 0, firsts = 0;
  double first_abs_pct = 0;
  for (const PointFit& p : cal->points) {
    SCOPED_TRACE(p.model + " " + p.point.slice + " " + CalibrationKindName(p.point.kind));
    EXPECT_FALSE(p.point.source.empty());
    if (p.point.kind == CalibrationKind::kBlock) {
      ++blocks;
      EXPECT_LT(std::abs(p.error_pct()), 5.0);
    }
    // One start-up line and one fill rate for 18 first blocks of three
    // runners: the residuals are wide (docs/calibration.md lists them).
    if (p.point.kind == CalibrationKind::kFirstBlockExtra) {
      EXPECT_LT(std::abs(p.error_pct()), 80.0);
      first_abs_pct += std::abs(p.error_pct());
      ++firsts;
    }
    // One scoring rate for two scorers' counted operations.
    if (p.point.kind == CalibrationKind::kScoring) {
      EXPECT_LT(std::abs(p.error_pct()), 45.0);
    }
    if (p.point.kind == CalibrationKind::kInputBound) {
      EXPECT_GT(p.predicted_s, 0);
    }
  }
  EXPECT_GE(blocks, 4);
  ASSERT_GT(firsts, 0);
  EXPECT_LT(first_abs_pct / firsts, 30.0);
  // Every value says what it came from.
  for (const CalibratedValue& v : cal->values) EXPECT_FALSE(v.how.empty()) << v.key;
}

TEST(CalibrationTest, ImpossibleSystemsAreRefusedNotFitted) {
  topology::SystemSpec slow = topology::DefaultSystem();
  slow.core.clock_hz /= 50;  // a core 50x slower cannot make the published blocks
  auto cal = Calibrate(slow, Targets(slow));
  ASSERT_FALSE(cal.ok());
  EXPECT_EQ(cal.status().code(), Status::Code::kFailedPrecondition);
  EXPECT_THAT(cal.status().message(), ::testing::HasSubstr("tpu-v3-32"));
  EXPECT_EQ(Calibrate(topology::DefaultSystem(), {}).status().code(), Status::Code::kFailedPrecondition);
}

TEST(CalibrationTest, APointWhoseRunCannotBeResolvedIsNamed) {
  topology::SystemSpec small = topology::DefaultSystem();
  small.pod.slices.erase(2048);
  auto targets = workloads::RegisteredCalibrationTargets(small);
  ASSERT_FALSE(targets.ok());
  EXPECT_EQ(targets.status().code(), Status::Code::kFailedPrecondition);
  EXPECT_THAT(targets.status().message(), ::testing::HasSubstr("tpu-v3-2048"));
}

// A fit to hand-made points: one block priced as a known function of the
// trial system recovers the efficiency that makes it exact.
TEST(CalibrationTest, StartupLineAndCacheFillFromFirstBlocks) {
  // Two runs without a cache at 16 and 256 hosts, one with a cache.
  auto fake = [](int64_t hosts, bool cache, double published, CalibrationKind kind) {
    CalibrationTarget t;
    t.model = "fake";
    t.point = {"tpu-v3-" + std::to_string(hosts * 8), kind, published, "made up"};
    t.predict = [hosts, cache](const topology::SystemSpec& s) -> Result<CalibrationTarget::Priced> {
      CalibrationTarget::Priced p;
      p.hosts = hosts;
      p.caches_decoded_examples = cache;
      // A block of 100 steps whose time falls as the efficiency rises.
      p.row.step_s = 0.01 / s.core.mxu_efficiency;
      p.row.median_gap_s = 100 * p.row.step_s;
      p.first_epoch_steps_s = 10 * p.row.step_s;
      p.first_epoch_fill_bytes = cache ? 1e9 : 0;
      p.per_host_step_bytes = 1e6;
      const double startup = s.host.startup_s + s.host.startup_s_per_host * static_cast<double>(hosts);
      const double fill = cache ? p.first_epoch_fill_bytes / s.host.cache_fill_bytes_per_s : 0;
      p.row.first_epoch_extra_s = startup + std::max(0.0, fill - p.first_epoch_steps_s);
      return p;
    };
    return t;
  };
  std::vector<CalibrationTarget> ts = {
      fake(16, false, 2.0, CalibrationKind::kBlock),  // 100 x 0.01 / eff = 2 s: eff 0.5
      fake(16, false, 3.0, CalibrationKind::kFirstBlockExtra),
      fake(256, false, 5.4, CalibrationKind::kFirstBlockExtra),  // 3 + 0.01 x 240
      fake(4, true, 13.02, CalibrationKind::kFirstBlockExtra),
      fake(16, false, 0, CalibrationKind::kInputBound),
  };
  auto cal = Calibrate(topology::DefaultSystem(), ts);
  ASSERT_TRUE(cal.ok()) << cal.status().ToString();
  EXPECT_NEAR(cal->Value("core.mxu_efficiency"), 0.5, 1e-3);
  EXPECT_NEAR(cal->Value("host.startup_s_per_host"), 0.01, 1e-9);
  EXPECT_NEAR(cal->Value("host.startup_s"), 2.84, 1e-9);
  // 4 hosts: start-up 2.88 s, the fill leaves 13.02 - 2.88 = 10.14 s beyond
  // the first epoch's 0.2 s of steps: 1e9 bytes in 10.34 s.
  EXPECT_NEAR(cal->Value("host.cache_fill_bytes_per_s"), 1e9 / 10.34, 1e-3 * 1e9 / 10.34);
  // 1e6 bytes a step of 0.02 s: 5e7 B/s.
  EXPECT_NEAR(cal->Value("host.input_bytes_per_s"), 5e7, 1e7);
}

}  // namespace
}  // namespace podbench::projection
