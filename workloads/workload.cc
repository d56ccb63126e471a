#include "workloads/workload.h"

#include <algorithm>
#include <array>
#include <cassert>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <sstream>
#include <utility>

#include "base/text.h"

namespace podbench::workloads {

const char* ModeName(Mode m) { return m == Mode::kFunctional ? "functional" : "projected"; }

std::string HpToString(const HpValue& v) {
  struct Visitor {
    std::string operator()(int64_t i) const { return std::to_string(i); }
    std::string operator()(double d) const {
      std::ostringstream s;
      s << d;
      return s.str();
    }
    std::string operator()(bool b) const { return b ? "true" : "false"; }
    std::string operator()(const std::string& s) const { return s; }
  };
  return std::visit(Visitor{}, v);
}

const HpValue& Hyperparameters::Get(const std::string& name) const {
  auto it = values_.find(name);
  assert(it != values_.end() && "undeclared hyperparameter");
  return it->second;
}
int64_t Hyperparameters::Int(const std::string& name) const { return std::get<int64_t>(Get(name)); }
double Hyperparameters::Float(const std::string& name) const {
  const HpValue& v = Get(name);
  if (const auto* i = std::get_if<int64_t>(&v)) return static_cast<double>(*i);
  return std::get<double>(v);
}
bool Hyperparameters::Applies(const HyperparameterSpec& spec) const {
  if (!spec.only_when) return true;
  auto it = values_.find(spec.only_when->name);
  return it != values_.end() && it->second == spec.only_when->value;
}

HyperparameterSpec Spec(std::string name, HpValue def, std::string help) {
  HyperparameterSpec s;
  s.name = std::move(name);
  s.default_value = std::move(def);
  s.help = std::move(help);
  return s;
}

HyperparameterSpec& AddUnlogged(std::vector<HyperparameterSpec>& specs, HyperparameterSpec spec) {
  spec.log = false;
  return specs.emplace_back(std::move(spec));
}

HyperparameterSpec& AddUnloggedInt(std::vector<HyperparameterSpec>& specs, std::string name, int64_t def, double lo,
                                   double hi, std::string help) {
  HyperparameterSpec& s = AddUnlogged(specs, Spec(std::move(name), def, std::move(help)));
  s.min = lo;
  s.max = hi;
  return s;
}

void AddEvalAblations(std::vector<HyperparameterSpec>& specs, std::string_view each_replica) {
  AddUnlogged(specs, Spec("projected_eval", true,
                          "projected mode: price the evaluations (false: an ablation, evaluation taken as free)"));
  AddUnlogged(specs, Spec("distributed_eval", true,
                          "projected mode: " + std::string(each_replica) +
                              " (false: an ablation, only one host's cores do while the others wait)"));
}

Status CheckPublishedSchedule(const Hyperparameters& hp, int64_t batch, std::string_view source,
                              std::string_view batches, const std::vector<PublishedSchedule>& schedules) {
  const std::string tail =
      " (--preset google-v0.6 sets Google's, --mode functional trains any)";
  if (schedules.empty()) {
    return Status::InvalidArgument("global_batch_size " + std::to_string(batch) + ": projected mode takes " +
                                   std::string(source) + ", which used global batches of " + std::string(batches) +
                                   "; there is no convergence to project at another batch" + tail);
  }
  std::string options, mismatch;
  for (const PublishedSchedule& schedule : schedules) {
    std::string first, these;
    for (const auto& [name, want] : schedule) {
      const HpValue& got = hp.values().at(name);
      const bool same = std::holds_alternative<double>(want)
                            ? std::abs(hp.Float(name) - std::get<double>(want)) <= 1e-9 * std::abs(std::get<double>(want))
                            : got == want;
      if (!same && first.empty()) first = name + " " + HpToString(got);
      these += " --set " + name + "=" + HpToString(want);
    }
    if (first.empty()) return Status::Ok();
    if (mismatch.empty()) mismatch = first;
    if (options.find(these) == std::string::npos) options += (options.empty() ? "" : " or") + these;
  }
  return Status::InvalidArgument(mismatch + ": projected mode takes " + std::string(source) + " at global batch " +
                                 std::to_string(batch) + ", which used" + options +
                                 "; another schedule has no convergence to project" + tail);
}

Result<std::vector<int64_t>> ParseIntList(const std::string& name, const std::string& text) {
  std::vector<int64_t> out;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t comma = text.find(',', pos);
    if (comma == std::string::npos) comma = text.size();
    int64_t v = 0;
    const char* b = text.data() + pos;
    const char* e = text.data() + comma;
    auto [p, ec] = std::from_chars(b, e, v);
    if (b == e || ec != std::errc() || p != e) {
      return Status::InvalidArgument(name + " '" + text + "': expected comma-separated integers, e.g. 30,60,80");
    }
    if (!out.empty() && v <= out.back()) {
      return Status::InvalidArgument(name + " '" + text + "': the integers must be strictly ascending");
    }
    out.push_back(v);
    pos = comma + 1;
  }
  return out;
}

bool Hyperparameters::Bool(const std::string& name) const { return std::get<bool>(Get(name)); }
const std::string& Hyperparameters::String(const std::string& name) const {
  return std::get<std::string>(Get(name));
}

std::vector<int64_t> EvalCadence::EvalEpochs() const {
  std::vector<int64_t> out;
  if (!at_epochs.empty()) {
    for (int64_t e : at_epochs) {
      if (e >= 1 && e <= max_epochs) out.push_back(e);
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
  }
  assert(every >= 1 && first >= 1);
  for (int64_t e = first; e <= max_epochs; e += every) out.push_back(e);
  return out;
}

Status WorkloadDescription::Validate(const SliceInfo& slice) const {
  auto bad = [](const std::string& what) { return Status::InvalidArgument(what); };
  if (benchmark.empty()) return bad("benchmark: no v0.6 benchmark name");
  if (global_batch < 1) return bad("global_batch " + std::to_string(global_batch) + " must be >= 1");
  if (targets.empty()) return bad("targets: no quality target");
  const bool dict = eval_logging.shape == EvalValueShape::kDict;
  if (!dict && (!eval_logging.dict_key.empty() || !eval_logging.names.empty())) {
    return bad("eval_logging: names and dict_key are for the dict shape only");
  }
  if (!eval_logging.names.empty() && eval_logging.names.size() != targets.size()) {
    return bad("eval_logging: " + std::to_string(eval_logging.names.size()) + " names for " +
               std::to_string(targets.size()) + " targets");
  }
  for (size_t i = 0; i < targets.size(); ++i) {
    if (targets[i].metric.empty()) return bad("targets[" + std::to_string(i) + "]: no metric name");
    for (size_t j = 0; j < i; ++j) {
      if (targets[j].metric == targets[i].metric) return bad("targets: metric '" + targets[i].metric + "' twice");
      if (dict && eval_logging.NameOf(targets, j) == eval_logging.NameOf(targets, i)) {
        return bad("eval_logging: two targets are logged as '" + eval_logging.NameOf(targets, i) + "'");
      }
    }
  }
  if (eval_logging.shape == EvalValueShape::kScalar && targets.size() != 1) {
    return bad("eval_logging: a scalar eval_accuracy holds one target, not " + std::to_string(targets.size()) +
               " (log them as a list or a dict)");
  }
  if (cadence.every < 1 || cadence.first < 1) {
    return bad("cadence: every " + std::to_string(cadence.every) + " and first " + std::to_string(cadence.first) +
               " must be >= 1");
  }
  if (cadence.EvalEpochs().empty()) {
    return bad("no evaluation happens within max_epochs " + std::to_string(cadence.max_epochs));
  }
  return parallelism.Validate(slice.cores);
}

namespace {
// The member that holds each projection category, indexed by Category.
constexpr std::array<double TimeBreakdown::*, projection::kNumCategories> kCategoryMember = {
    &TimeBreakdown::mxu_s,         &TimeBreakdown::vector_s, &TimeBreakdown::hbm_s,
    &TimeBreakdown::collectives_s, &TimeBreakdown::halo_s,   &TimeBreakdown::bn_sync_s,
    &TimeBreakdown::optimizer_s,   &TimeBreakdown::input_s,  &TimeBreakdown::idle_s};
static_assert(static_cast<size_t>(projection::Category::kGradients) == 3 &&
                  static_cast<size_t>(projection::Category::kIdle) == 8,
              "kCategoryMember follows projection::Category's order");
}  // namespace

TimeBreakdown& TimeBreakdown::operator+=(const TimeBreakdown& o) {
  mxu_s += o.mxu_s;
  vector_s += o.vector_s;
  hbm_s += o.hbm_s;
  collectives_s += o.collectives_s;
  halo_s += o.halo_s;
  bn_sync_s += o.bn_sync_s;
  optimizer_s += o.optimizer_s;
  input_s += o.input_s;
  idle_s += o.idle_s;
  return *this;
}

TimeBreakdown TimeBreakdown::Of(const projection::CategoryTimes& step, double steps) {
  TimeBreakdown t;
  for (projection::Category c : projection::AllCategories()) {
    t.*kCategoryMember[static_cast<size_t>(c)] = steps * step[c];
  }
  return t;
}

projection::CategoryTimes TimeBreakdown::PerStep(double steps) const {
  projection::CategoryTimes step;
  for (projection::Category c : projection::AllCategories()) {
    step[c] = this->*kCategoryMember[static_cast<size_t>(c)] / steps;
  }
  return step;
}

Result<std::map<std::string, HpValue>> Workload::Preset(std::string_view preset,
                                                        const SliceInfo&) const {
  return Status::NotFound("unknown preset '" + std::string(preset) + "'");
}

Status Workload::Validate(const Hyperparameters&, const SliceInfo&, Mode) const {
  return Status::Ok();
}

Result<projection::StepSpec> Workload::ProjectedStep(const Hyperparameters&, const SliceInfo&) const {
  return Status::Unimplemented("this workload has no projected mode");
}

Result<projection::RunPlan> Workload::ProjectedPlan(const Hyperparameters&, const SliceInfo&) const {
  return Status::Unimplemented("this workload has no projected mode");
}

namespace {

// Parses `text` into the type of `like`; false when it does not parse whole.
bool ParseAs(const HpValue& like, const std::string& text, HpValue* out) {
  const char* b = text.data();
  const char* e = text.data() + text.size();
  if (std::holds_alternative<int64_t>(like)) {
    int64_t i = 0;
    auto [p, ec] = std::from_chars(b, e, i);
    if (ec != std::errc() || p != e) return false;
    *out = i;
  } else if (std::holds_alternative<double>(like)) {
    if (text.empty()) return false;
    char* end = nullptr;
    double d = std::strtod(text.c_str(), &end);
    if (end != text.c_str() + text.size() || !std::isfinite(d)) return false;
    *out = d;
  } else if (std::holds_alternative<bool>(like)) {
    if (text == "true" || text == "1") *out = true;
    else if (text == "false" || text == "0") *out = false;
    else return false;
  } else {
    *out = text;
  }
  return true;
}

const char* TypeName(const HpValue& v) {
  return std::holds_alternative<int64_t>(v) ? "an integer"
         : std::holds_alternative<double>(v) ? "a number"
         : std::holds_alternative<bool>(v)   ? "true or false"
                                             : "a string";
}

// A numeric bound as users type it: integral values without an exponent.
std::string Bound(double b) {
  if (b == std::trunc(b) && std::fabs(b) < 9e15) return std::to_string(static_cast<int64_t>(b));
  return HpToString(b);
}

Status CheckValue(const HyperparameterSpec& spec, const HpValue& v, const std::string& where) {
  auto refuse = [&](const std::string& why) {
    std::string msg = where + ": " + spec.name + " " + why;
    if (!spec.rule.empty()) msg += " (" + spec.rule + ")";
    return Status::InvalidArgument(msg);
  };
  if (!spec.tunable && v != spec.default_value) {
    return refuse("is fixed to " + HpToString(spec.default_value) +
                  " in the v0.6 closed division");
  }
  double num = 0;
  bool numeric = true;
  if (const auto* i = std::get_if<int64_t>(&v)) num = static_cast<double>(*i);
  else if (const auto* d = std::get_if<double>(&v)) num = *d;
  else numeric = false;
  if (numeric && spec.min && num < *spec.min) {
    return refuse("must be >= " + Bound(*spec.min) + ", got " + HpToString(v));
  }
  if (numeric && spec.max && num > *spec.max) {
    return refuse("must be <= " + Bound(*spec.max) + ", got " + HpToString(v));
  }
  if (const auto* s = std::get_if<std::string>(&v); s && spec.int_list) {
    auto list = ParseIntList(spec.name, *s);
    if (!list.ok()) return Status::InvalidArgument(where + ": " + list.status().message());
    for (int64_t x : *list) {
      if ((spec.min && static_cast<double>(x) < *spec.min) || (spec.max && static_cast<double>(x) > *spec.max)) {
        return refuse("entries must lie in [" + Bound(spec.min.value_or(0)) + ", " + Bound(spec.max.value_or(0)) +
                      "], got " + std::to_string(x));
      }
    }
  }
  if (const auto* s = std::get_if<std::string>(&v); s && !spec.choices.empty()) {
    if (std::find(spec.choices.begin(), spec.choices.end(), *s) == spec.choices.end()) {
      return refuse("must be one of " + JoinNames(spec.choices) + ", got '" + *s + "'");
    }
  }
  return Status::Ok();
}

}  // namespace

Result<Hyperparameters> ResolveHyperparameters(const std::vector<HyperparameterSpec>& specs,
                                               const std::map<std::string, HpValue>& preset,
                                               const std::vector<std::string>& overrides,
                                               const std::string& workload) {
  std::map<std::string, HpValue> values;
  auto find = [&](const std::string& name) -> const HyperparameterSpec* {
    for (const auto& s : specs) {
      if (s.name == name) return &s;
    }
    return nullptr;
  };
  // The names, then one line per hyperparameter that has a help text.
  auto known = [&] {
    std::string list, help;
    for (const auto& s : specs) {
      list += (list.empty() ? "" : ", ") + s.name;
      if (!s.help.empty()) help += "\n  " + s.name + ": " + s.help;
    }
    return list + ")" + help;
  };
  for (const auto& s : specs) values[s.name] = s.default_value;
  for (const auto& [name, v] : preset) {
    const HyperparameterSpec* spec = find(name);
    if (spec == nullptr || spec->default_value.index() != v.index()) {
      return Status::Internal("preset of " + workload + " sets undeclared or mistyped '" + name + "'");
    }
    PODBENCH_RETURN_IF_ERROR(CheckValue(*spec, v, "preset"));
    values[name] = v;
  }
  std::map<std::string, std::string> set_by_user;  // name -> the --set item
  for (const std::string& item : overrides) {
    size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0) {
      return Status::InvalidArgument("--set " + item + ": expected key=value");
    }
    std::string name = item.substr(0, eq), text = item.substr(eq + 1);
    const HyperparameterSpec* spec = find(name);
    if (spec == nullptr) {
      return Status::InvalidArgument("--set " + item + ": " + workload +
                                     " has no hyperparameter '" + name + "' (known: " + known());
    }
    HpValue v;
    if (!ParseAs(spec->default_value, text, &v)) {
      return Status::InvalidArgument("--set " + item + ": " + name + " must be " +
                                     TypeName(spec->default_value) + ", got '" + text + "'");
    }
    PODBENCH_RETURN_IF_ERROR(CheckValue(*spec, v, "--set " + item));
    values[name] = v;
    set_by_user[name] = item;
  }
  // Hyperparameters of a choice not taken: a --set of one is refused, a
  // preset's value is dropped (presets set every optimizer's values).
  Hyperparameters resolved(values);
  for (const auto& spec : specs) {
    if (resolved.Applies(spec)) continue;
    auto user = set_by_user.find(spec.name);
    if (user != set_by_user.end()) {
      return Status::InvalidArgument("--set " + user->second + ": " + spec.name + " applies only with " +
                                     spec.only_when->name + "=" + HpToString(spec.only_when->value) +
                                     " (" + spec.only_when->name + " is " +
                                     HpToString(values.at(spec.only_when->name)) + ")" +
                                     (spec.rule.empty() ? "" : " (" + spec.rule + ")"));
    }
    values[spec.name] = spec.default_value;
  }
  return Hyperparameters(std::move(values));
}

}  // namespace podbench::workloads
