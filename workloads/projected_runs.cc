#include "workloads/projected_runs.h"

#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

#include "topology/slice.h"
#include "workloads/projection/host.h"
#include "workloads/projection/overrides.h"

namespace podbench::workloads {
namespace {

class ProjectedSession : public Session {
 public:
  ProjectedSession(const RunContext& ctx, projection::StepSpec step, projection::RunPlan plan,
                   ProjectedLogLines lines)
      : ctx_(ctx), step_(std::move(step)), plan_(std::move(plan)), lines_(std::move(lines)) {}

  Result<double> Initialize() override {
    PODBENCH_ASSIGN_OR_RETURN(slice_, topology::Slice::FromName(ctx_.slice.name, *ctx_.system));
    PODBENCH_ASSIGN_OR_RETURN(pricing_, projection::PricePlan(step_, plan_, *slice_));
    if (plan_.convergence.total_runs() < 1) {
      return Status::InvalidArgument("projected " + ctx_.description.benchmark + ": no published convergence for " +
                                     ctx_.slice.name);
    }
    converge_label_ = plan_.convergence.Draw(ctx_.seed).label;
    labels_ = ctx_.description.cadence.EvalEpochs();
    if (labels_.empty()) return Status::Internal("projected session: the cadence has no evaluations");
    return plan_.init.At(ctx_.slice.chips);
  }

  Result<BlockResult> TrainBlock(int64_t first_epoch, int64_t epochs) override {
    PODBENCH_ASSIGN_OR_RETURN(const int64_t through, pricing_.schedule.StepsThrough(first_epoch + epochs - 1));
    BlockResult r;
    r.steps = through - steps_done_;
    steps_done_ = through;
    r.time = TimeBreakdown::Of(pricing_.step.time, static_cast<double>(r.steps));
    r.time.input_s += pricing_.BlockExcessS(r.steps);
    if (first_epoch == 1) r.time.input_s += pricing_.first_epoch_extra_s;
    if (lines_.block) r.events = lines_.block(first_epoch, epochs);
    return r;
  }

  Result<EvalResult> Evaluate(int64_t epoch) override {
    EvalResult r;
    r.metrics[plan_.curve.metric] = plan_.curve.At(epoch, labels_.front(), converge_label_);
    r.modelled = plan_.curve.how;
    // The run ends on this evaluation when it reaches the target or is the
    // cadence's last (or not one of its labels): then its scoring is paid in
    // full.
    const size_t i = static_cast<size_t>(std::find(labels_.begin(), labels_.end(), epoch) - labels_.begin());
    PODBENCH_ASSIGN_OR_RETURN(r.emulated_s, pricing_.EvalAtS(labels_, i, epoch >= converge_label_));
    if (lines_.evaluation) r.events = lines_.evaluation(epoch, epoch >= converge_label_);
    return r;
  }

 private:
  RunContext ctx_;
  projection::StepSpec step_;
  projection::RunPlan plan_;
  ProjectedLogLines lines_;
  std::optional<topology::Slice> slice_;
  projection::RunPricing pricing_;
  std::vector<int64_t> labels_;
  int64_t converge_label_ = 0, steps_done_ = 0;
};

}  // namespace

std::unique_ptr<Session> StartProjectedSession(const RunContext& ctx, projection::StepSpec step,
                                               projection::RunPlan plan, ProjectedLogLines lines) {
  return std::make_unique<ProjectedSession>(ctx, std::move(step), std::move(plan), std::move(lines));
}

Result<std::unique_ptr<Session>> StartProjected(const Workload& workload, const RunContext& ctx) {
  PODBENCH_ASSIGN_OR_RETURN(projection::StepSpec step, workload.ProjectedStep(ctx.hp, ctx.slice));
  PODBENCH_ASSIGN_OR_RETURN(projection::RunPlan plan, workload.ProjectedPlan(ctx.hp, ctx.slice));
  return StartProjectedSession(ctx, std::move(step), std::move(plan));
}

Result<ProjectedRunModel> ModelProjectedRun(std::string_view model, std::string_view preset,
                                            std::string_view slice_name, const topology::SystemSpec& system,
                                            const std::vector<std::string>& sets,
                                            const std::vector<std::string>& step_overrides) {
  const ModelRegistration* reg = FindWorkload(model);
  if (reg == nullptr) return Status::NotFound("no workload named '" + std::string(model) + "'");
  if (!reg->Supports(Mode::kProjected)) {
    return Status::InvalidArgument(std::string(model) + " has no projected mode");
  }
  PODBENCH_ASSIGN_OR_RETURN(topology::Slice slice, topology::Slice::FromName(std::string(slice_name), system));
  const SliceInfo info{slice.name(), slice.num_cores(), slice.num_chips()};
  const std::unique_ptr<Workload> w = reg->Create();
  ProjectedRunModel r;
  r.slice = info;
  PODBENCH_ASSIGN_OR_RETURN(r.hp, PresetHyperparameters(*reg, *w, preset, info, sets));
  PODBENCH_RETURN_IF_ERROR(w->Validate(r.hp, info, Mode::kProjected));
  PODBENCH_ASSIGN_OR_RETURN(r.description, w->Describe(r.hp, info, Mode::kProjected));
  PODBENCH_ASSIGN_OR_RETURN(r.step, w->ProjectedStep(r.hp, info));
  for (const std::string& o : step_overrides) {
    PODBENCH_RETURN_IF_ERROR(projection::ApplyOverride(o, slice.num_cores(), &r.step.config, &r.step.options));
  }
  PODBENCH_ASSIGN_OR_RETURN(r.plan, w->ProjectedPlan(r.hp, info));
  PODBENCH_ASSIGN_OR_RETURN(r.pricing, projection::PricePlan(r.step, r.plan, slice));
  r.labels = r.description.cadence.EvalEpochs();
  return r;
}

Result<projection::RowPrediction> PredictRow(const ProjectedRunModel& run) {
  return projection::PredictOverConvergence(run.pricing, run.labels, run.plan.convergence);
}

Result<std::vector<projection::CalibrationTarget>> RegisteredCalibrationTargets(
    const topology::SystemSpec& system) {
  std::vector<projection::CalibrationTarget> out;
  for (const ModelRegistration* m : AllWorkloads()) {
    for (const projection::CalibrationPoint& point : m->calibration()) {
      projection::CalibrationTarget t;
      t.model = m->name();
      t.point = point;
      auto resolved = ModelProjectedRun(m->name(), m->calibration_preset(), point.slice, system);
      if (!resolved.ok()) {
        return Status::FailedPrecondition(t.model + " " + point.slice + ": " + resolved.status().message());
      }
      t.predict = [run = std::make_shared<const ProjectedRunModel>(std::move(resolved).value())](
                      const topology::SystemSpec& trial) -> Result<projection::CalibrationTarget::Priced> {
        PODBENCH_ASSIGN_OR_RETURN(const topology::Slice s, topology::Slice::FromName(run->slice.name, trial));
        PODBENCH_ASSIGN_OR_RETURN(const projection::RunPricing pricing, projection::PricePlan(run->step, run->plan, s));
        projection::CalibrationTarget::Priced p;
        PODBENCH_ASSIGN_OR_RETURN(p.row,
                                  projection::PredictOverConvergence(pricing, run->labels, run->plan.convergence));
        const projection::HostWork& host = run->step.graph.host;
        const projection::TrainingSchedule& sched = run->plan.schedule;
        p.caches_decoded_examples = run->step.config.cache_decoded_examples;
        p.hosts = s.num_hosts();
        p.first_epoch_fill_bytes = projection::FirstEpochFillBytes(host, sched.examples_per_epoch, s);
        p.first_epoch_steps_s = static_cast<double>(sched.FirstEpochSteps()) * pricing.step.step_s();
        p.scoring_s = pricing.eval ? pricing.eval->scoring_s : 0;
        p.per_host_step_bytes = projection::HostInputBytesPerStep(host, pricing.step.global_examples, s);
        return p;
      };
      out.push_back(std::move(t));
    }
  }
  return out;
}

}  // namespace podbench::workloads
