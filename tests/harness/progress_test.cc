// The progress bar of a run on a terminal (harness/run/reporters.h): its
// text, and when a reporter fed steps redraws. Host times come in the
// events, so nothing here depends on how fast the test runs.
#include <sstream>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "harness/run/reporters.h"

namespace podbench::harness {
namespace {

using ::testing::EndsWith;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

TEST(ProgressText, StepsRateAndTimeLeft) {
  const ProgressView v{.run = 0, .runs = 5, .epoch = 33, .max_epochs = 81, .step = 225, .steps_per_epoch = 450,
                       .steps_per_s = 12.5, .examples_per_step = 128};
  // 32.5 of 81 epochs: 12 of 30 marks. Left: 48 * 450 + 225 = 21825 steps
  // at 12.5 a second = 1746 s.
  EXPECT_EQ(ProgressText("[1/2] ssd tpu-v3-8 ", v),
            "[1/2] ssd tpu-v3-8 run 1/5 [############                  ] epoch 33/81 step 225/450, 12.5 steps/s, "
            "1600 examples/s, at most 29m06s left");
}

TEST(ProgressText, LeavesOutWhatIsNotKnown) {
  // No rate yet: neither rate nor time left.
  const ProgressView first{.run = 1, .runs = 2, .epoch = 1, .max_epochs = 10, .step = 1, .steps_per_epoch = 100};
  EXPECT_EQ(ProgressText("", first), "run 2/2 [                              ] epoch 1/10 step 1/100");
  // Projected mode: whole epochs, no steps.
  const ProgressView projected{.epoch = 5, .max_epochs = 10, .steps_per_s = 3.0};
  EXPECT_EQ(ProgressText("", projected), "run 1/1 [###############               ] epoch 5/10, 3 steps/s");
}

TEST(ShortDuration, ReadsAsAPersonWould) {
  EXPECT_EQ(ShortDuration(0), "0s");
  EXPECT_EQ(ShortDuration(42.4), "42s");
  EXPECT_EQ(ShortDuration(245), "4m05s");
  EXPECT_EQ(ShortDuration(3720), "1h02m");
  EXPECT_EQ(ShortDuration(-3), "0s");
}

TrainProgress Step(int64_t epoch, int64_t step, int64_t steps_done, double host_s) {
  return TrainProgress{{epoch, step, 4}, 3, steps_done, 32, host_s};
}

// Between evaluations the bar moves with the steps: at the first step, at
// most every kRedrawS host seconds, and at each epoch's last step.
TEST(ProgressReporter, RedrawsBetweenEvaluations) {
  std::ostringstream out;
  ProgressReporter bar(out, 0, 1, "toy ");
  bar.OnTrainStep(Step(1, 1, 1, 1.0));
  EXPECT_THAT(out.str(), HasSubstr("epoch 1/3 step 1/4"));
  EXPECT_THAT(out.str(), Not(HasSubstr("steps/s")));  // one step: no rate yet
  bar.OnTrainStep(Step(1, 2, 2, 1.0 + ProgressReporter::kRedrawS / 2));  // too soon
  EXPECT_THAT(out.str(), Not(HasSubstr("step 2/4")));
  bar.OnTrainStep(Step(1, 3, 3, 2.0));
  // 2 steps in 1 s since the first; 1 + 2 * 4 steps left.
  EXPECT_THAT(out.str(), EndsWith("epoch 1/3 step 3/4, 2 steps/s, 64 examples/s, at most 5s left"));
  bar.OnTrainStep(Step(1, 4, 4, 2.01));  // the epoch's last step: drawn however soon
  EXPECT_THAT(out.str(), HasSubstr("step 4/4"));
  ASSERT_TRUE(bar.OnBlockDone(1, 3).ok());  // after the evaluation: stays where the steps left it
  EXPECT_THAT(out.str(), EndsWith("epoch 1/3 step 4/4, 2.97 steps/s, 95 examples/s, at most 3s left"));
  EXPECT_THAT(out.str(), StartsWith("\r  toy run 1/1 ["));
  ASSERT_TRUE(bar.OnFinish(RunSummary{}).ok());
  EXPECT_THAT(out.str(), EndsWith("\r"));  // the line blanked for what follows
}

// Without steps (projected mode) it moves at each block, by epochs.
TEST(ProgressReporter, ProjectedRunsMoveByBlocks) {
  std::ostringstream out;
  ProgressReporter bar(out, 2, 5);
  ASSERT_TRUE(bar.OnBlockDone(4, 40).ok());
  EXPECT_EQ(out.str(), "\r  run 3/5 [###                           ] epoch 4/40");
}

}  // namespace
}  // namespace podbench::harness
