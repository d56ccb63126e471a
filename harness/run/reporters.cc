#include "harness/run/reporters.h"

#include <algorithm>

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
    if (!r->out_) return Status::IOError(path + ": cannot create the MLPerf log");
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

Status ProgressReporter::OnBlockDone(int64_t last_epoch, int64_t max_epochs) {
  constexpr int kWidth = 30;
  int filled = static_cast<int>(kWidth * std::min<int64_t>(last_epoch, max_epochs) /
                                std::max<int64_t>(1, max_epochs));
  out_ << fmt::format("\r  {}run {}/{} [{}{}] epoch {}/{}", prefix_, run_ + 1, runs_,
                      std::string(filled, '#'),
                      std::string(kWidth - filled, ' '), last_epoch, max_epochs)
       << std::flush;
  return Status::Ok();
}

Status ProgressReporter::OnFinish(const RunSummary&) {
  out_ << "\r" << std::string(70 + prefix_.size(), ' ') << "\r" << std::flush;
  return Status::Ok();
}

}  // namespace podbench::harness
