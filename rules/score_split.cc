#include "rules/score_split.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "base/stats.h"
#include "rules/mllog/reader.h"

namespace podbench::rules {

namespace {

// Google's SSD device block in the log's epochs: about 640,000 images
// (iterations_per_loop 625 at batch 1024, 313 at 2048) over the runner's
// 120,000-image epoch.
constexpr double kSsdEpochsPerBlock = 16.0 / 3.0;

struct Mark {
  double t = 0;
  double epoch_count = 0;  // block_start only; 0 when absent
  int first_epoch = 0;     // block_start's first_epoch_num; 0 when absent
};

// What a split reads from a log: the run's bounds, and the lines that mark
// blocks and evaluations before run_stop, in log order.
struct RunLines {
  std::string benchmark, platform, status;
  std::optional<double> run_start, run_stop;
  std::vector<Mark> block_start, eval_start, eval_stop, eval_accuracy;
};

Result<RunLines> ReadRunLines(const std::filesystem::path& log) {
  PODBENCH_ASSIGN_OR_RETURN(mllog::Format format, mllog::DetectFormat(log));
  if (format != mllog::Format::kMll) {
    return Status::InvalidArgument(log.string() + ": a :::MLLOG log; the score split reads Google's v0.6 :::MLL logs");
  }
  PODBENCH_ASSIGN_OR_RETURN(auto reader, mllog::LogReader::Open(log, format));
  RunLines run;
  mllog::Record r;
  auto first_string = [&](std::string* out) {
    if (out->empty() && r.payload().is_string()) *out = r.payload().as_string();
  };
  auto block_mark = [&] {
    Mark m{r.timestamp, 0};
    const mllog::Value& meta = r.metadata();
    if (meta.is_dict()) {
      if (const mllog::Value* c = meta.Find("epoch_count"); c && c->is_number()) m.epoch_count = c->as_number();
      if (const mllog::Value* e = meta.Find("first_epoch_num"); e && e->is_number()) {
        m.first_epoch = static_cast<int>(e->as_number());
      }
    }
    return m;
  };
  // Google's runner prints run_start, then block_start 1, but its GNMT logs
  // are sorted by time and then key: where both fall in one millisecond
  // (28 of the 50 logs), block_start 1 comes first. Such a line is the run's
  // first block.
  std::optional<Mark> block_start_at_run_start;
  while (reader->Next(&r)) {
    if (r.key == "submission_benchmark") {
      first_string(&run.benchmark);
    } else if (r.key == "submission_platform") {
      first_string(&run.platform);
    }
    if (run.run_stop) continue;  // only the submission keys count after run_stop
    if (r.key == "run_start") {
      if (!run.run_start) {
        run.run_start = r.timestamp;
        if (block_start_at_run_start && block_start_at_run_start->t == r.timestamp) {
          run.block_start.push_back(*block_start_at_run_start);
        }
      }
    } else if (!run.run_start && r.key == "block_start") {
      block_start_at_run_start = block_mark();
    } else if (r.key == "run_stop") {
      run.run_stop = r.timestamp;
      const mllog::Value& meta = r.metadata();
      if (meta.is_dict()) {
        if (const mllog::Value* s = meta.Find("status"); s && s->is_string()) run.status = s->as_string();
      }
    } else if (!run.run_start) {
      continue;  // nothing before run_start is timed
    } else if (r.key == "block_start") {
      run.block_start.push_back(block_mark());
    } else if (r.key == "eval_start") {
      run.eval_start.push_back({r.timestamp, 0});
    } else if (r.key == "eval_stop") {
      run.eval_stop.push_back({r.timestamp, 0});
    } else if (r.key == "eval_accuracy") {
      run.eval_accuracy.push_back({r.timestamp, 0});
    }
  }
  PODBENCH_RETURN_IF_ERROR(reader->status());
  return run;
}

Status Missing(const std::filesystem::path& log, const std::string& what) {
  return Status::FailedPrecondition(log.string() + ": " + what);
}

// ResNet: blocks end at eval_accuracy; evaluations are inside them.
Status SplitResnet(const std::filesystem::path& log, const RunLines& run, ScoreSplit* s) {
  const auto& ea = run.eval_accuracy;
  if (ea.empty()) return Missing(log, "no eval_accuracy line between run_start and run_stop");
  if (ea.size() < 2) {
    return Missing(log, "one eval_accuracy before run_stop: no later block to measure the start-up against");
  }
  std::vector<double> gaps;
  for (size_t k = 1; k < ea.size(); ++k) gaps.push_back(ea[k].t - ea[k - 1].t);
  s->evals = static_cast<int>(ea.size());
  s->blocks = s->evals;
  s->block_s = Median(gaps);
  s->startup_s = (ea.front().t - *run.run_start) - s->block_s;
  s->eval_s = 0;
  s->tail_s = *run.run_stop - ea.back().t;
  s->eval_separated = false;
  s->method =
      "resnet: a block runs from one eval_accuracy line to the next (run_start for the first) and holds its "
      "evaluation on the device, which no line separates from its training, so eval_s is 0 and training_s "
      "includes the evaluations; start-up is the first block less the median later block, the tail the last "
      "eval_accuracy to run_stop.";
  return Status::Ok();
}

// SSD: block_start k is logged when evaluation k-1's detections reached the
// host; a segment holds n device blocks and one evaluation.
Status SplitSsd(const std::filesystem::path& log, const RunLines& run, ScoreSplit* s) {
  const auto& bs = run.block_start;
  const size_t n = run.eval_accuracy.size();
  if (n == 0) return Missing(log, "no eval_accuracy line between run_start and run_stop");
  if (bs.size() < n) {
    return Missing(log, std::to_string(n) + " eval_accuracy lines before run_stop but " + std::to_string(bs.size()) +
                            " block_start lines");
  }
  if (n < 2) return Missing(log, "one evaluation before run_stop: no later segment to measure the start-up against");
  std::vector<int> blocks(n);
  for (size_t j = 0; j < n; ++j) {
    if (!(bs[j].epoch_count > 0)) {
      return Missing(log, "block_start " + std::to_string(j + 1) + " has no positive epoch_count");
    }
    blocks[j] = std::max(1, static_cast<int>(std::lround(bs[j].epoch_count / kSsdEpochsPerBlock)));
  }
  // The host's COCO scoring of evaluation j: from the block_start logged when
  // its detections arrived to its eval_accuracy.
  for (size_t j = 0; j + 1 < bs.size() && j < n; ++j) {
    s->host_scoring_s.push_back(run.eval_accuracy[j].t - bs[j + 1].t);
  }
  // Where the host had the last evaluation's detections: the next block_start,
  // or, when the last scheduled evaluation ended the run, run_stop less the
  // median scoring of the earlier evaluations.
  double last_results = 0;
  if (bs.size() > n) {
    last_results = bs[n].t;
  } else if (!s->host_scoring_s.empty()) {
    last_results = *run.run_stop - Median(s->host_scoring_s);
  } else {
    return Missing(log, "no block_start after the last evaluation and no earlier scoring to estimate its tail");
  }
  // Segments j >= 2 (index 1..n-1): seg = blocks * T + E, least squares.
  std::vector<double> seg(n);
  for (size_t j = 0; j < n; ++j) seg[j] = (j + 1 < n ? bs[j + 1].t : last_results) - bs[j].t;
  double sn = 0, ss = 0, snn = 0, sns = 0;
  const double m = static_cast<double>(n - 1);
  for (size_t j = 1; j < n; ++j) {
    sn += blocks[j];
    ss += seg[j];
    snn += static_cast<double>(blocks[j]) * blocks[j];
    sns += blocks[j] * seg[j];
  }
  const double var = snn - sn * sn / m;
  double t = 0, e = 0;
  if (var > 1e-9) {
    t = (sns - sn * ss / m) / var;
    e = (ss - t * sn) / m;
  }
  if (var <= 1e-9 || e < 0) {  // E not identifiable, or the fit makes it negative
    e = 0;
    t = sns / snn;
  }
  if (!(t > 0)) return Missing(log, "the later segments give no positive block time");
  s->evals = static_cast<int>(n);
  for (size_t j = 0; j < n; ++j) s->blocks += blocks[j];
  s->block_s = t;
  s->startup_s = (bs[0].t - *run.run_start) + seg[0] - blocks[0] * t - e;
  s->eval_s = static_cast<double>(n) * e;
  s->last_eval_device_s = e;
  s->tail_s = *run.run_stop - last_results;
  s->method =
      "ssd: consecutive block_start lines (logged when the previous evaluation's detections reach the host) bound "
      "n device blocks (epoch_count / 5.33) and one device evaluation; block time T and evaluation E are fitted "
      "over the later segments (E >= 0), start-up is the first segment less n*T + E, the tail the block_start "
      "after the last evaluation to run_stop (its COCO scoring), and training_s takes the fit's residuals.";
  return Status::Ok();
}

// The Transformer's and GNMT's runner: block_start k+1 when block k's
// training and decode k's inputs have been enqueued (the device may still
// have queued steps to train), eval_start k when the host has decode k's
// results.
Status SplitInfeedThreadRunner(const std::filesystem::path& log, const RunLines& run, ScoreSplit* s) {
  const auto& bs = run.block_start;
  const auto& es = run.eval_start;
  const size_t n = es.size();
  if (n == 0) return Missing(log, "no eval_start line between run_start and run_stop");
  if (bs.size() < 2) return Missing(log, "fewer than 2 block_start lines before run_stop");
  // Index k (0-based) is evaluation k+1 and block k+1; block_start of block k+2 is bs[k+1].
  // The pairing needs the block_start lines from block 1 on, one a block.
  for (size_t k = 0; k < bs.size(); ++k) {
    if (bs[k].first_epoch != 0 && bs[k].first_epoch != static_cast<int>(k) + 1) {
      return Missing(log, "block_start line " + std::to_string(k + 1) + " after run_start has first_epoch_num " +
                              std::to_string(bs[k].first_epoch) + ", not " + std::to_string(k + 1) +
                              ": the lines cannot be paired with the evaluations");
    }
  }
  std::vector<double> train;  // measured training of blocks 2..n
  for (size_t k = 1; k < n && k + 1 < bs.size(); ++k) train.push_back(bs[k + 1].t - es[k - 1].t);
  if (train.empty()) {
    return Missing(log, "no later block whose training the lines bound (needs block_start 3 and an evaluation before it)");
  }
  const double t = Median(train);
  double eval = 0;
  double last_device = 0;
  for (size_t k = 0; k < n; ++k) {
    double e = 0;
    if (k + 1 < bs.size()) {
      e = es[k].t - bs[k + 1].t;
      s->eval_windows_s.push_back(e);
    } else {
      e = es[k].t - es[k - 1].t - t;  // a last block with no block_start after it: its training at the median
    }
    eval += e;
    last_device = e;
  }
  for (size_t k = 0; k < n && k < run.eval_stop.size(); ++k) s->host_scoring_s.push_back(run.eval_stop[k].t - es[k].t);
  s->evals = static_cast<int>(n);
  s->blocks = s->evals;
  s->block_s = t;
  s->startup_s = bs[1].t - *run.run_start - t;
  s->eval_s = eval;
  s->last_eval_device_s = last_device;
  s->tail_s = *run.run_stop - es.back().t;
  s->method =
      s->benchmark +
      ": block_start k+1 (logged by the infeed thread once block k's training and decode k's inputs "
      "are enqueued) and eval_start k (the host has decode k's results) bound evaluation k = eval_start(k) - "
      "block_start(k+1); training k = block_start(k+1) - eval_start(k-1). The evaluation is an upper bound: it "
      "also holds the training steps still queued in the infeed when block_start k+1 is logged, which no line "
      "measures. Start-up is run_start..block_start 2 less the median later block, the tail the last eval_start "
      "to run_stop (its BLEU scoring).";
  return Status::Ok();
}

// One reading per Google runner.
struct Splitter {
  const char* benchmark;
  Status (*split)(const std::filesystem::path&, const RunLines&, ScoreSplit*);
};
constexpr Splitter kSplitters[] = {
    {"resnet", SplitResnet},
    {"ssd", SplitSsd},
    {"transformer", SplitInfeedThreadRunner},
    {"gnmt", SplitInfeedThreadRunner},
};

}  // namespace

Result<ScoreSplit> ReadScoreSplit(const std::filesystem::path& log) {
  PODBENCH_ASSIGN_OR_RETURN(RunLines run, ReadRunLines(log));
  ScoreSplit s;
  s.file = log.string();
  s.benchmark = run.benchmark;
  s.platform = run.platform;
  s.status = run.status;
  if (run.benchmark.empty()) return Status::InvalidArgument(log.string() + ": no submission_benchmark line");
  const Splitter* split = nullptr;
  for (const Splitter& candidate : kSplitters) {
    if (run.benchmark == candidate.benchmark) split = &candidate;
  }
  if (split == nullptr) {
    return Status::InvalidArgument(log.string() + ": benchmark '" + run.benchmark +
                                   "' cannot be split (the score split reads Google's resnet, ssd, transformer and "
                                   "gnmt runners only)");
  }
  if (!run.run_start) return Missing(log, "no run_start line");
  if (!run.run_stop) return Missing(log, "no run_stop line after run_start");
  PODBENCH_RETURN_IF_ERROR(split->split(log, run, &s));
  // training_s takes whatever the other parts leave, so the four add up.
  s.training_s = (*run.run_stop - *run.run_start) - s.startup_s - s.eval_s - s.tail_s;
  return s;
}

Result<ScoreSplitMedians> MedianScoreSplit(const std::vector<std::filesystem::path>& logs) {
  if (logs.empty()) return Status::InvalidArgument("MedianScoreSplit: no logs given");
  ScoreSplitMedians m;
  std::vector<double> startup, training, eval, tail, total, block, scoring, first_window, later_windows;
  for (const auto& log : logs) {
    PODBENCH_ASSIGN_OR_RETURN(ScoreSplit s, ReadScoreSplit(log));
    if (m.runs.empty()) {
      m.benchmark = s.benchmark;
      m.platform = s.platform;
    } else if (s.benchmark != m.benchmark || s.platform != m.platform) {
      return Status::InvalidArgument(log.string() + ": " + s.benchmark + " on '" + s.platform + "', but " +
                                     logs.front().string() + " is " + m.benchmark + " on '" + m.platform +
                                     "': medians are taken over one (benchmark, platform)");
    }
    startup.push_back(s.startup_s);
    training.push_back(s.training_s);
    eval.push_back(s.eval_s);
    tail.push_back(s.tail_s);
    total.push_back(s.total_s());
    block.push_back(s.block_s);
    scoring.insert(scoring.end(), s.host_scoring_s.begin(), s.host_scoring_s.end());
    if (!s.eval_windows_s.empty()) {
      first_window.push_back(s.eval_windows_s.front());
      later_windows.insert(later_windows.end(), s.eval_windows_s.begin() + 1, s.eval_windows_s.end());
    }
    m.runs.push_back(std::move(s));
  }
  m.startup_s = Median(startup);
  m.training_s = Median(training);
  m.eval_s = Median(eval);
  m.tail_s = Median(tail);
  m.total_s = Median(total);
  m.block_s = Median(block);
  m.host_scoring_s = scoring.empty() ? 0 : Median(scoring);
  m.first_eval_window_s = first_window.empty() ? 0 : Median(first_window);
  m.later_eval_window_s = later_windows.empty() ? 0 : Median(later_windows);
  return m;
}

}  // namespace podbench::rules
