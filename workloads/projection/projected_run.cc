#include "workloads/projection/projected_run.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>

#include "base/stats.h"
#include "workloads/projection/host.h"

namespace podbench::projection {

namespace {
int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
}  // namespace

// ---------------------------------------------------------------- schedule

Result<int64_t> TrainingSchedule::StepsThrough(int64_t label) const {
  if (label <= 0) return int64_t{0};
  if (points.empty()) {
    if (label > INT64_MAX / examples_per_epoch - global_batch) {
      return Status::InvalidArgument("training schedule: label " + std::to_string(label) + " is beyond any run");
    }
    return CeilDiv(label * examples_per_epoch, global_batch);
  }
  for (const EvalSchedulePoint& p : points) {
    if (p.label == label) return p.steps;
  }
  std::string known;
  for (const EvalSchedulePoint& p : points) known += (known.empty() ? "" : ", ") + std::to_string(p.label);
  return Status::InvalidArgument("training schedule: no evaluation is scheduled at label " + std::to_string(label) +
                                 " (labels: " + known + ")");
}

int64_t TrainingSchedule::FirstEpochSteps() const { return CeilDiv(examples_per_epoch, global_batch); }

Status TrainingSchedule::Validate() const {
  if (global_batch < 1) return Status::InvalidArgument("training schedule: global_batch must be >= 1");
  if (examples_per_epoch < 1) return Status::InvalidArgument("training schedule: examples_per_epoch must be >= 1");
  for (size_t i = 0; i < points.size(); ++i) {
    if (points[i].label < 1 || points[i].steps < 1 ||
        (i > 0 && (points[i].label <= points[i - 1].label || points[i].steps <= points[i - 1].steps))) {
      return Status::InvalidArgument("training schedule: point " + std::to_string(i) +
                                     " (label " + std::to_string(points[i].label) + ", steps " +
                                     std::to_string(points[i].steps) + ") must ascend in both, from 1");
    }
  }
  return Status::Ok();
}

// ---------------------------------------------------------------- convergence

int Convergence::total_runs() const {
  int total = 0;
  for (const ConvergencePoint& p : points) total += p.runs;
  return total;
}

const ConvergencePoint& Convergence::Draw(uint64_t seed) const {
  std::mt19937_64 rng(seed);
  int pick = std::uniform_int_distribution<int>(0, total_runs() - 1)(rng);
  for (const ConvergencePoint& p : points) {
    if (pick < p.runs) return p;
    pick -= p.runs;
  }
  return points.back();  // unreachable when the REQUIRES holds
}

double ModelledCurve::At(int64_t label, int64_t first_label, int64_t converge_label) const {
  if (label >= converge_label) {
    return std::min(cap, target + above + per_label_after * static_cast<double>(label - converge_label));
  }
  const double span = static_cast<double>(std::max<int64_t>(1, converge_label - first_label));
  const double x = std::clamp(static_cast<double>(label - first_label) / span, 0.0, 1.0);
  const double f = shape > 0 ? (1 - std::exp(-shape * x)) / (1 - std::exp(-shape)) : x;
  return first + (target - below - first) * f;
}

// ---------------------------------------------------------------- pricing

double RunPricing::BlockTrainS(int64_t steps) const {
  const double train = static_cast<double>(steps) * step.step_s();
  if (generation) return generation->PeriodS(train);
  return std::max(train, concurrent_block_s);
}

double RunPricing::BlockExcessS(int64_t steps) const {
  return BlockTrainS(steps) - static_cast<double>(steps) * step.step_s();
}

double RunPricing::EvalS(double next_block_s, bool last) const {
  if (!eval) return 0;
  if (generation) return eval->device_s;  // games beside training, in full
  if (last) return eval->device_s + eval->scoring_s;
  return eval->exposed_s(next_block_s);
}

Result<double> RunPricing::EvalAtS(const std::vector<int64_t>& labels, size_t i, bool last) const {
  if (last || i + 1 >= labels.size()) return EvalS(0, true);
  PODBENCH_ASSIGN_OR_RETURN(const int64_t here, schedule.StepsThrough(labels[i]));
  PODBENCH_ASSIGN_OR_RETURN(const int64_t next, schedule.StepsThrough(labels[i + 1]));
  return EvalS(BlockTrainS(next - here), false);
}

double RunPricing::TailS() const { return eval ? eval->scoring_s : 0; }

Result<topology::Slice> StepSliceOf(const StepSpec& spec, const topology::Slice& run_slice) {
  if (spec.slice.empty() || spec.slice == run_slice.name()) return run_slice;
  Result<topology::Slice> found = topology::Slice::FromName(spec.slice, run_slice.system());
  if (!found.ok()) return found.status().WithContext(spec.slice_from.empty() ? "the step's slice" : spec.slice_from);
  topology::Slice s = std::move(found).value();
  if (s.num_cores() > run_slice.num_cores()) {
    return Status::InvalidArgument("the step's slice " + s.name() + " is larger than the run's " + run_slice.name());
  }
  return s;
}

Result<StepProjection> TrainMixStep(const StepSpec& spec, const topology::Slice& run_slice) {
  PODBENCH_ASSIGN_OR_RETURN(const topology::Slice slice, StepSliceOf(spec, run_slice));
  if (spec.train_mix.empty()) return ProjectTrainStep(spec.graph, spec.config, slice, spec.options);
  double total = 0;
  for (const StepSpec::Share& s : spec.train_mix) {
    if (!(s.weight > 0)) {
      return Status::InvalidArgument("train mix of '" + spec.graph.name + "': every share's weight must be > 0");
    }
    total += s.weight;
  }
  StepProjection mean;
  for (size_t i = 0; i < spec.train_mix.size(); ++i) {
    const StepSpec::Share& share = spec.train_mix[i];
    PODBENCH_ASSIGN_OR_RETURN(StepProjection one, ProjectTrainStep(share.graph, spec.config, slice, spec.options));
    const double w = share.weight / total;
    if (i == 0) {
      mean = one;
      mean.time = one.time.Scaled(w);
      mean.host_input_s = one.host_input_s * w;
      for (OpRow& r : mean.ops) {
        r.flops *= w;
        r.forward_s *= w;
        r.backward_s *= w;
        r.halo_s *= w;
      }
      continue;
    }
    if (one.ops.size() != mean.ops.size()) {
      return Status::InvalidArgument("train mix of '" + spec.graph.name + "': share " + std::to_string(i) +
                                     " has " + std::to_string(one.ops.size()) + " training ops, the first has " +
                                     std::to_string(mean.ops.size()));
    }
    mean.time += one.time.Scaled(w);
    mean.host_input_s += one.host_input_s * w;
    for (size_t j = 0; j < one.ops.size(); ++j) {
      OpRow& r = mean.ops[j];
      if (r.name != one.ops[j].name) {
        return Status::InvalidArgument("train mix of '" + spec.graph.name + "': share " + std::to_string(i) +
                                       " has op " + one.ops[j].name + " where the first has " + r.name);
      }
      if (i + 1 == spec.train_mix.size()) r.shape = one.ops[j].shape;  // the last share's (GNMT: the longest)
      r.flops += one.ops[j].flops * w;
      r.forward_s += one.ops[j].forward_s * w;
      r.backward_s += one.ops[j].backward_s * w;
      r.halo_s += one.ops[j].halo_s * w;
    }
  }
  return mean;
}

Result<RunPricing> PriceRun(const StepSpec& spec, const TrainingSchedule& schedule, int64_t eval_examples,
                            double concurrent_block_s, const topology::Slice& slice) {
  PODBENCH_RETURN_IF_ERROR(schedule.Validate());
  if (concurrent_block_s < 0) return Status::InvalidArgument("concurrent_block_s must be >= 0");
  RunPricing p;
  p.schedule = schedule;
  p.concurrent_block_s = concurrent_block_s;
  PODBENCH_ASSIGN_OR_RETURN(p.step, TrainMixStep(spec, slice));
  if (eval_examples > 0) {
    PODBENCH_ASSIGN_OR_RETURN(p.eval, ProjectEvaluation(spec.graph, spec.config, slice, eval_examples, spec.options));
  }
  p.first_epoch_extra_s = FirstEpochExtraS(spec.graph.host, spec.config, p.step.step_s(), schedule.FirstEpochSteps(),
                                           schedule.examples_per_epoch, slice);
  return p;
}

Result<RunPricing> PricePlan(const StepSpec& spec, const RunPlan& plan, const topology::Slice& slice) {
  if (plan.generation && plan.eval_examples > 0) {
    return Status::InvalidArgument("a run of generations evaluates by games, not by " +
                                   std::to_string(plan.eval_examples) + " examples");
  }
  PODBENCH_ASSIGN_OR_RETURN(RunPricing p,
                            PriceRun(spec, plan.schedule, plan.eval_examples, plan.concurrent_block_s, slice));
  if (!plan.generation) return p;
  PODBENCH_ASSIGN_OR_RETURN(const topology::Slice train, StepSliceOf(spec, slice));
  PODBENCH_ASSIGN_OR_RETURN(p.generation,
                            PriceGeneration(spec.graph, *plan.generation, train.num_cores(), slice, spec.options));
  EvalProjection e;
  e.step = p.generation->evaluation.inference;
  e.steps = p.generation->evaluation.rounds;
  e.device_s = p.generation->evaluation.total_s;
  e.scoring_s = 0;  // the games' result is their win rate: nothing to score
  p.eval = e;
  return p;
}

// ---------------------------------------------------------------- composition

ScoreSplit& ScoreSplit::operator+=(const ScoreSplit& o) {
  startup_s += o.startup_s;
  training_s += o.training_s;
  evaluation_s += o.evaluation_s;
  tail_s += o.tail_s;
  return *this;
}

ScoreSplit ScoreSplit::Scaled(double f) const {
  ScoreSplit s = *this;
  s.startup_s *= f;
  s.training_s *= f;
  s.evaluation_s *= f;
  s.tail_s *= f;
  return s;
}

Result<ComposedRun> ComposeRun(const RunPricing& pricing, const std::vector<int64_t>& labels, int64_t end_label) {
  if (std::find(labels.begin(), labels.end(), end_label) == labels.end()) {
    return Status::InvalidArgument("composed run: no evaluation at label " + std::to_string(end_label));
  }
  ComposedRun run;
  run.split.startup_s = pricing.first_epoch_extra_s;
  double t = pricing.first_epoch_extra_s;
  int64_t done = 0;
  for (size_t i = 0; i < labels.size(); ++i) {
    const int64_t label = labels[i];
    if (label > end_label) break;
    PODBENCH_ASSIGN_OR_RETURN(const int64_t through, pricing.schedule.StepsThrough(label));
    const double train = pricing.BlockTrainS(through - done);
    run.steps += through - done;
    done = through;
    const bool last = label == end_label;
    double eval = 0;  // a generation's evaluation is beside training: not on the run's path
    if (!pricing.generation) {
      PODBENCH_ASSIGN_OR_RETURN(eval, pricing.EvalAtS(labels, i, last));
    }
    const double tail = last && !pricing.generation ? pricing.TailS() : 0;
    run.split.training_s += train;
    run.split.evaluation_s += eval - tail;
    run.split.tail_s += tail;
    t += train + eval;
    run.eval_end_s.push_back(t);
  }
  std::vector<double> gaps;
  for (size_t i = 1; i < run.eval_end_s.size(); ++i) gaps.push_back(run.eval_end_s[i] - run.eval_end_s[i - 1]);
  if (gaps.size() >= 2) gaps.pop_back();  // as results::MedianEvalGapS: the last gap holds the tail
  run.median_gap_s = gaps.empty() ? 0 : Median(gaps);
  return run;
}

Result<RowPrediction> PredictOverConvergence(const RunPricing& pricing, const std::vector<int64_t>& labels,
                                             const Convergence& convergence) {
  if (convergence.total_runs() < 1) return Status::InvalidArgument("convergence table has no runs");
  struct One {
    double score_s;
    ScoreSplit split;
    double gap_s;
  };
  std::vector<One> runs;
  for (const ConvergencePoint& p : convergence.points) {
    if (p.runs < 1) continue;
    PODBENCH_ASSIGN_OR_RETURN(ComposedRun r, ComposeRun(pricing, labels, p.label));
    for (int i = 0; i < p.runs; ++i) runs.push_back({r.split.total_s(), r.split, r.median_gap_s});
  }
  std::sort(runs.begin(), runs.end(), [](const One& a, const One& b) { return a.score_s < b.score_s; });
  const size_t drop = runs.size() >= 3 ? 1 : 0;
  RowPrediction out;
  std::vector<double> gaps;
  for (size_t i = drop; i + drop < runs.size(); ++i) {
    out.split += runs[i].split;
    gaps.push_back(runs[i].gap_s);
  }
  const double kept = static_cast<double>(runs.size() - 2 * drop);
  out.split = out.split.Scaled(1 / kept);
  out.score_s = out.split.total_s();
  out.median_gap_s = Median(gaps);
  out.first_epoch_extra_s = pricing.first_epoch_extra_s;
  out.step_s = pricing.step.step_s();
  return out;
}

}  // namespace podbench::projection
