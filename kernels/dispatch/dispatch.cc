#include "kernels/dispatch/dispatch.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <deque>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <tuple>
#include <shared_mutex>
#include <unordered_map>

#include "base/text.h"
#include "base/version.h"
#include "kernels/conv/conv_variants.h"
#include "kernels/cpu_features.h"
#include "kernels/dispatch/dispatch_cache.h"
#include "kernels/gemm/gemm.h"
#include "kernels/onednn/onednn.h"

namespace podbench::kernels::dispatch {
namespace {

constexpr const char* kForceVariable = "PODBENCH_KERNELS";
constexpr const char* kCacheVariable = "PODBENCH_KERNEL_CACHE";

// Measurement: at least kMinRounds rounds of every contender, then more
// until kMinSeconds have passed (on the clock the runs are timed by) or
// kMaxRounds; after kPruneRound rounds,
// contenders whose best is slower than kPruneFactor x the best drop out. Not
// after one: a single timed run can be a spike, and a 2-thread bf16 res3
// convolution class lost oneDNN, its fastest contender, in 5 of 15 processes
// to a first run over 3x its usual time (the winner then ran 1.1-1.2x
// slower). With more than one thread each timed run follows an untimed one
// of the same contender. A close call (the best two within kCloseFactor)
// goes on to kCloseSeconds: a 2-thread bf16 GEMM at m=n=k=512 under the
// AVX2 cap, 1.2-1.3 ms a run, got three timed runs per contender in 10 ms
// and went to the one the same benchmark run then measured 8% slower (a
// 1.01x decision).
constexpr int kMinRounds = 3, kMaxRounds = 200;
constexpr int kPruneRound = 2;
constexpr double kMinSeconds = 0.01, kPruneFactor = 3.0;
constexpr double kCloseFactor = 1.05, kCloseSeconds = 0.05;

// The variant names of `f`, in table order.
std::vector<std::string> VariantNames(Family f) {
  std::vector<std::string> out;
  if (f == Family::kGemmF32 || f == Family::kGemmBf16) {
    const GemmDtype d = f == Family::kGemmF32 ? GemmDtype::kF32 : GemmDtype::kBf16;
    for (const GemmVariant& v : GemmVariants()) {
      if (v.dtype == d) out.emplace_back(v.name);
    }
  } else {
    for (const ConvVariant& v : ConvVariants(f == Family::kConvF32 ? Precision::kF32 : Precision::kBf16)) {
      out.push_back(v.name);
    }
  }
  return out;
}

// PODBENCH_KERNELS parsed: family -> variant; error text when malformed.
struct Forced {
  std::map<Family, std::string> variant;
  std::string error;
};

Forced ParseForced() {
  Forced f;
  const char* env = std::getenv(kForceVariable);
  if (env == nullptr || *env == '\0') return f;
  const std::string s = env;
  std::size_t i = 0;
  while (i <= s.size()) {
    const std::size_t comma = std::min(s.find(',', i), s.size());
    const std::string item = s.substr(i, comma - i);
    i = comma + 1;
    if (item.empty()) continue;
    const std::size_t eq = item.find('=');
    const std::string fam = item.substr(0, eq), var = eq == std::string::npos ? "" : item.substr(eq + 1);
    std::optional<Family> family;
    for (Family x : kFamilies) {
      if (fam == FamilyName(x)) family = x;
    }
    if (eq == std::string::npos || !family) {
      f.error = std::string(kForceVariable) + "=" + s + ": '" + item +
                "' is not family=variant with a family of gemm_f32, gemm_bf16, conv_f32, conv_bf16";
      return f;
    }
    const std::vector<std::string> names = VariantNames(*family);
    if (std::find(names.begin(), names.end(), var) == names.end()) {
      f.error = std::string(kForceVariable) + "=" + s + ": " + fam + " has no variant '" + var + "' (variants: " +
                JoinNames(names) + ")";
      return f;
    }
    f.variant[*family] = var;
  }
  return f;
}

const Forced& ForcedSettings() {
  static const Forced forced = ParseForced();
  return forced;
}

std::string CacheDirFromEnv(std::string* error) {
  const char* env = std::getenv(kCacheVariable);
  if (env != nullptr && *env != '\0') {
    const std::string v = env;
    if (v == "off") return "";
    if (v[0] != '/') {
      if (error) *error = std::string(kCacheVariable) + "=" + v + ": not an absolute directory (or off)";
      return "";
    }
    return v;
  }
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && xdg[0] == '/') {
    return std::string(xdg) + "/podbench";
  }
  if (const char* home = std::getenv("HOME"); home != nullptr && home[0] == '/') {
    return std::string(home) + "/.cache/podbench";
  }
  return "";
}

// FNV-1a, 64 bit: a stable hash for the cache file name.
std::uint64_t Fnv1a(const std::string& s) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

// The global dispatcher's cache file: <dir>/kernel-dispatch-<id>.txt (see
// dispatch_cache.h), "" when off; and its comment line.
std::pair<std::string, std::string> GlobalCacheFile() {
  const std::string dir = CacheDirFromEnv(nullptr);
  if (dir.empty()) return {};
  const CpuFeatures& cpu = DetectedCpuFeatures();
  std::string identity = cpu.model + "|" + cpu.flags + "|" + GitHash() + "|" + onednn::VersionString();
  for (Family f : kFamilies) {
    for (const std::string& n : VariantNames(f)) identity += "|" + n;
  }
  char id[17];
  std::snprintf(id, sizeof id, "%016llx", static_cast<unsigned long long>(Fnv1a(identity)));
  return {dir + "/kernel-dispatch-" + id + ".txt",
          "cpu " + cpu.model + "; isa " + cpu.flags + "; build " + GitHash() + "; onednn " +
              (onednn::Available() ? onednn::VersionString() : "unavailable")};
}

std::string KeyOf(const ProblemClass& pc) { return std::string(FamilyName(pc.family)) + " " + pc.text; }

// The first name of `r` that is a candidate and can run, as an index.
std::optional<std::size_t> FirstRunnable(const Ranking& r, std::span<const Candidate> c,
                                         FunctionRef<bool(std::size_t)> can_run) {
  for (const auto& entry : r.seconds) {
    for (std::size_t i = 0; i < c.size(); ++i) {
      if (entry.first == c[i].name && can_run(i)) return i;
    }
  }
  return std::nullopt;
}

double ThreadCpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return double(t.tv_sec) + double(t.tv_nsec) * 1e-9;
}

double WallSeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// How long to measure: kCloseSeconds when the two fastest of `active` are
// within kCloseFactor of each other, else kMinSeconds.
double BudgetSeconds(const std::vector<double>& best, const std::vector<std::size_t>& active) {
  double first = std::numeric_limits<double>::infinity(), second = first;
  for (std::size_t i : active) {
    if (best[i] < first) {
      second = first;
      first = best[i];
    } else if (best[i] < second) {
      second = best[i];
    }
  }
  return second <= kCloseFactor * first ? kCloseSeconds : kMinSeconds;
}

Ranking Measure(std::span<const Candidate> c, const std::vector<std::size_t>& contenders,
                FunctionRef<void(std::size_t)> run, bool cpu_time) {
  // The budget is counted on the clock the runs are timed by: with CPU time
  // a busy machine stretches neither the runs nor the budget, so a 1-thread
  // class gets as many rounds under load as on an idle machine.
  auto Now = [&] { return cpu_time ? ThreadCpuSeconds() : WallSeconds(); };
  auto Seconds = [&](std::size_t i) {
    const double t0 = Now();
    run(i);
    return Now() - t0;
  };
  Ranking r;
  std::vector<double> best(c.size(), std::numeric_limits<double>::infinity());
  std::vector<std::size_t> active = contenders;
  for (std::size_t i : active) run(i);  // untimed: JIT, packing buffers, page faults
  const double start = Now();
  for (int round = 1;; ++round) {
    for (std::size_t i : active) {
      // With more than one thread, a contender that follows another one in
      // the round finds the other's threads still holding cores (libgomp's
      // spin for 300,000 iterations after its region, the pool's after its
      // own): an untimed run first lets them go quiet. Without it a 2-thread
      // res5 convolution class measured podbench's lowering 1.41x slower
      // than oneDNN after oneDNN, where run alone it was 1.3x faster.
      if (!cpu_time) run(i);
      best[i] = std::min(best[i], Seconds(i));
    }
    if (round == kPruneRound) {
      double fastest = std::numeric_limits<double>::infinity();
      for (std::size_t i : active) fastest = std::min(fastest, best[i]);
      std::erase_if(active, [&](std::size_t i) { return best[i] > kPruneFactor * fastest; });
    }
    const double elapsed = Now() - start;
    if (round >= kMinRounds && (elapsed >= BudgetSeconds(best, active) || round >= kMaxRounds)) break;
  }
  for (std::size_t i : contenders) r.seconds.emplace_back(c[i].name, best[i]);
  std::stable_sort(r.seconds.begin(), r.seconds.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
  return r;
}

std::size_t IndexOf(std::span<const Candidate> c, const std::string& name) {
  for (std::size_t i = 0; i < c.size(); ++i) {
    if (name == c[i].name) return i;
  }
  return c.size();
}

}  // namespace

struct Dispatcher::State {
  struct Decision {
    ProblemClass pc;
    Ranking ranking;
  };
  mutable std::shared_mutex mu;  // decided, order
  std::unordered_map<std::string, std::size_t> decided;  // KeyOf -> index in order
  std::deque<Decision> order;  // elements stay put: readers keep references after unlocking
  std::recursive_mutex measure_mu;  // one measurement at a time; guards the members below
  bool file_loaded = false;
  bool ignore_cached = false;
  std::string problem;
  std::map<std::string, CacheRecord> file;  // KeyOf -> record

  // Records a decision (the first one wins).
  void Record(const ProblemClass& pc, Ranking r) {
    std::unique_lock lock(mu);
    const std::string key = KeyOf(pc);
    if (decided.count(key) == 0) {
      decided.emplace(key, order.size());
      order.push_back({pc, std::move(r)});
    }
  }
};

Dispatcher::Dispatcher(Options options) : options_(std::move(options)), s_(std::make_unique<State>()) {}
Dispatcher::~Dispatcher() = default;

Dispatcher& Dispatcher::Global() {
  static Dispatcher* d = [] {
    Options o;
    std::tie(o.cache_path, o.cache_comment) = GlobalCacheFile();
    if (ForcedSettings().error.empty()) o.forced = ForcedSettings().variant;
    return new Dispatcher(std::move(o));  // never destroyed: kernels may run during exit
  }();
  return *d;
}

std::string Dispatcher::Forced(Family f) const {
  auto it = options_.forced.find(f);
  return it == options_.forced.end() ? "" : it->second;
}

std::size_t Dispatcher::Choose(const ProblemClass& pc, std::span<const Candidate> candidates,
                               FunctionRef<bool(std::size_t)> can_run, FunctionRef<void(std::size_t)> run) {
  State& s = *s_;
  const std::string forced = Forced(pc.family);
  if (!forced.empty()) {
    const std::size_t i = IndexOf(candidates, forced);
    if (i < candidates.size() && can_run(i)) {
      Ranking r;
      r.source = Ranking::Source::kForced;
      r.seconds.emplace_back(forced, 0.0);
      s.Record(pc, std::move(r));
      return i;
    }
  }
  const std::string key = KeyOf(pc);
  {
    std::shared_lock lock(s.mu);
    auto it = s.decided.find(key);
    if (it != s.decided.end()) {
      const Ranking& r = s.order[it->second].ranking;
      lock.unlock();  // recorded decisions are never modified
      if (auto i = FirstRunnable(r, candidates, can_run)) return *i;
    }
  }
  std::lock_guard measure(s.measure_mu);
  if (!s.file_loaded) {
    s.file_loaded = true;
    int skipped = 0;
    auto records = options_.cache_path.empty() ? Result<std::vector<CacheRecord>>(std::vector<CacheRecord>{})
                                               : ReadCacheFile(options_.cache_path, &skipped);
    if (!records.ok()) {
      s.problem = records.status().message();
    } else {
      if (skipped > 0) s.problem = options_.cache_path + ": skipped " + std::to_string(skipped) + " malformed line(s)";
      for (CacheRecord& r : *records) s.file[std::string(FamilyName(r.family)) + " " + r.cls] = std::move(r);
    }
  }
  if (!s.ignore_cached) {
    auto it = s.file.find(key);
    if (it != s.file.end()) {
      Ranking r;
      r.source = Ranking::Source::kCached;
      r.seconds = it->second.seconds;
      if (auto i = FirstRunnable(r, candidates, can_run)) {
        s.Record(pc, std::move(r));
        return *i;
      }
    }
  }
  std::vector<std::size_t> contenders;
  for (bool references : {false, true}) {
    for (std::size_t i = 0; i < candidates.size(); ++i) {
      if (candidates[i].reference == references && can_run(i)) contenders.push_back(i);
    }
    if (!contenders.empty()) break;
  }
  if (contenders.size() <= 1) {
    const std::size_t i = contenders.empty() ? 0 : contenders[0];
    Ranking r;
    r.source = Ranking::Source::kOnly;
    r.seconds.emplace_back(candidates[i].name, 0.0);
    s.Record(pc, std::move(r));
    return i;
  }
  Ranking r = Measure(candidates, contenders, run, pc.threads == 1);
  if (!options_.cache_path.empty()) {
    CacheRecord rec;
    rec.family = pc.family;
    rec.cls = pc.text;
    rec.seconds = r.seconds;
    s.file[key] = rec;
    if (Status st = MergeIntoCacheFile(options_.cache_path, options_.cache_comment, {rec}); !st.ok()) {
      s.problem = st.message();
    }
  }
  const std::size_t winner = IndexOf(candidates, r.seconds.front().first);
  s.Record(pc, std::move(r));
  return winner;
}

std::vector<std::pair<ProblemClass, Ranking>> Dispatcher::Decisions() const {
  std::shared_lock lock(s_->mu);
  std::vector<std::pair<ProblemClass, Ranking>> out;
  for (const auto& d : s_->order) out.emplace_back(d.pc, d.ranking);
  return out;
}

void Dispatcher::IgnoreCachedRankings() {
  std::lock_guard measure(s_->measure_mu);
  s_->ignore_cached = true;
}

std::string Dispatcher::CacheProblem() {
  std::lock_guard measure(s_->measure_mu);
  return s_->problem;
}

const char* FamilyName(Family f) {
  switch (f) {
    case Family::kGemmF32: return "gemm_f32";
    case Family::kGemmBf16: return "gemm_bf16";
    case Family::kConvF32: return "conv_f32";
    case Family::kConvBf16: return "conv_bf16";
  }
  return "?";
}

const char* SourceName(Ranking::Source s) {
  switch (s) {
    case Ranking::Source::kForced: return "forced";
    case Ranking::Source::kMeasured: return "measured";
    case Ranking::Source::kCached: return "cached";
    case Ranking::Source::kOnly: return "only one";
  }
  return "?";
}

std::int64_t Bucket(std::int64_t v) {
  if (v <= 16) return v;
  std::int64_t b = 32;
  while (b < v) b *= 2;
  return b;
}

std::size_t Choose(const ProblemClass& pc, std::span<const Candidate> candidates,
                   FunctionRef<bool(std::size_t)> can_run, FunctionRef<void(std::size_t)> run) {
  return Dispatcher::Global().Choose(pc, candidates, can_run, run);
}

std::vector<std::pair<ProblemClass, Ranking>> Decisions() { return Dispatcher::Global().Decisions(); }

Status CheckKernelEnvironment() {
  PODBENCH_RETURN_IF_ERROR(CpuIsaCapStatus());
  if (!ForcedSettings().error.empty()) return Status::InvalidArgument(ForcedSettings().error);
  std::string error;
  CacheDirFromEnv(&error);
  if (!error.empty()) return Status::InvalidArgument(error);
  return Status::Ok();
}

}  // namespace podbench::kernels::dispatch
