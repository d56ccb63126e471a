#include "harness/run/lifecycle.h"

#include <chrono>
#include <cmath>

#include <nlohmann/json.hpp>

#include "base/version.h"

namespace podbench::harness {

using mllog::Value;

namespace {

Value Meta(std::initializer_list<std::pair<const char*, Value>> kv) {
  Value d = Value::Dict();
  for (const auto& [k, v] : kv) d.Set(k, v);
  return d;
}

// The logged value of hyperparameter `spec` (an int_list as a JSON list).
Value FromHp(const workloads::HyperparameterSpec& spec, const workloads::HpValue& v) {
  if (spec.int_list) {
    Value list = Value::List();
    auto ints = workloads::ParseIntList(spec.name, std::get<std::string>(v));
    if (ints.ok()) {
      for (int64_t x : *ints) list.Append(Value::Int(x));
    }
    return list;
  }
  if (const auto* i = std::get_if<int64_t>(&v)) return Value::Int(*i);
  if (const auto* d = std::get_if<double>(&v)) return Value::Float(*d);
  if (const auto* b = std::get_if<bool>(&v)) return Value::Bool(*b);
  return Value::String(std::get<std::string>(v));
}

// Emits events to every observer on the two clocks.
class Emitter {
 public:
  Emitter(const std::vector<RunObserver*>& observers, double origin)
      : observers_(observers), emulated_(origin), host_start_(std::chrono::steady_clock::now()) {}

  double host_s() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - host_start_).count();
  }
  double emulated() const { return emulated_; }
  void Advance(double seconds) { emulated_ += seconds; }

  Status Emit(const std::string& key, Value value = Value(), Value metadata = Value()) {
    // Logged at millisecond resolution, as v0.6 logs are.
    RunEvent e{std::round(emulated_ * 1000) / 1000, host_s(), key, std::move(value),
               std::move(metadata)};
    for (RunObserver* o : observers_) PODBENCH_RETURN_IF_ERROR(o->OnEvent(e));
    return Status::Ok();
  }
  template <typename F>
  Status Each(F&& f) {
    for (RunObserver* o : observers_) PODBENCH_RETURN_IF_ERROR(f(o));
    return Status::Ok();
  }

 private:
  const std::vector<RunObserver*>& observers_;
  double emulated_;
  std::chrono::steady_clock::time_point host_start_;
};

std::string SubmissionEntry(const EffectiveRunSettings& s) {
  nlohmann::json j;
  j["hardware"] = "emulated Google TPU-v3 (podbench)";
  j["slice"] = s.slice.name;
  j["chips"] = s.slice.chips;
  j["cores"] = s.slice.cores;
  j["mode"] = workloads::ModeName(s.mode);
  j["framework"] = std::string("podbench ") + Version() + " (git " + GitHash() + ")";
  return j.dump();
}

}  // namespace

Result<RunSummary> RunOnce(const EffectiveRunSettings& s, int index,
                           const std::vector<RunObserver*>& observers) {
  const workloads::WorkloadDescription& d = s.description;
  workloads::RunContext ctx{s.slice, s.system, s.mode, s.base_seed + static_cast<uint64_t>(index), s.hp, d};
  PODBENCH_ASSIGN_OR_RETURN(std::unique_ptr<workloads::Session> session, s.workload->Start(ctx));

  // Millisecond origin, so :::MLL timestamps read like real ones.
  const double origin =
      std::floor(std::chrono::duration<double>(
                     std::chrono::system_clock::now().time_since_epoch()).count() * 1000) / 1000;
  Emitter em(observers, origin);
  RunSummary sum;

  PODBENCH_RETURN_IF_ERROR(em.Emit("submission_benchmark", Value::String(d.benchmark)));
  PODBENCH_RETURN_IF_ERROR(em.Emit("submission_org", Value::String("podbench")));
  PODBENCH_RETURN_IF_ERROR(em.Emit("submission_division", Value::String("closed")));
  PODBENCH_RETURN_IF_ERROR(em.Emit("submission_status", Value::String("research")));
  PODBENCH_RETURN_IF_ERROR(em.Emit("submission_platform", Value::String(s.slice.name)));
  PODBENCH_RETURN_IF_ERROR(em.Emit("submission_entry", Value::String(SubmissionEntry(s))));
  PODBENCH_RETURN_IF_ERROR(em.Emit("submission_poc_name", Value::String("podbench")));
  PODBENCH_RETURN_IF_ERROR(em.Emit("submission_poc_email", Value::String("podbench@localhost")));
  PODBENCH_RETURN_IF_ERROR(em.Emit("cache_clear", Value::Bool(true)));
  PODBENCH_RETURN_IF_ERROR(em.Emit("init_start"));
  for (const auto& spec : s.workload->HyperparameterSpecs()) {
    if (!spec.log || !s.hp.Applies(spec)) continue;
    PODBENCH_RETURN_IF_ERROR(em.Emit(spec.name, FromHp(spec, s.hp.values().at(spec.name))));
  }
  PODBENCH_ASSIGN_OR_RETURN(double init_s, session->Initialize());
  em.Advance(init_s);
  sum.init_emulated_s = init_s;
  PODBENCH_RETURN_IF_ERROR(em.Emit("init_stop"));
  PODBENCH_RETURN_IF_ERROR(em.Emit("run_start"));
  const double run_start_emulated = em.emulated();
  const double run_start_host = em.host_s();

  int64_t next_epoch = 1;
  for (int64_t eval_epoch : d.cadence.EvalEpochs()) {
    const int64_t count = eval_epoch - next_epoch + 1;
    PODBENCH_RETURN_IF_ERROR(em.Emit("block_start", Value(), Meta({{"first_epoch_num", Value::Int(next_epoch)},
                                                                   {"epoch_count", Value::Int(count)}})));
    PODBENCH_ASSIGN_OR_RETURN(workloads::BlockResult block, session->TrainBlock(next_epoch, count));
    const double per_epoch = block.time.total_s() / static_cast<double>(count);
    for (int64_t e = next_epoch; e <= eval_epoch; ++e) {
      PODBENCH_RETURN_IF_ERROR(em.Emit("epoch_start", Value(), Meta({{"epoch_num", Value::Int(e)}})));
      em.Advance(per_epoch);
      PODBENCH_RETURN_IF_ERROR(em.Emit("epoch_stop", Value(), Meta({{"epoch_num", Value::Int(e)}})));
    }
    sum.steps += block.steps;
    sum.train += block.time;
    PODBENCH_RETURN_IF_ERROR(em.Emit("eval_start", Value(), Meta({{"epoch_num", Value::Int(eval_epoch)}})));
    PODBENCH_ASSIGN_OR_RETURN(workloads::EvalResult ev, session->Evaluate(eval_epoch));
    em.Advance(ev.emulated_s);
    sum.evaluation_s += ev.emulated_s;
    PODBENCH_RETURN_IF_ERROR(em.Emit("eval_stop", Value(), Meta({{"epoch_num", Value::Int(eval_epoch)}})));
    bool all_reached = true;
    Value accuracy = Value::Dict();
    for (const auto& t : d.targets) {
      auto it = ev.metrics.find(t.metric);
      if (it == ev.metrics.end()) {
        return Status::Internal(s.request.workload + " evaluation did not report metric '" +
                                t.metric + "'");
      }
      all_reached = all_reached && t.Reached(it->second);
      accuracy.Set(t.metric, Value::Float(it->second));
      EvalPoint p{eval_epoch, t.metric, it->second, em.emulated(), em.host_s()};
      PODBENCH_RETURN_IF_ERROR(em.Each([&](RunObserver* o) { return o->OnEval(p); }));
    }
    // One metric: the bare value, as v0.6 logs write it; several: a dict.
    Value logged = d.targets.size() == 1 ? accuracy.items()[0] : accuracy;
    // Modelled values (projected mode) say so, and how, in the metadata.
    Value meta = Meta({{"epoch_num", Value::Int(eval_epoch)}});
    if (!ev.modelled.empty()) {
      meta.Set("modelled", Value::Bool(true));
      meta.Set("model", Value::String(ev.modelled));
    }
    PODBENCH_RETURN_IF_ERROR(em.Emit("eval_accuracy", logged, meta));
    PODBENCH_RETURN_IF_ERROR(em.Emit("block_stop", Value(), Meta({{"first_epoch_num", Value::Int(next_epoch)}})));
    sum.epochs = eval_epoch;
    next_epoch = eval_epoch + 1;
    PODBENCH_RETURN_IF_ERROR(em.Each(
        [&](RunObserver* o) { return o->OnBlockDone(eval_epoch, d.cadence.max_epochs); }));
    if (all_reached && !block.diverged) {
      sum.success = true;
      break;
    }
    if (block.diverged) break;  // aborted: training cannot go on
  }
  PODBENCH_RETURN_IF_ERROR(em.Emit("run_stop", Value(),
                                   Meta({{"status", Value::String(sum.success ? "success" : "aborted")}})));
  sum.ttt_emulated_s = em.emulated() - run_start_emulated;
  sum.ttt_host_s = em.host_s() - run_start_host;
  if (sum.steps > 0) {
    sum.step_time_s = sum.train.total_s() / static_cast<double>(sum.steps);
    if (sum.step_time_s > 0) sum.throughput = static_cast<double>(d.global_batch) / sum.step_time_s;
  }
  PODBENCH_RETURN_IF_ERROR(em.Each([&](RunObserver* o) { return o->OnFinish(sum); }));
  return sum;
}

}  // namespace podbench::harness
