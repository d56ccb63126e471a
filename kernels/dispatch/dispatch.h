// Dispatch by measurement: per op family (fp32 GEMM, bf16-MXU GEMM, fp32 and
// bf16-MXU convolution), the variants that can run a problem compete in a
// short measurement the first time a problem of that class is seen, and the
// winner runs it from then on. Rankings are kept for the process and in a
// cache file per CPU and build (kernels/dispatch/dispatch_cache.h), so later
// processes start with them.
//
// A problem class is the family plus a few sizes, bucketed by the family's
// caller (GEMM: m, n, k rounded up to powers of two, operand layouts,
// threads; convolution: pass, window, stride, padding, channels, output
// positions, threads). It is measured at the first problem of the class.
//
// Environment (read once; see CheckKernelEnvironment for errors):
//   PODBENCH_KERNELS=family=variant[,family=variant...]  forces a variant per
//     family (families: gemm_f32, gemm_bf16, conv_f32, conv_bf16; variants:
//     the names of gemm_manifest.inc / conv_manifest.inc). A forced variant that
//     cannot run a problem (CPU without its ISA, or oneDNN without an
//     implementation there) leaves that problem to measurement.
//   PODBENCH_KERNEL_CACHE=DIR|off  where the cache file lives (default
//     $XDG_CACHE_HOME/podbench, else $HOME/.cache/podbench); off: measure in
//     every process and keep rankings in memory only.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "base/status.h"

namespace podbench::kernels::dispatch {

enum class Family { kGemmF32, kGemmBf16, kConvF32, kConvBf16 };
inline constexpr Family kFamilies[] = {Family::kGemmF32, Family::kGemmBf16, Family::kConvF32, Family::kConvBf16};

// "gemm_f32", "gemm_bf16", "conv_f32", "conv_bf16".
const char* FamilyName(Family f);

// A problem class. `text` names it in the cache file and in reports
// ("m512.n512.k512.nn.t1"): no whitespace.
struct ProblemClass {
  Family family = Family::kGemmF32;
  std::string text;
  // The threads the problem runs on. With 1, contenders are timed by the
  // calling thread's CPU time (every variant then runs on that thread), which
  // a busy machine does not stretch; with more, by wall time.
  int threads = 1;
  bool operator==(const ProblemClass& o) const { return family == o.family && text == o.text; }
};

// Rounds up to a power of two above 16 (exact at and below): the bucket of a size.
std::int64_t Bucket(std::int64_t v);

struct Candidate {
  const char* name;
  bool reference = false;  // competes only when no other candidate can run
};

// How a class was decided.
struct Ranking {
  enum class Source { kForced, kMeasured, kCached, kOnly };
  Source source = Source::kMeasured;
  // Contenders with their best time in seconds, fastest first (one entry,
  // time 0, when forced or when only one could run).
  std::vector<std::pair<std::string, double>> seconds;
};
const char* SourceName(Ranking::Source s);  // "forced", "measured", "cached", "only one"

// A non-owning reference to a callable, for the per-call hooks of Choose.
template <typename Sig>
class FunctionRef;
template <typename R, typename... Args>
class FunctionRef<R(Args...)> {
 public:
  template <typename F>
    requires(!std::is_same_v<std::decay_t<F>, FunctionRef>)
  FunctionRef(F&& f)  // NOLINT: implicit by design; f must outlive the call it is passed to
      : obj_(const_cast<void*>(static_cast<const void*>(std::addressof(f)))),
        call_([](void* o, Args... a) -> R { return (*static_cast<std::remove_reference_t<F>*>(o))(a...); }) {}
  R operator()(Args... a) const { return call_(obj_, a...); }

 private:
  void* obj_;
  R (*call_)(void*, Args...);
};

// The state behind dispatch: the decisions of this process, the cache file
// and the forced variants. One per process (Global(), configured from the
// environment); tests make their own.
class Dispatcher {
 public:
  struct Options {
    std::string cache_path;               // the cache file; "" = none
    std::string cache_comment;            // its "# " line
    std::map<Family, std::string> forced;  // family -> variant
  };
  explicit Dispatcher(Options options);
  Dispatcher(const Dispatcher&) = delete;
  Dispatcher& operator=(const Dispatcher&) = delete;
  ~Dispatcher();

  // The process's dispatcher: cache file under PODBENCH_KERNEL_CACHE (see
  // dispatch_cache.h for its name), forced variants from PODBENCH_KERNELS.
  static Dispatcher& Global();

  // The index in `candidates` of the variant to run a problem of class `pc`:
  //   1. the forced one, if it can run the problem;
  //   2. else the first variant of the class's ranking (this dispatcher's,
  //      else the cache file's) that can run it;
  //   3. else the winner of a measurement made now among those that can run
  //      it (references only when nothing else can): run(i) runs candidate i
  //      once on the problem, writing scratch outputs only; it is called
  //      several times per contender, round robin, the first call untimed;
  //      the best time counts. The ranking goes to the cache file.
  // can_run(i) says whether candidate i can run this problem; it is asked only
  // when needed (it may be costly, e.g. build a oneDNN primitive).
  // REQUIRES: some candidate can run the problem. Thread-safe; measurements
  // are serialised.
  std::size_t Choose(const ProblemClass& pc, std::span<const Candidate> candidates,
                     FunctionRef<bool(std::size_t)> can_run, FunctionRef<void(std::size_t)> run);

  // Every class decided (including cached rankings used), in the order they
  // were first decided.
  std::vector<std::pair<ProblemClass, Ranking>> Decisions() const;

  // Stops using rankings read from the cache file (new measurements still
  // update it): `podbench bench` reports its own measurements.
  void IgnoreCachedRankings();

  // The variant forced for `f`, or "".
  std::string Forced(Family f) const;
  const std::string& cache_path() const { return options_.cache_path; }
  // The last problem with the cache file ("" when none): unreadable, corrupt
  // lines skipped, unwritable.
  std::string CacheProblem();

 private:
  struct State;
  Options options_;
  std::unique_ptr<State> s_;
};

// Dispatcher::Global()'s Choose.
std::size_t Choose(const ProblemClass& pc, std::span<const Candidate> candidates,
                   FunctionRef<bool(std::size_t)> can_run, FunctionRef<void(std::size_t)> run);

// Dispatcher::Global()'s decisions.
std::vector<std::pair<ProblemClass, Ranking>> Decisions();

// InvalidArgument naming the variable and the bad part when PODBENCH_KERNELS,
// PODBENCH_KERNEL_CACHE or PODBENCH_CPU_ISA is malformed or names an unknown
// family or variant; OK otherwise. Commands that run kernels check it first.
Status CheckKernelEnvironment();

}  // namespace podbench::kernels::dispatch
