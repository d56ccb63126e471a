// Accepted means honoured, for every logged hyperparameter of every workload
// in every mode: changing it either changes what runs (the emulated costs,
// the steps, the trained model's accuracy, the layout) or is refused with the
// rule that fixes it. And every numeric hyperparameter has bounds, at both of
// which the arithmetic stays defined (this test runs under UBSan in CI).
//
// A new workload or mode must add a fast base configuration below; the walk
// then covers its hyperparameters without further code.
#include <cmath>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "harness/run/settings.h"
#include "workloads/registry.h"
#include "workloads/workload.h"

namespace podbench::workloads {
namespace {

using ::testing::HasSubstr;

// A configuration of one workload and mode that runs in about a second.
struct Base {
  std::string workload;
  Mode mode;
  std::string slice, preset;
  std::vector<std::string> sets;
  int64_t epochs;  // trained before the evaluation each probe makes
};

std::vector<Base> Bases() {
  return {
      {"toy", Mode::kFunctional, "tpu-v3-8", "", {}, 2},
      {"toy", Mode::kProjected, "tpu-v3-32", "", {}, 2},
      {"resnet", Mode::kFunctional, "tpu-v3-8", "functional",
       {"functional_train_examples=512", "functional_eval_examples=256", "global_batch_size=64", "model_bn_span=16"},
       2},
      {"resnet", Mode::kProjected, "tpu-v3-32", "google-v0.6", {}, 4},
      // A tiny Transformer on a tiny corpus: an untrained model, whose BLEU
      // may not move with a small change to its training, but whose mean
      // training loss over the block does.
      {"transformer", Mode::kFunctional, "tpu-v3-8", "functional",
       {"functional_train_sentences=1024", "functional_eval_sentences=16", "functional_hidden=16",
        "functional_heads=2", "functional_filter=32", "functional_layers=1", "functional_vocab_size=96",
        "max_sequence_length=48", "global_batch_size=16",
        "opt_learning_rate_warmup_steps=20"},
       1},
      {"transformer", Mode::kProjected, "tpu-v3-32", "google-v0.6", {}, 1},
      // A tiny GNMT on a tiny corpus, its four halvings inside the block's
      // 32 steps so that every schedule key moves the mean training loss.
      {"gnmt", Mode::kFunctional, "tpu-v3-8", "functional",
       {"functional_train_sentences=512", "functional_eval_sentences=8", "functional_hidden=8",
        "functional_vocab_size=96", "global_batch_size=16", "opt_learning_rate_warmup_steps=8",
        "opt_learning_rate_remain_steps=12", "opt_learning_rate_decay_interval=2"},
       1},
      {"gnmt", Mode::kProjected, "tpu-v3-1024", "google-v0.6", {}, 1},
      {"maskrcnn", Mode::kProjected, "tpu-v3-32", "google-v0.6", {}, 1},
      // A tiny Mask R-CNN on 64x64 images: one epoch of 4 steps, so the
      // warmup's second rate (step 1) reaches the loss of step 2.
      {"maskrcnn", Mode::kFunctional, "tpu-v3-8", "functional",
       {"functional_image_size=64", "functional_spread_area_ranges=false", "functional_width=2",
        "functional_fpn_channels=4", "functional_classes=2", "functional_train_examples=32",
        "functional_eval_examples=4"},
       1},
      // A tiny SSD on a few 32x32 images, one training epoch of 4 steps.
      {"ssd", Mode::kFunctional, "tpu-v3-8", "functional",
       {"functional_image_size=32", "functional_width=4", "functional_classes=2", "functional_train_examples=32",
        "functional_eval_examples=8", "global_batch_size=8", "model_bn_span=8"},
       1},
      {"ssd", Mode::kProjected, "tpu-v3-32", "google-v0.6", {}, 33},
      {"minigo", Mode::kProjected, "tpu-v3-32", "nvidia-v0.6", {}, 1},
      // A tiny MiniGo loop: a 1-block network, 8 games at 4 readouts, the
      // learning-rate boundaries inside generation 1's 4 steps (global steps
      // 2 to 6), so every logged key moves the loss or the emulated costs.
      {"minigo", Mode::kFunctional, "tpu-v3-8", "functional",
       {"games_per_generation=8", "parallel_games=2", "num_readouts=4", "virtual_losses=2", "gating_games=2",
        "functional_target_games=2", "functional_bootstrap_games=4", "functional_bootstrap_readouts=2",
        "functional_checkpoint_steps=2", "functional_target_generations=0", "functional_steps_per_generation=4",
        "global_batch_size=8", "functional_conv_width=8", "functional_trunk_layers=1", "functional_fc_width=16",
        "opt_learning_rate_decay_boundary_steps=3,5", "learning_rates=0.05,0.01,0.002",
        "functional_cache_dir="},
       1},
  };
}

std::string Name(const Base& b) { return b.workload + "_" + ModeName(b.mode); }

// What one configuration does: refused (with the message), or what its
// first block and evaluation did, as named numbers.
struct Probe {
  bool refused = false;
  std::string message;
  std::map<std::string, double> did;
};

// One run of `b` with `extra` --set items, seed 7.
harness::RunRequest RequestOf(const Base& b, const std::vector<std::string>& extra = {}) {
  harness::RunRequest req;
  req.workload = b.workload;
  req.mode = ModeName(b.mode);
  req.slice = b.slice;
  req.preset = b.preset;
  req.sets = b.sets;
  req.sets.insert(req.sets.end(), extra.begin(), extra.end());
  req.runs = 1;
  req.seed = 7;
  return req;
}

Probe RunProbe(const Base& b, const std::vector<std::string>& extra) {
  Probe p;
  auto s = harness::Normalize(RequestOf(b, extra));
  if (!s.ok()) {
    p.refused = true;
    p.message = s.status().message();
    EXPECT_EQ(s.status().code(), Status::Code::kInvalidArgument) << p.message;
    return p;
  }
  RunContext ctx{s->slice, s->system, s->mode, s->base_seed, s->hp, s->description};
  auto session = s->workload->Start(ctx);
  EXPECT_TRUE(session.ok()) << session.status().ToString();
  if (!session.ok()) return p;
  auto init = (*session)->Initialize();
  if (!init.ok() && init.status().code() == Status::Code::kInvalidArgument) {
    // Refused when the data is made (e.g. the Transformer's packed rows
    // cannot fill a batch): the caller checks that the message names it.
    p.refused = true;
    p.message = init.status().message();
    return p;
  }
  EXPECT_TRUE(init.ok()) << init.status().ToString();
  auto block = init.ok() ? (*session)->TrainBlock(1, b.epochs) : Result<BlockResult>(init.status());
  EXPECT_TRUE(block.ok()) << block.status().ToString();
  auto eval = block.ok() ? (*session)->Evaluate(b.epochs) : Result<EvalResult>(block.status());
  EXPECT_TRUE(eval.ok()) << eval.status().ToString();
  if (!eval.ok()) return p;
  p.did = {{"init_s", *init},
           {"steps", static_cast<double>(block->steps)},
           {"mxu_s", block->time.mxu_s},
           {"vector_s", block->time.vector_s},
           {"hbm_s", block->time.hbm_s},
           {"collectives_s", block->time.collectives_s},
           {"halo_s", block->time.halo_s},
           {"bn_sync_s", block->time.bn_sync_s},
           {"optimizer_s", block->time.optimizer_s},
           {"input_s", block->time.input_s},
           {"idle_s", block->time.idle_s},
           {"diverged", block->diverged ? 1.0 : 0.0},
           {"mean_loss", std::isnan(block->mean_loss) ? -1.0 : block->mean_loss},
           {"eval_s", eval->emulated_s},
           {"global_batch", static_cast<double>(s->description.global_batch)},
           {"bn_group", static_cast<double>(s->description.parallelism.bn_group)},
           {"weight_update_sharding", s->description.parallelism.weight_update_sharding ? 1.0 : 0.0}};
  for (const auto& [metric, v] : eval->metrics) p.did["eval " + metric] = v;
  for (const auto& [name, v] : p.did) EXPECT_FALSE(std::isnan(v)) << name;
  return p;
}

// What differs between two probes, by name.
std::string Differences(const Probe& a, const Probe& b) {
  std::string out;
  for (const auto& [name, v] : a.did) {
    auto it = b.did.find(name);
    if (it == b.did.end() || it->second != v) out += (out.empty() ? "" : ", ") + name;
  }
  return out;
}

std::string Num(double v, bool integral) {
  if (integral) return std::to_string(static_cast<int64_t>(v));
  std::ostringstream s;
  s.precision(17);
  s << v;
  return s.str();
}

// Other values to try for `spec`, currently `current`: the bounds first
// (they also probe the arithmetic there), then nearby values.
std::vector<std::string> Candidates(const HyperparameterSpec& spec, const HpValue& current) {
  std::vector<std::string> out;
  const std::string now = HpToString(current);
  auto add = [&](const std::string& v) {
    if (v != now && std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
  };
  // A number is another value only when it differs as a number ("0.9" and
  // "0.90000000000000002" are the same double).
  auto add_number = [&](double c, bool integral) {
    const double v = integral ? static_cast<double>(std::get<int64_t>(current)) : std::get<double>(current);
    if (c != v) add(Num(c, integral));
  };
  if (const auto* b = std::get_if<bool>(&current)) {
    add(*b ? "false" : "true");
  } else if (const auto* str = std::get_if<std::string>(&current)) {
    if (spec.int_list) {
      const int64_t lo = static_cast<int64_t>(spec.min.value_or(1));
      add(std::to_string(lo));
      add(std::to_string(lo) + "," + std::to_string(lo + 1));
    }
    for (const auto& c : spec.choices) add(c);
    if (!spec.int_list && spec.choices.empty()) add(*str + "-other");
  } else {
    const bool integral = std::holds_alternative<int64_t>(current);
    const double v = integral ? static_cast<double>(std::get<int64_t>(current)) : std::get<double>(current);
    if (spec.max) add_number(*spec.max, integral);
    if (spec.min) add_number(*spec.min, integral);
    for (double c : {v * 2, integral ? std::floor(v / 2) : v / 2, v + 1, v == 0 ? 1.0 : v * 10}) {
      if ((!spec.min || c >= *spec.min) && (!spec.max || c <= *spec.max)) add_number(c, integral);
    }
  }
  return out;
}

class WalkTest : public ::testing::TestWithParam<Base> {};

TEST(WalkBasesTest, EveryWorkloadAndModeHasABase) {
  const auto bases = Bases();
  for (const ModelRegistration* r : AllWorkloads()) {
    for (Mode m : {Mode::kFunctional, Mode::kProjected}) {
      if (!r->Supports(m)) continue;
      const bool covered = std::any_of(bases.begin(), bases.end(), [&](const Base& b) {
        return b.workload == r->name() && b.mode == m;
      });
      EXPECT_TRUE(covered) << r->name() << " " << ModeName(m)
                           << ": add a fast base configuration to hyperparameter_walk_test.cc";
    }
  }
}

TEST_P(WalkTest, EveryLoggedHyperparameterChangesWhatRunsOrIsRefused) {
  const Base& base = GetParam();
  const Probe baseline = RunProbe(base, {});
  ASSERT_FALSE(baseline.refused) << baseline.message;
  auto workload = FindWorkload(base.workload)->Create();
  const auto settings = harness::Normalize(RequestOf(base));
  ASSERT_TRUE(settings.ok());
  for (const HyperparameterSpec& spec : workload->HyperparameterSpecs()) {
    if (!spec.log) continue;
    Base b = base;
    Probe reference = baseline;
    HpValue current = settings->hp.values().at(spec.name);
    std::string under;
    if (!settings->hp.Applies(spec)) {
      // Logged only with another choice (the lars_* keys with lars, the
      // decay boundaries with sgd): walk it under that choice.
      under = spec.only_when->name + "=" + HpToString(spec.only_when->value);
      b.sets.push_back(under);
      reference = RunProbe(b, {});
      if (reference.refused) {
        std::cout << "[walk] " << Name(base) << " " << spec.name << ": refused (needs " << under
                  << "): " << reference.message << "\n";
        continue;
      }
      current = spec.default_value;
      under = " (with " + under + ")";
    }
    std::string verdict, refusals;
    for (const std::string& value : Candidates(spec, current)) {
      const std::string item = spec.name + "=" + value;
      const Probe p = RunProbe(b, {item});
      if (p.refused) {
        refusals += "\n    " + item + ": " + p.message;
        continue;
      }
      const std::string changed = Differences(reference, p);
      EXPECT_FALSE(changed.empty()) << Name(base) << ": --set " << item << under
                                    << " is accepted and logged but changes nothing that runs";
      verdict = "changes " + changed + " (" + item + ")";
      break;
    }
    if (verdict.empty()) {
      // Every other value is refused: the message must say which rule fixes it.
      EXPECT_THAT(refusals, HasSubstr(spec.name)) << Name(base) << " " << spec.name;
      verdict = "every other value refused:" + refusals;
    }
    std::cout << "[walk] " << Name(base) << " " << spec.name << under << ": " << verdict << "\n";
  }
}

// Both bounds of every numeric hyperparameter: declared, and either refused
// or run without undefined arithmetic (projected runs price a block at the
// bound; functional runs are normalised, their memory estimated, not trained:
// at the maxima of their sizes that would take hours).
TEST_P(WalkTest, EveryNumericHyperparameterIsBoundedAndDefinedAtItsBounds) {
  const Base& base = GetParam();
  auto workload = FindWorkload(base.workload)->Create();
  for (const HyperparameterSpec& spec : workload->HyperparameterSpecs()) {
    const bool numeric = std::holds_alternative<int64_t>(spec.default_value) ||
                         std::holds_alternative<double>(spec.default_value) || spec.int_list;
    if (!numeric || !spec.tunable) continue;
    ASSERT_TRUE(spec.min.has_value() && spec.max.has_value()) << base.workload << " " << spec.name << " needs both bounds";
    const bool integral = !std::holds_alternative<double>(spec.default_value);
    for (double bound : {*spec.min, *spec.max}) {
      const std::string item = spec.name + "=" + Num(bound, integral);
      if (base.mode == Mode::kProjected) {
        (void)RunProbe(base, {item});  // refused, or priced with every number defined
      } else {
        auto s = harness::Normalize(RequestOf(base, {item}));
        if (!s.ok()) {
          EXPECT_EQ(s.status().code(), Status::Code::kInvalidArgument) << s.status().ToString();
        }
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Workloads, WalkTest, ::testing::ValuesIn(Bases()),
                         [](const ::testing::TestParamInfo<Base>& p) { return Name(p.param); });

}  // namespace
}  // namespace podbench::workloads
