// Dispatch by measurement (kernels/dispatch): the cache file's format,
// robustness and concurrent writers, and Choose's order of precedence
// (forced, ranked, cached, measured), on dispatchers of the tests' own with
// temporary cache files. Timings decide nothing here but which of a fast and a
// clearly slow (busy-looping) candidate wins.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kernels/dispatch/dispatch.h"
#include "kernels/dispatch/dispatch_cache.h"
#include "tests/testing/temp_dir.h"

namespace podbench::kernels::dispatch {
namespace {

using ::testing::HasSubstr;

CacheRecord Record(Family f, const std::string& cls, std::vector<std::pair<std::string, double>> s) {
  CacheRecord r;
  r.family = f;
  r.cls = cls;
  r.seconds = std::move(s);
  return r;
}

void Write(const std::filesystem::path& p, const std::string& text) {
  std::ofstream out(p);
  out << text;
}

TEST(DispatchCacheTest, RecordsRoundTrip) {
  const CacheRecord r = Record(Family::kConvBf16, "fwd.k3x3.s1.p1.c64.oc64.m16384.t1",
                               {{"onednn", 0.00123}, {"im2col+bf16_gemm__avx512f_14x32", 0.0089}});
  const std::string line = FormatRecord(r);
  EXPECT_EQ(line.find('\n'), std::string::npos);
  CacheRecord back;
  ASSERT_TRUE(ParseRecord(line, &back));
  EXPECT_EQ(back.family, r.family);
  EXPECT_EQ(back.cls, r.cls);
  EXPECT_EQ(back.seconds, r.seconds);  // shortest round-trip formatting: exact
}

TEST(DispatchCacheTest, MalformedLinesAreRejected) {
  CacheRecord r;
  for (const char* bad : {"", "gemm_f32", "gemm_f32 m1.n1.k1.nn.t1", "gemm_f32 m1.n1.k1.nn.t1 v",
                          "gemm_f32 m1.n1.k1.nn.t1 v 1 w", "nosuch m1 v 1", "gemm_f32 m1 v -1", "gemm_f32 m1 v nan",
                          "gemm_f32 m1 v 1x", "gemm_f32  m1 v 1", "gemm_f32 m1 v 1 ", "gemm_f32 m1 v\t1"}) {
    EXPECT_FALSE(ParseRecord(bad, &r)) << "'" << bad << "'";
  }
  EXPECT_TRUE(ParseRecord("gemm_f32 m1 v 1e-06", &r));
}

TEST(DispatchCacheTest, ReadSkipsCorruptLinesAndLaterLinesWin) {
  testing::TempDir dir;
  const auto path = dir / "c.txt";
  int skipped = -1;
  auto missing = ReadCacheFile(path.string(), &skipped);
  ASSERT_TRUE(missing.ok());
  EXPECT_TRUE(missing->empty());
  Write(path, std::string(kCacheHeader) +
                  "\n# comment\ngemm_f32 a v1 1 v2 2\ngarbage here\ngemm_f32 b v1 1\n\xff\xfe\ngemm_f32 a v2 0.5\n");
  auto recs = ReadCacheFile(path.string(), &skipped);
  ASSERT_TRUE(recs.ok());
  EXPECT_EQ(skipped, 2);
  ASSERT_EQ(recs->size(), 2u);
  EXPECT_EQ((*recs)[0].cls, "a");
  EXPECT_EQ((*recs)[0].seconds.front().first, "v2");  // the later line replaced the first
  // Another format (or a truncated header) is ignored as a whole.
  Write(path, "podbench-kernel-dispatch 99\ngemm_f32 a v1 1\n");
  recs = ReadCacheFile(path.string(), &skipped);
  ASSERT_TRUE(recs.ok());
  EXPECT_TRUE(recs->empty());
  EXPECT_EQ(skipped, 2);
}

TEST(DispatchCacheTest, ConcurrentWritersLoseNothing) {
  testing::TempDir dir;
  const std::string path = (dir / "sub" / "c.txt").string();  // the directory is created
  constexpr int kWriters = 6, kEach = 15;
  std::vector<std::thread> writers;
  std::atomic<int> failures{0};
  for (int w = 0; w < kWriters; ++w) {
    writers.emplace_back([&, w] {
      for (int i = 0; i < kEach; ++i) {
        const std::string cls = "w" + std::to_string(w) + ".i" + std::to_string(i);
        if (!MergeIntoCacheFile(path, "test", {Record(Family::kGemmBf16, cls, {{"v", 1e-3 * i}})}).ok()) ++failures;
      }
    });
  }
  for (auto& t : writers) t.join();
  EXPECT_EQ(failures.load(), 0);
  int skipped = -1;
  auto recs = ReadCacheFile(path, &skipped);
  ASSERT_TRUE(recs.ok());
  EXPECT_EQ(skipped, 0);
  EXPECT_EQ(recs->size(), std::size_t(kWriters * kEach));
  // No temporary file is left behind.
  int files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir / "sub")) files += e.path().extension() != ".lock";
  EXPECT_EQ(files, 1);
}

// Burns about `ms` of this thread's CPU time (dispatch times 1-thread classes by CPU time).
void Burn(double ms) {
  const auto cpu = [] {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return double(t.tv_sec) * 1e3 + double(t.tv_nsec) * 1e-6;
  };
  const double end = cpu() + ms;
  volatile double x = 0;
  while (cpu() < end) x = x + 1;
}

ProblemClass Class(const std::string& text) {
  ProblemClass pc;
  pc.family = Family::kGemmF32;
  pc.text = text;
  pc.threads = 1;
  return pc;
}

Dispatcher::Options Temp(const testing::TempDir& dir) {
  Dispatcher::Options o;
  o.cache_path = (dir / "cache.txt").string();
  o.cache_comment = "test";
  return o;
}

TEST(DispatchChooseTest, MeasuresOnceAndRemembersTheFastest) {
  testing::TempDir dir;
  Dispatcher d(Temp(dir));
  const Candidate c[] = {{"slow"}, {"fast"}, {"reference", true}, {"cannot"}};
  std::vector<int> runs(4);
  auto can_run = [](std::size_t i) { return i != 3; };
  auto run = [&](std::size_t i) {
    ++runs[i];
    Burn(i == 0 ? 2.0 : 0.2);
  };
  const ProblemClass pc = Class("test.measure");
  EXPECT_EQ(d.Choose(pc, c, can_run, run), 1u);
  EXPECT_GT(runs[1], 1);
  EXPECT_EQ(runs[2], 0) << "a reference competes only when nothing else can run";
  EXPECT_EQ(runs[3], 0);
  const std::vector<int> before = runs;
  EXPECT_EQ(d.Choose(pc, c, can_run, run), 1u);
  EXPECT_EQ(runs, before) << "a decided class is not measured again";
  const auto decisions = d.Decisions();
  ASSERT_EQ(decisions.size(), 1u);
  EXPECT_EQ(decisions[0].first.text, "test.measure");
  EXPECT_EQ(decisions[0].second.source, Ranking::Source::kMeasured);
  ASSERT_EQ(decisions[0].second.seconds.size(), 2u);  // the two contenders, fastest first
  EXPECT_EQ(decisions[0].second.seconds[0].first, "fast");
  EXPECT_LT(decisions[0].second.seconds[0].second, decisions[0].second.seconds[1].second);
  // The ranking is in the cache file: a new dispatcher (a new process) uses it
  // without measuring.
  int skipped = -1;
  auto recs = ReadCacheFile(d.cache_path(), &skipped);
  ASSERT_TRUE(recs.ok());
  ASSERT_EQ(recs->size(), 1u);
  EXPECT_EQ((*recs)[0].seconds[0].first, "fast");
  Dispatcher next(Temp(dir));
  runs.assign(4, 0);
  EXPECT_EQ(next.Choose(pc, c, can_run, run), 1u);
  EXPECT_EQ(runs, std::vector<int>(4, 0));
  EXPECT_EQ(next.Decisions()[0].second.source, Ranking::Source::kCached);
  // Unless told to measure afresh (podbench bench).
  Dispatcher fresh(Temp(dir));
  fresh.IgnoreCachedRankings();
  EXPECT_EQ(fresh.Choose(pc, c, can_run, run), 1u);
  EXPECT_GT(runs[1], 0);
}

// The rounds of a round-robin sequence of contender indices: its maximal
// strictly increasing runs, each as the set of contenders it visits.
std::vector<std::set<std::size_t>> RoundsOf(const std::vector<std::size_t>& seq) {
  std::vector<std::set<std::size_t>> rounds;
  for (std::size_t k = 0; k < seq.size(); ++k) {
    if (k == 0 || seq[k] <= seq[k - 1]) rounds.emplace_back();
    rounds.back().insert(seq[k]);
  }
  return rounds;
}

// With more than one thread, every timed run of a contender directly follows
// an untimed run of the same contender (another's threads have gone quiet);
// with one thread (timed by the thread's CPU time) the rounds alternate. The
// first two rounds time every contender; after them, one that stays 3x
// slower may drop out (kPruneFactor), so later rounds visit a subset
// of the round before, each contender once, in order. Run back to back
// instead (0 0 1 1 2 2), the one-thread sequence would break that rule.
TEST(DispatchChooseTest, MultiThreadMeasurementsSettleEachContenderFirst) {
  for (int threads : {1, 2}) {
    testing::TempDir dir;
    Dispatcher d(Temp(dir));
    const Candidate c[] = {{"a"}, {"b"}, {"c"}};
    std::vector<std::size_t> order;
    auto run = [&](std::size_t i) {
      order.push_back(i);
      Burn(0.2);
    };
    ProblemClass pc = Class("test.settle");
    pc.threads = threads;
    (void)d.Choose(pc, c, [](std::size_t) { return true; }, run);
    ASSERT_GE(order.size(), 3u + 3u * 3u);
    EXPECT_EQ(std::vector<std::size_t>(order.begin(), order.begin() + 3), (std::vector<std::size_t>{0, 1, 2}))
        << "the untimed first pass";
    const std::vector<std::size_t> calls(order.begin() + 3, order.end());
    std::vector<std::size_t> timed;  // the contender of each timed run
    if (threads == 1) {
      timed = calls;
    } else {
      ASSERT_EQ(calls.size() % 2, 0u);
      for (std::size_t k = 0; k < calls.size(); k += 2) {
        EXPECT_EQ(calls[k], calls[k + 1]) << "threads " << threads << ", call " << k << ": not settled first";
        timed.push_back(calls[k]);
      }
    }
    const std::vector<std::set<std::size_t>> rounds = RoundsOf(timed);
    ASSERT_FALSE(rounds.empty());
    ASSERT_GE(rounds.size(), 2u);
    EXPECT_EQ(rounds[0], (std::set<std::size_t>{0, 1, 2})) << "threads " << threads << ": the first timed round";
    EXPECT_EQ(rounds[1], (std::set<std::size_t>{0, 1, 2})) << "threads " << threads << ": the second timed round";
    for (std::size_t r = 1; r < rounds.size(); ++r) {
      EXPECT_TRUE(std::includes(rounds[r - 1].begin(), rounds[r - 1].end(), rounds[r].begin(), rounds[r].end()))
          << "threads " << threads << ", round " << r << " visits a contender the round before did not";
    }
  }
}

// One slow timed run does not put a contender out: "spiky" is the faster one
// but its first timed run takes 10x its time, over kPruneFactor x the
// other's. Pruned after that first run, it would lose to "steady".
TEST(DispatchChooseTest, ASpikeInTheFirstTimedRunDoesNotPruneTheFastest) {
  for (int threads : {1, 2}) {
    testing::TempDir dir;
    Dispatcher d(Temp(dir));
    const Candidate c[] = {{"steady"}, {"spiky"}};
    int spiky_calls = 0;
    auto run = [&](std::size_t i) {
      // 3x the spiky one's usual 0.2 ms, so that wall-clock noise on a
      // loaded machine (the 2-thread class is timed by the wall clock)
      // cannot reorder the two; the spike is still over kPruneFactor x it.
      if (i == 0) return Burn(0.6);
      ++spiky_calls;
      // Call 1 is the untimed first pass; with 2 threads each timed run
      // follows an untimed one, so the first timed run is call 2 or 3.
      Burn(spiky_calls == (threads == 1 ? 2 : 3) ? 2.0 : 0.2);
    };
    ProblemClass pc = Class("test.spike");
    pc.threads = threads;
    EXPECT_EQ(d.Choose(pc, c, [](std::size_t) { return true; }, run), 1u) << "threads " << threads;
  }
}

// A close call (the best two within 5%) is measured five times as long as
// a clear one (10 ms, then 50 ms of rounds): two identical contenders get
// several times the rounds of two that differ by 2.5x.
TEST(DispatchChooseTest, ACloseCallIsMeasuredLonger) {
  auto rounds_for = [](double ms_a, double ms_b) {
    testing::TempDir dir;
    Dispatcher d(Temp(dir));
    const Candidate c[] = {{"a"}, {"b"}};
    int runs = 0;
    auto run = [&](std::size_t i) {
      ++runs;
      Burn(i == 0 ? ms_a : ms_b);
    };
    (void)d.Choose(Class("test.close"), c, [](std::size_t) { return true; }, run);
    return (runs - 2) / 2;  // after the untimed first pass, one timed run of each per round
  };
  const int clear = rounds_for(0.2, 0.5);
  const int close = rounds_for(0.2, 0.2);
  EXPECT_GE(clear, 3);
  EXPECT_GE(close, 3 * clear) << "identical contenders: " << close << " rounds; 2.5x apart: " << clear;
}

TEST(DispatchChooseTest, FallsBackAlongTheRankingWhenTheWinnerCannotRun) {
  testing::TempDir dir;
  ASSERT_TRUE(MergeIntoCacheFile(Temp(dir).cache_path, "test",
                                 {Record(Family::kGemmF32, "test.cached", {{"gone", 1e-4}, {"b", 2e-4}, {"a", 3e-4}})})
                  .ok());
  Dispatcher d(Temp(dir));
  const Candidate c[] = {{"a"}, {"b"}, {"gone"}};
  int runs = 0;
  auto can_run = [](std::size_t i) { return i != 2; };
  auto run = [&](std::size_t) { ++runs; };
  EXPECT_EQ(d.Choose(Class("test.cached"), c, can_run, run), 1u);
  EXPECT_EQ(runs, 0);
}

TEST(DispatchChooseTest, ACorruptCacheFileIsReportedAndMeasuredOver) {
  testing::TempDir dir;
  Write(dir / "cache.txt", std::string(kCacheHeader) + "\ngemm_f32 test.x fast\n\x01\x02\n");
  Dispatcher d(Temp(dir));
  const Candidate c[] = {{"slow"}, {"fast"}};
  auto can_run = [](std::size_t) { return true; };
  auto run = [](std::size_t i) { Burn(i == 0 ? 2.0 : 0.2); };
  EXPECT_EQ(d.Choose(Class("test.x"), c, can_run, run), 1u);
  EXPECT_THAT(d.CacheProblem(), HasSubstr("skipped 2 malformed line(s)"));
  int skipped = -1;
  auto recs = ReadCacheFile(d.cache_path(), &skipped);  // rewritten without the bad lines
  ASSERT_TRUE(recs.ok());
  EXPECT_EQ(skipped, 0);
  EXPECT_EQ(recs->size(), 1u);
}

TEST(DispatchChooseTest, AForcedVariantWinsWhereItCanRun) {
  testing::TempDir dir;
  Dispatcher::Options o = Temp(dir);
  o.forced[Family::kGemmF32] = "b";
  Dispatcher d(o);
  const Candidate c[] = {{"a"}, {"b"}};
  int runs = 0;
  auto run = [&](std::size_t) { ++runs; };
  EXPECT_EQ(d.Choose(Class("test.forced"), c, [](std::size_t) { return true; }, run), 1u);
  EXPECT_EQ(runs, 0);
  EXPECT_EQ(d.Decisions()[0].second.source, Ranking::Source::kForced);
  // Where it cannot run, the problem is left to measurement.
  EXPECT_EQ(d.Choose(Class("test.forced2"), c, [](std::size_t i) { return i == 0; }, run), 0u);
}

TEST(DispatchChooseTest, OnlyReferencesLeftAreUsedWithoutMeasuring) {
  Dispatcher d({});
  const Candidate c[] = {{"kernel"}, {"reference", true}};
  int runs = 0;
  auto can_run = [](std::size_t i) { return i == 1; };
  auto run = [&](std::size_t) { ++runs; };
  EXPECT_EQ(d.Choose(Class("test.only"), c, can_run, run), 1u);
  EXPECT_EQ(runs, 0);
  EXPECT_EQ(d.Decisions()[0].second.source, Ranking::Source::kOnly);
}

TEST(DispatchChooseTest, BucketsArePowersOfTwoAbove16) {
  EXPECT_EQ(Bucket(1), 1);
  EXPECT_EQ(Bucket(16), 16);
  EXPECT_EQ(Bucket(17), 32);
  EXPECT_EQ(Bucket(512), 512);
  EXPECT_EQ(Bucket(513), 1024);
}

TEST(DispatchEnvironmentTest, DefaultEnvironmentIsValid) { EXPECT_TRUE(CheckKernelEnvironment().ok()); }

}  // namespace
}  // namespace podbench::kernels::dispatch
