#include "harness/run/reporters.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>

#include <fmt/format.h>

namespace podbench::harness {

results::StoredDescription StoredDescriptionOf(const workloads::WorkloadDescription& d) {
  results::StoredDescription out;
  out.model = d.model.name;
  out.parameters = d.model.parameters;
  out.train_flops_per_example = d.model.train_flops_per_example;
  out.data = d.data.name;
  out.train_examples = d.data.train_examples;
  out.eval_examples = d.data.eval_examples;
  const projection::ParallelLayout& l = d.parallelism;
  out.layout = {l.replicas,       l.cores_per_replica,
                projection::SplitDimName(l.split), l.weight_update_sharding,
                l.bn_group,       projection::DTypeName(l.gradient_dtype),
                l.allreduce};
  return out;
}

LogReporter::LogReporter(std::string path) : path_(std::move(path)) {}

Result<std::unique_ptr<LogReporter>> LogReporter::Create(const std::string& path, mllog::Format format) {
  std::unique_ptr<LogReporter> r(new LogReporter(path));
  if (!path.empty()) {
    r->out_.open(path, std::ios::out | std::ios::trunc);
    if (!r->out_) return Status::IOError(path + ": cannot create the MLPerf log (" + std::strerror(errno) + ")");
  }
  r->writer_ = std::make_unique<mllog::LogWriter>(r->line_, format);
  return r;
}

namespace {
bool EndsWith(const std::string& s, const char* suffix) {
  const std::string_view x(suffix);
  return s.size() >= x.size() && s.compare(s.size() - x.size(), x.size(), x) == 0;
}
}  // namespace

Status LogReporter::OnEvent(const RunEvent& e) {
  const char* type = EndsWith(e.key, "_start") ? "INTERVAL_START" : EndsWith(e.key, "_stop") ? "INTERVAL_END"
                                                                                               : "POINT_IN_TIME";
  line_.str("");
  Status st = writer_->Write(e.ts_emulated_s, e.key, e.value, e.metadata, type, "podbench/harness/run", 0);
  if (!st.ok()) return st.WithContext(path_.empty() ? "the MLPerf log" : path_);
  const std::string line = line_.str();
  text_ += line;
  if (out_.is_open()) {
    out_ << line << std::flush;
    if (!out_) return Status::IOError(path_ + ": cannot write the MLPerf log");
  }
  return Status::Ok();
}

Status StoreReporter::OnEvent(const RunEvent& e) {
  events_.push_back({seq_++, e.ts_emulated_s, e.ts_host_s, e.key, e.value.ToJson(),
                     e.metadata.is_null() ? "{}" : e.metadata.ToJson()});
  return Status::Ok();
}

Status StoreReporter::OnEval(const EvalPoint& p) {
  evals_.push_back({static_cast<double>(p.epoch), p.metric, p.value, p.ts_emulated_s, p.ts_host_s});
  return Status::Ok();
}

Status StoreReporter::Flush() {
  if (!events_.empty()) PODBENCH_RETURN_IF_ERROR(store_.AppendEvents(run_id_, events_));
  events_.clear();
  if (!evals_.empty()) PODBENCH_RETURN_IF_ERROR(store_.AddEvals(run_id_, evals_));
  evals_.clear();
  return Status::Ok();
}

Status StoreReporter::OnFinish(const RunSummary& s) {
  PODBENCH_RETURN_IF_ERROR(Flush());
  results::StepBreakdown b;
  b.steps = s.steps;
  b.mxu_s = s.train.mxu_s;
  b.vector_s = s.train.vector_s;
  b.hbm_s = s.train.hbm_s;
  b.collectives_s = s.train.collectives_s;
  b.halo_s = s.train.halo_s;
  b.bn_sync_s = s.train.bn_sync_s;
  b.optimizer_s = s.train.optimizer_s;
  b.input_s = s.train.input_s;
  b.idle_s = s.train.idle_s;
  b.evaluation_s = s.evaluation_s;
  return store_.SetBreakdown(run_id_, b);
}

results::RunOutcome RunOutcomeOf(const RunSummary& s, std::string status) {
  results::RunOutcome o;
  o.status = std::move(status);
  o.ttt_emulated_s = s.ttt_emulated_s;
  o.ttt_host_s = s.ttt_host_s;
  if (s.steps > 0) {
    o.step_time_s = s.step_time_s;
    o.throughput = s.throughput;
  }
  o.epochs = static_cast<double>(s.epochs);
  o.init_emulated_s = s.init_emulated_s;
  return o;
}

std::string ShortDuration(double seconds) {
  const int64_t s = static_cast<int64_t>(std::llround(std::max(0.0, seconds)));
  if (s < 60) return fmt::format("{}s", s);
  if (s < 3600) return fmt::format("{}m{:02}s", s / 60, s % 60);
  return fmt::format("{}h{:02}m", s / 3600, s % 3600 / 60);
}

namespace {

// A rate as it reads best: whole numbers from 100 up, else 3 digits.
std::string Rate(double v) { return v >= 100 ? fmt::format("{:.0f}", v) : fmt::format("{:.3g}", v); }

}  // namespace

std::string ProgressText(const std::string& prefix, const ProgressView& v) {
  constexpr int kWidth = 30;
  const bool steps = v.steps_per_epoch > 0;
  const double max_epochs = static_cast<double>(std::max<int64_t>(1, v.max_epochs));
  const double done = steps ? static_cast<double>(v.epoch - 1) +
                                  static_cast<double>(v.step) / static_cast<double>(v.steps_per_epoch)
                            : static_cast<double>(v.epoch);
  const int filled = static_cast<int>(kWidth * std::clamp(done / max_epochs, 0.0, 1.0));
  std::string line = fmt::format("{}run {}/{} [{}{}] epoch {}/{}", prefix, v.run + 1, v.runs,
                                 std::string(static_cast<size_t>(filled), '#'),
                                 std::string(static_cast<size_t>(kWidth - filled), ' '), v.epoch, v.max_epochs);
  if (steps) line += fmt::format(" step {}/{}", v.step, v.steps_per_epoch);
  if (v.steps_per_s && *v.steps_per_s > 0) {
    line += fmt::format(", {} steps/s", Rate(*v.steps_per_s));
    if (v.examples_per_step > 0) {
      line += fmt::format(", {} examples/s", Rate(*v.steps_per_s * static_cast<double>(v.examples_per_step)));
    }
    if (steps) {
      const int64_t left = std::max<int64_t>(0, v.max_epochs - v.epoch) * v.steps_per_epoch +
                           std::max<int64_t>(0, v.steps_per_epoch - v.step);
      line += ", at most " + ShortDuration(static_cast<double>(left) / *v.steps_per_s) + " left";
    }
  }
  return line;
}

void ProgressReporter::OnTrainStep(const TrainProgress& p) {
  if (!first_) first_ = p;
  view_.epoch = p.step.epoch;
  view_.max_epochs = p.max_epochs;
  view_.step = p.step.step;
  view_.steps_per_epoch = p.step.steps_per_epoch;
  view_.examples_per_step = p.examples_per_step;
  const double dt = p.host_s - first_->host_s;
  if (p.steps_done > first_->steps_done && dt > 0) {
    view_.steps_per_s = static_cast<double>(p.steps_done - first_->steps_done) / dt;
  }
  const bool epoch_end = p.step.step >= p.step.steps_per_epoch;
  if (drawn_at_s_ && !epoch_end && p.host_s - *drawn_at_s_ < kRedrawS) return;
  drawn_at_s_ = p.host_s;
  Draw();
}

Status ProgressReporter::OnBlockDone(int64_t last_epoch, int64_t max_epochs) {
  // Steps reported: the bar is where the last step left it. Otherwise
  // (projected mode) it moves by whole epochs.
  if (view_.steps_per_epoch == 0) {
    view_.epoch = last_epoch;
    view_.max_epochs = max_epochs;
  }
  Draw();
  return Status::Ok();
}

void ProgressReporter::Draw() {
  const std::string line = "  " + ProgressText(prefix_, view_);
  // Blank what a longer line before left on screen.
  const size_t pad = drawn_width_ > line.size() ? drawn_width_ - line.size() : 0;
  out_ << "\r" << line << std::string(pad, ' ') << std::flush;
  drawn_width_ = line.size();
}

Status ProgressReporter::OnFinish(const RunSummary&) {
  out_ << "\r" << std::string(drawn_width_, ' ') << "\r" << std::flush;
  drawn_width_ = 0;
  return Status::Ok();
}

}  // namespace podbench::harness
