// podbench run: run a workload on the emulated pod and write its MLPerf log.
#include <unistd.h>

#include <fstream>
#include <iterator>
#include <memory>
#include <ostream>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "base/hash.h"
#include "base/text.h"
#include "base/version.h"
#include "harness/cli/command.h"
#include "harness/cli/store_util.h"
#include "harness/run/scored_runs.h"
#include "harness/run/settings.h"
#include "kernels/dispatch/dispatch.h"
#include "results/published_v06.h"
#include "results/store.h"
#include "topology/rank_group.h"
#ifdef PODBENCH_HAVE_MPI
#include "topology/mpi_rank_group.h"
#endif

namespace podbench::cli {

namespace {

struct RunCliOptions {
  harness::RunRequest request;
  uint64_t seed = 0;
  OutputFormat format = OutputFormat::kText;
  double rank_timeout_s = 300;
  bool print_fingerprint = false;  // hidden: for the MPI equality tests
};

constexpr char kLaunchHelp[] =
    "Several processes (functional mode): launch with an MPI launcher, e.g.\n"
    "  mpirun -np 4 podbench run transformer --mode functional --preset functional --seed 1\n"
    "and over several machines with a hostfile (one line per machine: `host slots=N`):\n"
    "  mpirun --hostfile hosts -np 8 podbench run ...\n"
    "Every machine needs the same podbench build at the same path, and the same flags\n"
    "(checked at start-up). Each rank trains a contiguous block of the slice's emulated\n"
    "cores; the collectives run between the ranks; the result equals one process.\n"
    "Only rank 0 prints, writes the MLPerf log (--log) and the database (--db, on its\n"
    "machine). A rank that dies stops the job; a rank that does not answer within\n"
    "--rank-timeout seconds fails it, naming the rank.";

// Everything a rank must agree on before it trains: the resolved settings
// (workload, slice, mode, system, hyperparameters, seed as requested, runs,
// the kernel pins of the environment) and the build (a fingerprint of this
// executable's bytes).
std::string SettingsFingerprint(const harness::EffectiveRunSettings& s, const harness::RunRequest& request) {
  std::string text = s.FlagsJson() + "\n" + s.HyperparametersJson() + "\nseed=" +
                     (request.seed ? std::to_string(*request.seed) : "random") + "\nruns=" + std::to_string(s.runs);
  for (const char* env : {"PODBENCH_KERNELS", "PODBENCH_CPU_ISA", "PODBENCH_KERNEL_CACHE"}) {
    const char* v = std::getenv(env);
    text += std::string("\n") + env + "=" + (v != nullptr ? v : "");
  }
  return FingerprintOf(text);
}

std::string BuildFingerprint() {
  std::ifstream exe("/proc/self/exe", std::ios::binary);
  if (!exe) return std::string("version ") + GitHash();
  std::ostringstream bytes;
  bytes << exe.rdbuf();
  return FingerprintOf(bytes.str());
}

// Refuses ranks that disagree with rank 0 (run on every rank, collectively).
Status CheckRanksAgree(topology::RankGroup& ranks, const std::string& settings) {
  const std::string build = BuildFingerprint();
  PODBENCH_ASSIGN_OR_RETURN(std::vector<std::string> all, ranks.AllGather(build + " " + settings));
  const std::string& zero = all[0];
  for (int r = 1; r < ranks.size(); ++r) {
    const std::string& other = all[static_cast<size_t>(r)];
    if (other.substr(0, other.find(' ')) != zero.substr(0, zero.find(' '))) {
      return Status::FailedPrecondition("MPI rank " + std::to_string(r) + " runs a different podbench build (" +
                                        other.substr(0, other.find(' ')) + ", rank 0: " +
                                        zero.substr(0, zero.find(' ')) + "): install the same build on every machine");
    }
    if (other != zero) {
      return Status::FailedPrecondition("MPI rank " + std::to_string(r) +
                                        " has different settings from rank 0 (flags, hyperparameters, seed, runs or "
                                        "PODBENCH_KERNELS/PODBENCH_CPU_ISA/PODBENCH_KERNEL_CACHE): every rank must "
                                        "run the same command in the same environment");
    }
  }
  return Status::Ok();
}

// Every rank's payload bytes sent so far, " b0 b1 ...", gathered (collective).
Result<std::string> SentBytes(topology::RankGroup& ranks) {
  PODBENCH_ASSIGN_OR_RETURN(std::vector<std::string> all, ranks.AllGather(std::to_string(ranks.bytes_sent())));
  std::string line;
  for (const std::string& b : all) line += " " + b;
  return line;
}

// A rank other than 0 trains in step with rank 0 and writes nothing: no
// log, no database, no output.
Status RunAsFollower(const harness::EffectiveRunSettings& s) {
  for (int i = 0; i < s.runs; ++i) PODBENCH_RETURN_IF_ERROR(harness::RunOnce(s, i, {}).status());
  return Status::Ok();
}

bool Execute(const RunCliOptions& opt, CliContext& ctx, const std::shared_ptr<topology::RankGroup>& ranks);

// `podbench run`, under an MPI launcher or not.
void ExecuteLaunched(const RunCliOptions& opt, CliContext& ctx) {
  const int launched = topology::LauncherWorldSize();
  if (launched == 0) {
    (void)Execute(opt, ctx, nullptr);
    return;
  }
#ifndef PODBENCH_HAVE_MPI
  if (launched > 1) {
    return Fail(ctx, "run",
                Status::FailedPrecondition(
                    "started by an MPI launcher as one of " + std::to_string(launched) +
                    " ranks, but this podbench was built without MPI (PODBENCH_MPI=OFF): rebuild with "
                    "-DPODBENCH_MPI=ON, or run it without mpirun"));
  }
  (void)Execute(opt, ctx, nullptr);
#else
  auto group = topology::StartMpi({opt.rank_timeout_s});
  if (!group.ok()) {
    Fail(ctx, "run", group.status());
    topology::AbortMpi(ctx.exit_code);
    return;
  }
  std::shared_ptr<topology::RankGroup> ranks = *group;
  bool alone = false;
  if (ranks->rank() == 0) {
    alone = Execute(opt, ctx, ranks);
  } else {
    // Other ranks write nothing, except why they fail on their own: rank 0
    // sees only that they died.
    std::ostringstream quiet_out, quiet_err;
    CliContext quiet{quiet_out, quiet_err};
    alone = Execute(opt, quiet, ranks);
    ctx.exit_code = quiet.exit_code;
    if (alone && !quiet_err.str().empty()) ctx.err << "MPI rank " << ranks->rank() << ": " << quiet_err.str();
  }
  // A rank that failed on its own may leave the others waiting: end the job.
  if (alone) {
    ctx.err.flush();
    topology::AbortMpi(ctx.exit_code);
  }
  topology::FinishMpi();
#endif
}

// One process's part of `podbench run`: all of it, or (`ranks` of more
// than one process) its rank's. Returns true when it failed on its own
// during training, which may leave other ranks waiting for it; false after
// a success or an error every rank saw.
bool Execute(const RunCliOptions& opt, CliContext& ctx, const std::shared_ptr<topology::RankGroup>& ranks) {
  // The kernels' environment (PODBENCH_KERNELS, PODBENCH_KERNEL_CACHE,
  // PODBENCH_CPU_ISA) is refused here, not silently ignored by a workload.
  const bool many = ranks != nullptr && ranks->size() > 1;
  auto fail = [&](const Status& st, bool alone) {
    Fail(ctx, "run", st);
    return alone;
  };
  // Checks every rank makes; a rank that fails one stops the job (the others
  // would wait for it at the agreement check).
  if (Status st = kernels::dispatch::CheckKernelEnvironment(); !st.ok()) return fail(st, many);
  auto settings = harness::Normalize(opt.request);
  if (!settings.ok()) return fail(settings.status(), many);
  harness::EffectiveRunSettings& s = *settings;
  if (many) {
    if (s.mode != workloads::Mode::kFunctional) {
      return fail(Status::InvalidArgument("--mode " + opt.request.mode + ": only functional runs spread over MPI "
                                          "ranks (run projected mode without mpirun)"),
                  false);
    }
    if (Status st = CheckRanksAgree(*ranks, SettingsFingerprint(s, opt.request)); !st.ok()) return fail(st, false);
    if (!opt.request.seed) {
      // A drawn seed is rank 0's.
      auto seeds = ranks->AllGather(std::to_string(s.base_seed));
      if (!seeds.ok()) return fail(seeds.status(), true);
      s.base_seed = std::stoull((*seeds)[0]);
    }
    s.ranks = ranks;
    if (ranks->rank() != 0) {
      Status st = RunAsFollower(s);
      if (st.ok() && opt.print_fingerprint) st = SentBytes(*ranks).status();
      if (!st.ok()) return fail(st, true);
      return false;
    }
  }
  auto store = results::ResultsStore::Open(s.request.db);
  if (!store.ok()) return fail(store.status(), many);

  const bool text = opt.format == OutputFormat::kText;
  if (text) {
    const uint64_t last_seed = s.base_seed + static_cast<uint64_t>(s.runs) - 1;
    ctx.out << fmt::format("podbench run {} on {} ({} chips), {} mode, {}, {}\n", s.request.workload,
                           s.slice.name, s.slice.chips, workloads::ModeName(s.mode), Plural(s.runs, "run"),
                           s.runs == 1 ? fmt::format("seed {}", s.base_seed)
                                       : fmt::format("seeds {}..{}", s.base_seed, last_seed));
    // Each line reaches a file or pipe as it is printed: a run stopped by a
    // signal leaves what it said (its id) behind, as the store keeps its row.
    ctx.out.flush();
  }
  harness::ScoredSetOptions options;
  // The bar goes to standard error, and only to a terminal (in either format:
  // standard output keeps the text or the one JSON document).
  if (isatty(STDERR_FILENO) == 1) options.progress = &ctx.err;
  nlohmann::json runs_json = nlohmann::json::array();
  std::string check_note;
  options.on_run = [&](const harness::CompletedRun& run) {
    const harness::RunSummary& sum = run.summary;
    if (!run.not_checked_note.empty()) check_note = run.not_checked_note;
    if (text && opt.print_fingerprint) {
      ctx.out << fmt::format("  parameters: {} ({} ranks, {} steps in {:.3f} s host)\n",
                             sum.parameter_fingerprint.empty() ? "none" : sum.parameter_fingerprint,
                             ranks ? ranks->size() : 1, sum.steps, sum.train_host_s);
    }
    if (text) {
      ctx.out << fmt::format(
          "  run {} (id {}, seed {}): {} after {}, {:.3f} min emulated ({:.3f} s host), "
          "step {:.4g} s, log {} ({})\n",
          run.index + 1, run.id, run.seed, run.status, Plural(sum.epochs, "epoch"), sum.ttt_emulated_s / 60,
          sum.ttt_host_s, sum.step_time_s, run.log_path.empty() ? "in memory" : run.log_path,
          run.log_check);
      ctx.out.flush();
    }
    runs_json.push_back({{"id", run.id},
                         {"seed", run.seed},
                         {"status", run.status},
                         {"epochs", sum.epochs},
                         {"ttt_emulated_s", sum.ttt_emulated_s},
                         {"ttt_emulated_min", sum.ttt_emulated_s / 60},
                         {"ttt_host_s", sum.ttt_host_s},
                         {"step_time_s", sum.step_time_s},
                         {"throughput", sum.throughput},
                         {"log", run.log_path},
                         {"log_check", run.log_check}});
  };
  auto set = harness::RunScoredSet(s, **store, options);
  if (!set.ok() && text) return fail(set.status(), many);
  // On an error the JSON summary still lists the runs before it (complete in
  // the store; the failing one stays incomplete with what it logged).
  if (text) {
    const std::optional<double>& score = set->score_min;
    const int scored = static_cast<int>(set->runs.size()) - set->noncompliant;
    if (score) {
      ctx.out << fmt::format("score: {:.3f} min ({} of {} scored {}, {})\n", *score,
                             scored >= 3 ? scored - 2 : scored, scored, PluralNoun(scored, "run"),
                             scored >= 3 ? "fastest and slowest dropped" : "plain mean");
    } else {
      ctx.out << "score: none (" << (scored == 0 ? "no compliant run" : "aborted runs") << ")\n";
    }
    if (!check_note.empty()) ctx.out << "logs not checked: " << check_note << "\n";
    if (const std::string_view why = results::UnpublishedNote(s.description.benchmark); !why.empty()) {
      ctx.out << why << "\n";
    }
    ctx.out << "saved to " << s.request.db << "\n";
  } else {
    nlohmann::json j;
    j["workload"] = s.request.workload;
    j["slice"] = s.slice.name;
    j["chips"] = s.slice.chips;
    j["mode"] = workloads::ModeName(s.mode);
    j["db"] = s.request.db;
    j["runs"] = runs_json;
    j["score_min"] = nullptr;
    if (set.ok() && set->score_min) j["score_min"] = *set->score_min;
    j["logs_checked"] = check_note.empty();
    if (!set.ok()) j["error"] = set.status().message();
    ctx.out << j.dump(2) << "\n";
    if (!set.ok()) return fail(set.status(), many);
  }
  if (many && opt.print_fingerprint) {
    auto bytes = SentBytes(*ranks);
    if (!bytes.ok()) return fail(bytes.status(), true);
    if (text) ctx.out << "  bytes sent per rank:" << *bytes << "\n";
  }
  // 1: a negative verdict (a run aborted, or its log fails the rules).
  ctx.exit_code = set->any_failed() ? kExitVerdict : kExitOk;
  return false;
}

}  // namespace

void AddRunCommand(Command app, CliContext& ctx) {
  Command sub = app.AddSubcommand("run", "Run a workload (functional or projected) and write its MLPerf log");
  auto opt = std::make_shared<RunCliOptions>();
  harness::RunRequest& r = opt->request;
  std::string names;
  for (const auto* w : workloads::AllWorkloads()) {
    names += (names.empty() ? "" : "; ") + w->name() + (w->summary().empty() ? "" : " (" + w->summary() + ")");
  }
  sub.Add("workload", r.workload, "Workload: " + (names.empty() ? "none built" : names))
      .Required();
  sub.Add("--slice", r.slice, "Pod slice tpu-v3-N, N cores from 8 to 2048 (default tpu-v3-8)");
  sub.Add("--mode", r.mode, "functional (real training, default) or projected (cost model)");
  sub.Add("--runs", r.runs, "Number of runs, 1 to 1000 (default: what a scored result needs, 5 or 10)");
  sub.AddFunction("--seed", [opt](uint64_t v) { opt->request.seed = v; },
                  "Base seed; run i uses seed+i (default: random, recorded)");
  sub.Add("--preset", r.preset, "Hyperparameter preset, e.g. google-v0.6");
  sub.Add("--set", r.sets, "Override a hyperparameter: key=value (repeatable)");
  sub.Add("--log", r.log,
          "Write the MLPerf log here (several runs: FILE_0.EXT, FILE_1.EXT, ...)");
  sub.Add("--log-format", r.log_format,
          "Log format: mll (v0.6 :::MLL lines, default) or mllog (v0.7+ :::MLLOG JSON lines)")
      .Choices({"mll", "mllog"});
  sub.Add("--db", r.db, "Results database (SQLite; default podbench.db)");
  sub.Add("--system", r.system, "System description YAML (default: the built-in, calibrated TPU-v3)");
  sub.Add("--label", r.label, "Tag the runs (a run set for `podbench compare`)");
  AddFormatOption(sub, &opt->format);
  sub.Add("--rank-timeout", opt->rank_timeout_s,
          "Under mpirun: seconds a rank waits for another in a collective before the job fails naming "
          "it (default 300; 0 = forever)")
      .NonNegative();
  sub.AddFlag("--print-parameter-fingerprint", opt->print_fingerprint,
              "Print a fingerprint of the parameters after each run (tests)")
      .Hidden();
  sub.Footer(kLaunchHelp);
  sub.Callback([opt, &ctx] { ExecuteLaunched(*opt, ctx); });
}

}  // namespace podbench::cli
