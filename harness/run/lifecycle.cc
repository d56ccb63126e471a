#include "harness/run/lifecycle.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <functional>
#include <optional>
#include <string_view>

#include <nlohmann/json.hpp>

#include "base/version.h"

namespace podbench::harness {

using mllog::Value;
using workloads::EvalValueShape;
using workloads::WorkloadEvent;

namespace {

// The keys of the v0.6 lifecycle, which only the harness writes.
constexpr std::string_view kHarnessKeys[] = {
    "submission_benchmark", "submission_org", "submission_division", "submission_status",
    "submission_platform",  "submission_entry", "submission_poc_name", "submission_poc_email",
    "cache_clear",          "init_start",     "init_stop",           "run_start",
    "run_stop",             "block_start",    "block_stop",          "epoch_start",
    "epoch_stop",           "eval_start",     "eval_stop",           "eval_accuracy"};

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

// A workload's JSON as a log value (integers and floats kept apart).
Result<Value> FromJson(const nlohmann::json& j, const std::string& what) {
  Value v;
  std::string error;
  if (!mllog::ParseJson(j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace), &v, &error)) {
    return Status::Internal(what + ": not a JSON value: " + error);
  }
  return v;
}

// Seconds at the log's millisecond resolution, as v0.6 logs write them.
double Millis(double s) { return std::round(s * 1000) / 1000; }

// The run's emulated timeline and its two clocks. Training advances `now`;
// lines due later (an evaluation beside training) are scheduled and written
// when the timeline reaches them, so every observer sees the lines in time
// order.
class Emitter {
 public:
  Emitter(const std::vector<RunObserver*>& observers, double origin)
      : observers_(observers), now_(origin), host_start_(std::chrono::steady_clock::now()) {}

  double host_s() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - host_start_).count();
  }
  double now() const { return now_; }
  void Advance(double seconds) { now_ += seconds; }
  void AdvanceTo(double t) { now_ = std::max(now_, t); }

  // Writes a line at `now`, after every scheduled line due by then.
  Status Emit(const std::string& key, Value value = Value(), Value metadata = Value()) {
    PODBENCH_RETURN_IF_ERROR(FlushUntil(now_));
    return Write(now_, key, std::move(value), std::move(metadata));
  }
  // Writes a line at emulated time `t`. Only for scheduled actions.
  Status Write(double t, const std::string& key, Value value = Value(), Value metadata = Value()) {
    RunEvent e{Millis(t), host_s(), key, std::move(value), std::move(metadata)};
    for (RunObserver* o : observers_) PODBENCH_RETURN_IF_ERROR(o->OnEvent(e));
    return Status::Ok();
  }
  // Runs `action` (which writes its lines at `t` through Write) once the
  // timeline reaches `t`; actions due at the same time run in the order
  // they were scheduled.
  void Schedule(double t, std::function<Status()> action) {
    pending_.push_back({t, seq_++, std::move(action)});
  }
  Status FlushUntil(double t) {
    for (;;) {
      auto next = std::min_element(pending_.begin(), pending_.end(), [](const Pending& a, const Pending& b) {
        return a.t < b.t || (a.t == b.t && a.seq < b.seq);
      });
      if (next == pending_.end() || next->t > t) return Status::Ok();
      std::function<Status()> action = std::move(next->action);
      pending_.erase(next);
      PODBENCH_RETURN_IF_ERROR(action());
    }
  }
  template <typename F>
  Status Each(F&& f) {
    for (RunObserver* o : observers_) PODBENCH_RETURN_IF_ERROR(f(o));
    return Status::Ok();
  }

 private:
  struct Pending {
    double t;
    int64_t seq;
    std::function<Status()> action;
  };
  const std::vector<RunObserver*>& observers_;
  double now_;
  std::chrono::steady_clock::time_point host_start_;
  std::vector<Pending> pending_;
  int64_t seq_ = 0;
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

// eval_accuracy's value: the targets' values, in `targets` order, shaped as
// the description says. REQUIRES: description validated (one value per target).
Value EvalAccuracyValue(const workloads::WorkloadDescription& d, const std::vector<double>& values) {
  switch (d.eval_logging.shape) {
    case EvalValueShape::kScalar:
      return Value::Float(values.front());
    case EvalValueShape::kList: {
      Value list = Value::List();
      for (double v : values) list.Append(Value::Float(v));
      return list;
    }
    case EvalValueShape::kDict: {
      Value dict = Value::Dict();
      for (size_t i = 0; i < values.size(); ++i) {
        dict.Set(d.eval_logging.NameOf(d.targets, i), Value::Float(values[i]));
      }
      if (d.eval_logging.dict_key.empty()) return dict;
      Value outer = Value::Dict();
      outer.Set(d.eval_logging.dict_key, std::move(dict));
      return outer;
    }
  }
  return Value();
}

// A workload event as a log line: its value, and its metadata with the run's
// end time under end_time_field when that is set.
struct EventLine {
  std::string key;
  Value value, metadata;
};
Result<EventLine> LineOf(const WorkloadEvent& e, std::optional<double> end_since_start_s) {
  EventLine line{e.key, Value(), Value()};
  PODBENCH_ASSIGN_OR_RETURN(line.value, FromJson(e.value, "event '" + e.key + "' value"));
  PODBENCH_ASSIGN_OR_RETURN(line.metadata, FromJson(e.metadata, "event '" + e.key + "' metadata"));
  if (!e.end_time_field.empty() && end_since_start_s) {
    line.metadata.Set(e.end_time_field, Value::Float(Millis(*end_since_start_s)));
  }
  return line;
}

}  // namespace

Status CheckWorkloadEvent(const EffectiveRunSettings& s, const WorkloadEvent& e) {
  auto bad = [&](const std::string& why) { return Status::Internal("event '" + e.key + "': " + why); };
  if (e.key.empty()) return bad("no key");
  for (char c : e.key) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) {
      return bad("a log key holds only letters, digits and '_'");
    }
  }
  for (std::string_view k : kHarnessKeys) {
    if (e.key == k) return bad("the harness writes this key itself");
  }
  for (const auto& spec : s.workload->HyperparameterSpecs()) {
    if (spec.log && spec.name == e.key) return bad("the harness logs this hyperparameter itself");
  }
  if (!e.metadata.is_object()) return bad("metadata must be a dict");
  for (const char* owned : {"file", "lineno"}) {
    if (e.metadata.contains(owned)) return bad(std::string("metadata '") + owned + "' is the log writer's");
  }
  if (!e.end_time_field.empty() && e.metadata.contains(e.end_time_field)) {
    return bad("metadata '" + e.end_time_field + "' is where the harness writes the run's end time");
  }
  return Status::Ok();
}

Result<RunSummary> RunOnce(const EffectiveRunSettings& s, int index,
                           const std::vector<RunObserver*>& observers) {
  const workloads::WorkloadDescription& d = s.description;
  const bool beside = d.cadence.beside_training;
  const std::string& workload = s.request.workload;
  workloads::RunContext ctx{s.slice, s.system, s.mode, s.base_seed + static_cast<uint64_t>(index), s.hp, d};
  ctx.ranks = s.ranks;
  // Steps reach the observers with the host clock of the emitter below,
  // which exists before the first TrainBlock.
  const Emitter* clock = nullptr;
  int64_t steps_done = 0;
  ctx.on_step = [&observers, &clock, &steps_done, &d](const workloads::StepDone& step) {
    const TrainProgress p{step, d.cadence.max_epochs, ++steps_done, d.global_batch,
                          clock != nullptr ? clock->host_s() : 0.0};
    for (RunObserver* o : observers) o->OnTrainStep(p);
  };
  PODBENCH_ASSIGN_OR_RETURN(std::unique_ptr<workloads::Session> session, s.workload->Start(ctx));

  // Millisecond origin, so :::MLL timestamps read like real ones.
  const double origin =
      std::floor(std::chrono::duration<double>(
                     std::chrono::system_clock::now().time_since_epoch()).count() * 1000) / 1000;
  Emitter em(observers, origin);
  clock = &em;
  RunSummary sum;
  // A workload event, checked, and written at `now` through Emit.
  auto emit_event = [&](const WorkloadEvent& e) -> Status {
    PODBENCH_RETURN_IF_ERROR(CheckWorkloadEvent(s, e).WithContext(workload));
    PODBENCH_ASSIGN_OR_RETURN(EventLine line, LineOf(e, std::nullopt));
    return em.Emit(line.key, std::move(line.value), std::move(line.metadata));
  };

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
  for (const WorkloadEvent& e : d.init_events) PODBENCH_RETURN_IF_ERROR(emit_event(e));
  PODBENCH_ASSIGN_OR_RETURN(double init_s, session->Initialize());
  em.Advance(init_s);
  sum.init_emulated_s = init_s;
  PODBENCH_RETURN_IF_ERROR(em.Emit("init_stop"));
  PODBENCH_RETURN_IF_ERROR(em.Emit("run_start"));
  const double run_start_emulated = em.now();
  const double run_start_host = em.host_s();

  double evaluator_free = run_start_emulated;  // when the last evaluation ends
  std::optional<double> end_emulated, end_host;  // a RunEnd::kWinningModel run's end
  int64_t next_epoch = 1;
  for (int64_t eval_epoch : d.cadence.EvalEpochs()) {
    const int64_t count = eval_epoch - next_epoch + 1;
    if (!beside) {
      PODBENCH_RETURN_IF_ERROR(em.Emit("block_start", Value(), Meta({{"first_epoch_num", Value::Int(next_epoch)},
                                                                     {"epoch_count", Value::Int(count)}})));
    }
    const double train_from = em.host_s();
    PODBENCH_ASSIGN_OR_RETURN(workloads::BlockResult block, session->TrainBlock(next_epoch, count));
    sum.train_host_s += em.host_s() - train_from;
    for (const WorkloadEvent& e : block.events) {
      const std::string where = workload + ": event '" + e.key + "' of the block of epochs " +
                                std::to_string(next_epoch) + " to " + std::to_string(eval_epoch);
      if (e.epoch < next_epoch || e.epoch > eval_epoch) {
        return Status::Internal(where + " names epoch " + std::to_string(e.epoch));
      }
      if (!e.end_time_field.empty()) return Status::Internal(where + " asks for the run's end time");
    }
    const double per_epoch = block.time.total_s() / static_cast<double>(count);
    // An offset into an epoch must lie inside it.
    auto inside = [&](double offset, const std::string& what) -> Status {
      if (offset >= 0 && offset <= per_epoch) return Status::Ok();
      return Status::Internal(workload + ": " + what + " at " + std::to_string(offset) +
                              " s into an epoch of " + std::to_string(per_epoch) + " s");
    };
    if (block.model_saved_offset_s) {
      PODBENCH_RETURN_IF_ERROR(inside(*block.model_saved_offset_s, "the model's save"));
    }
    double last_epoch_start = em.now();
    for (int64_t epoch = next_epoch; epoch <= eval_epoch; ++epoch) {
      auto events_of = [&](bool at_end) -> Status {
        for (const WorkloadEvent& e : block.events) {
          if (e.epoch == epoch && !e.epoch_offset_s && e.at_epoch_end == at_end) {
            PODBENCH_RETURN_IF_ERROR(emit_event(e));
          }
        }
        return Status::Ok();
      };
      // The events at offsets into this epoch, in time order (stable).
      std::vector<const WorkloadEvent*> timed;
      for (const WorkloadEvent& e : block.events) {
        if (e.epoch != epoch || !e.epoch_offset_s) continue;
        PODBENCH_RETURN_IF_ERROR(inside(*e.epoch_offset_s, "event '" + e.key + "'"));
        timed.push_back(&e);
      }
      std::stable_sort(timed.begin(), timed.end(), [](const WorkloadEvent* a, const WorkloadEvent* b) {
        return *a->epoch_offset_s < *b->epoch_offset_s;
      });
      last_epoch_start = em.now();
      PODBENCH_RETURN_IF_ERROR(em.Emit("epoch_start", Value(), Meta({{"epoch_num", Value::Int(epoch)}})));
      PODBENCH_RETURN_IF_ERROR(events_of(false));
      double passed = 0;
      for (const WorkloadEvent* e : timed) {
        em.Advance(*e->epoch_offset_s - passed);
        passed = *e->epoch_offset_s;
        PODBENCH_RETURN_IF_ERROR(emit_event(*e));
      }
      em.Advance(per_epoch - passed);
      PODBENCH_RETURN_IF_ERROR(events_of(true));
      PODBENCH_RETURN_IF_ERROR(em.Emit("epoch_stop", Value(), Meta({{"epoch_num", Value::Int(epoch)}})));
    }
    sum.steps += block.steps;
    sum.train += block.time;
    // The model this evaluation scores exists from here: its save, or the
    // end of the block.
    const double model_emulated =
        block.model_saved_offset_s ? last_epoch_start + *block.model_saved_offset_s : em.now();
    const double model_host = em.host_s();

    // Beside training, the evaluation waits for the evaluator; otherwise
    // training waits for the evaluation. Either starts once the block's
    // lines are written (a save inside the last epoch does not move it).
    const double block_end = em.now();
    const double eval_start = beside ? std::max(block_end, evaluator_free) : block_end;
    em.Schedule(eval_start, [&em, eval_start, eval_epoch] {
      return em.Write(eval_start, "eval_start", Value(), Meta({{"epoch_num", Value::Int(eval_epoch)}}));
    });
    PODBENCH_RETURN_IF_ERROR(em.FlushUntil(em.now()));
    PODBENCH_ASSIGN_OR_RETURN(workloads::EvalResult ev, session->Evaluate(eval_epoch));
    bool all_reached = true;
    std::vector<double> values;
    for (const auto& t : d.targets) {
      auto it = ev.metrics.find(t.metric);
      if (it == ev.metrics.end()) {
        return Status::Internal(workload + " evaluation did not report metric '" + t.metric + "'");
      }
      all_reached = all_reached && t.Reached(it->second);
      values.push_back(it->second);
    }
    const bool ends_here = all_reached && d.run_end == workloads::RunEnd::kWinningModel;
    std::vector<EventLine> eval_lines;
    for (const WorkloadEvent& e : ev.events) {
      PODBENCH_RETURN_IF_ERROR(CheckWorkloadEvent(s, e).WithContext(workload));
      if (!e.end_time_field.empty() && !ends_here) {
        return Status::Internal(workload + ": event '" + e.key +
                                "' asks for the run's end time, which only the evaluation that reaches "
                                "every target of a run timed to its winning model has");
      }
      // As the log's own timestamps give it (the official MiniGo rule compares
      // it with save_model's timestamp minus run_start's).
      PODBENCH_ASSIGN_OR_RETURN(EventLine line, LineOf(e, Millis(model_emulated) - Millis(run_start_emulated)));
      eval_lines.push_back(std::move(line));
    }
    const double eval_end = eval_start + ev.emulated_s;
    evaluator_free = eval_end;
    sum.evaluation_s += ev.emulated_s;
    em.Schedule(eval_end, [&em, &d, eval_end, eval_epoch, values, lines = std::move(eval_lines),
                           accuracy = EvalAccuracyValue(d, values), modelled = ev.modelled,
                           host = em.host_s()]() -> Status {
      const Value epoch_meta = Meta({{"epoch_num", Value::Int(eval_epoch)}});
      PODBENCH_RETURN_IF_ERROR(em.Write(eval_end, "eval_stop", Value(), epoch_meta));
      for (size_t i = 0; i < values.size(); ++i) {
        EvalPoint p{eval_epoch, d.targets[i].metric, values[i], eval_end, host};
        PODBENCH_RETURN_IF_ERROR(em.Each([&](RunObserver* o) { return o->OnEval(p); }));
      }
      // Modelled values (projected mode) say so, and how, in the metadata.
      Value accuracy_meta = epoch_meta;
      if (!modelled.empty()) {
        accuracy_meta.Set("modelled", Value::Bool(true));
        accuracy_meta.Set("model", Value::String(modelled));
      }
      PODBENCH_RETURN_IF_ERROR(em.Write(eval_end, "eval_accuracy", accuracy, accuracy_meta));
      for (const EventLine& line : lines) {
        PODBENCH_RETURN_IF_ERROR(em.Write(eval_end, line.key, line.value, line.metadata));
      }
      return Status::Ok();
    });
    if (!beside) {
      em.AdvanceTo(eval_end);
      PODBENCH_RETURN_IF_ERROR(
          em.Emit("block_stop", Value(), Meta({{"first_epoch_num", Value::Int(next_epoch)}})));
    }
    sum.epochs = eval_epoch;
    next_epoch = eval_epoch + 1;
    PODBENCH_RETURN_IF_ERROR(em.Each(
        [&](RunObserver* o) { return o->OnBlockDone(eval_epoch, d.cadence.max_epochs); }));
    if (all_reached && !block.diverged) {
      sum.success = true;
      if (ends_here) {
        end_emulated = model_emulated;
        end_host = model_host;
      }
      break;
    }
    if (block.diverged) break;  // aborted: training cannot go on
  }
  // run_stop follows the last evaluation, which may still be running beside
  // training.
  em.AdvanceTo(evaluator_free);
  PODBENCH_RETURN_IF_ERROR(em.Emit("run_stop", Value(),
                                   Meta({{"status", Value::String(sum.success ? "success" : "aborted")}})));
  sum.ttt_emulated_s = end_emulated.value_or(em.now()) - run_start_emulated;
  sum.ttt_host_s = end_host.value_or(em.host_s()) - run_start_host;
  if (sum.steps > 0) {
    sum.step_time_s = sum.train.total_s() / static_cast<double>(sum.steps);
    if (sum.step_time_s > 0) sum.throughput = static_cast<double>(d.global_batch) / sum.step_time_s;
  }
  if (s.mode == workloads::Mode::kFunctional) {
    if (auto fp = session->ParameterFingerprint(); fp.ok()) sum.parameter_fingerprint = *fp;
  }
  PODBENCH_RETURN_IF_ERROR(em.Each([&](RunObserver* o) { return o->OnFinish(sum); }));
  return sum;
}

}  // namespace podbench::harness
