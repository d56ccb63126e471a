#include "workloads/projection/calibration.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include <fmt/format.h>

namespace podbench::projection {

const char* CalibrationKindName(CalibrationKind k) {
  switch (k) {
    case CalibrationKind::kBlock: return "block";
    case CalibrationKind::kFirstBlockExtra: return "first_block_extra";
    case CalibrationKind::kInputBound: return "input_bound";
    case CalibrationKind::kScoring: return "scoring";
  }
  return "?";
}

double Calibration::Value(const std::string& key) const {
  for (const CalibratedValue& v : values) {
    if (v.key == key) return v.value;
  }
  return 0;
}

topology::SystemSpec ApplyCalibration(topology::SystemSpec system, const Calibration& c) {
  for (const CalibratedValue& v : c.values) {
    if (v.key == "core.mxu_efficiency") system.core.mxu_efficiency = v.value;
    if (v.key == "core.op_overhead_s") system.core.op_overhead_s = v.value;
    if (v.key == "host.input_bytes_per_s") system.host.input_bytes_per_s = v.value;
    if (v.key == "host.startup_s") system.host.startup_s = v.value;
    if (v.key == "host.startup_s_per_host") system.host.startup_s_per_host = v.value;
    if (v.key == "host.cache_fill_bytes_per_s") system.host.cache_fill_bytes_per_s = v.value;
    if (v.key == "host.scoring_ops_per_s") system.host.scoring_ops_per_s = v.value;
  }
  return system;
}

namespace {

constexpr double kPhi = 0.6180339887498949;

// Golden-section search for the argmin of `f` on [lo, hi].
template <typename F>
Result<double> Golden(F&& f, double lo, double hi, int iters) {
  double a = lo, b = hi;
  double x1 = b - kPhi * (b - a), x2 = a + kPhi * (b - a);
  PODBENCH_ASSIGN_OR_RETURN(double f1, f(x1));
  PODBENCH_ASSIGN_OR_RETURN(double f2, f(x2));
  for (int i = 0; i < iters; ++i) {
    if (f1 < f2) {
      b = x2;
      x2 = x1;
      f2 = f1;
      x1 = b - kPhi * (b - a);
      PODBENCH_ASSIGN_OR_RETURN(f1, f(x1));
    } else {
      a = x1;
      x1 = x2;
      f1 = f2;
      x2 = a + kPhi * (b - a);
      PODBENCH_ASSIGN_OR_RETURN(f2, f(x2));
    }
  }
  return 0.5 * (a + b);
}

std::string Names(const std::vector<const CalibrationTarget*>& ts) {
  std::string out;
  for (const CalibrationTarget* t : ts) {
    out += (out.empty() ? "" : ", ") + t->model + " " + t->point.slice;
  }
  return out;
}

Result<CalibrationTarget::Priced> Price(const CalibrationTarget& t, const topology::SystemSpec& s) {
  auto p = t.predict(s);
  if (!p.ok()) return Status::FailedPrecondition(t.model + " " + t.point.slice + ": " + p.status().message());
  return p;
}

// (mxu_efficiency, op_overhead_s) by least squares of the blocks' relative
// errors: for each overhead the best efficiency by golden section on its
// logarithm, the overhead by a coarse scan, then golden section around the
// best point.
Status FitCore(const topology::SystemSpec& system, const std::vector<const CalibrationTarget*>& blocks,
               Calibration* c, double* eff, double* ovh) {
  auto cost = [&](double e, double o) -> Result<double> {
    topology::SystemSpec s = system;
    s.core.mxu_efficiency = e;
    s.core.op_overhead_s = o;
    double sum = 0;
    for (const CalibrationTarget* t : blocks) {
      PODBENCH_ASSIGN_OR_RETURN(CalibrationTarget::Priced p, Price(*t, s));
      sum += std::pow((p.row.median_gap_s - t->point.published_s) / t->point.published_s, 2);
    }
    ++c->iterations;
    return sum;
  };
  double best_eff = 1;
  auto best_for = [&](double o) -> Result<double> {
    PODBENCH_ASSIGN_OR_RETURN(double log_eff,
                              Golden([&](double le) { return cost(std::exp(le), o); }, std::log(1e-2), 0.0, 40));
    best_eff = std::exp(log_eff);
    return cost(best_eff, o);
  };
  constexpr double kMaxOverhead = 1e-4;
  constexpr int kScan = 20;
  double best_ovh = 0, best = 1e300;
  for (int i = 0; i <= kScan; ++i) {
    const double o = kMaxOverhead * i / kScan;
    PODBENCH_ASSIGN_OR_RETURN(double v, best_for(o));
    if (v < best) {
      best = v;
      best_ovh = o;
    }
  }
  const double step = kMaxOverhead / kScan;
  PODBENCH_ASSIGN_OR_RETURN(*ovh, Golden(best_for, std::max(0.0, best_ovh - step), best_ovh + step, 30));
  PODBENCH_ASSIGN_OR_RETURN(double final_cost, best_for(*ovh));
  *eff = best_eff;
  if (!(final_cost < 1)) {
    return Status::FailedPrecondition("no MXU efficiency in (0.01, 1] and per-op overhead in [0, 100 us] brings the "
                                      "blocks (" + Names(blocks) + ") within 100% of their published times");
  }
  return Status::Ok();
}

// The start-up line and the cache-fill rate, jointly (see the header): for
// each fill rate on a log grid (then refined by golden section), (a, b) by
// weighted linear least squares with b >= 0.
struct FirstBlockFit {
  double a = 0, b = 0, rate = 0, cost = 0;
};
FirstBlockFit FitFirstBlocks(const std::vector<const CalibrationTarget*>& ts,
                             const std::vector<CalibrationTarget::Priced>& ps, double rate, bool any_cache,
                             bool slope) {
  FirstBlockFit f;
  f.rate = rate;
  double sw = 0, swx = 0, swy = 0, swxx = 0, swxy = 0;
  std::vector<double> y(ts.size());
  for (size_t i = 0; i < ts.size(); ++i) {
    const double fill = ps[i].caches_decoded_examples && any_cache
                            ? std::max(0.0, ps[i].first_epoch_fill_bytes / rate - ps[i].first_epoch_steps_s)
                            : 0;
    y[i] = ts[i]->point.published_s - fill;
    const double w = 1 / (ts[i]->point.published_s * ts[i]->point.published_s);
    const double x = static_cast<double>(ps[i].hosts);
    sw += w;
    swx += w * x;
    swy += w * y[i];
    swxx += w * x * x;
    swxy += w * x * y[i];
  }
  const double det = sw * swxx - swx * swx;
  f.b = slope && det > 0 ? (sw * swxy - swx * swy) / det : 0;
  if (f.b < 0) f.b = 0;
  f.a = (swy - f.b * swx) / sw;
  for (size_t i = 0; i < ts.size(); ++i) {
    const double r = (f.a + f.b * static_cast<double>(ps[i].hosts) - y[i]) / ts[i]->point.published_s;
    f.cost += r * r;
  }
  return f;
}

}  // namespace

Result<Calibration> Calibrate(const topology::SystemSpec& input, const std::vector<CalibrationTarget>& targets) {
  std::vector<const CalibrationTarget*> blocks, firsts, input_bound, scoring;
  for (const CalibrationTarget& t : targets) {
    switch (t.point.kind) {
      case CalibrationKind::kBlock: blocks.push_back(&t); break;
      case CalibrationKind::kFirstBlockExtra: firsts.push_back(&t); break;
      case CalibrationKind::kInputBound: input_bound.push_back(&t); break;
      case CalibrationKind::kScoring: scoring.push_back(&t); break;
    }
  }
  if (blocks.empty()) return Status::FailedPrecondition("calibration: no model declares a published block");
  Calibration c;
  topology::SystemSpec system = input;

  // The host's scoring rate first: it does not depend on the core, and the
  // blocks' gaps hold any scoring the next block does not hide.
  if (!scoring.empty()) {
    double sk = 0, skk = 0;
    for (const CalibrationTarget* t : scoring) {
      PODBENCH_ASSIGN_OR_RETURN(CalibrationTarget::Priced p, Price(*t, system));
      if (!(p.scoring_s > 0)) {
        return Status::FailedPrecondition(t->model + " " + t->point.slice + " declares a scoring time but prices no "
                                          "host scoring");
      }
      const double k = p.scoring_s * system.host.scoring_ops_per_s / t->point.published_s;  // ops per second needed
      sk += k;
      skk += k * k;
    }
    system.host.scoring_ops_per_s = skk / sk;
    c.values.push_back({"host.scoring_ops_per_s", system.host.scoring_ops_per_s, "op/s",
                        (scoring.size() == 1 ? "the rate at which the counted operations take the published host "
                                               "scoring of "
                                             : "least squares of the relative errors of the published host scoring "
                                               "of ") +
                            Names(scoring) + " (each model's HostWork::score_ops, counted from its algorithm)"});
  } else {
    c.values.push_back({"host.scoring_ops_per_s", input.host.scoring_ops_per_s, "op/s",
                        "kept: the system file's documented estimate (no model declares a scoring point)", false});
  }

  // While the core is fitted the host is not binding and the first block
  // does not enter (blocks are median gaps, after the first).
  system.host.input_bytes_per_s = 1e300;
  system.host.startup_s = 0;
  system.host.startup_s_per_host = 0;
  system.host.cache_fill_bytes_per_s = 1e300;

  double eff = 1, ovh = 0;
  PODBENCH_RETURN_IF_ERROR(FitCore(system, blocks, &c, &eff, &ovh));
  system.core.mxu_efficiency = eff;
  system.core.op_overhead_s = ovh;
  c.values.push_back({"core.mxu_efficiency", eff, "",
                      "least squares of the relative errors of " + std::to_string(blocks.size()) +
                          " published blocks (" + Names(blocks) + "), with core.op_overhead_s"});
  c.values.push_back({"core.op_overhead_s", ovh, "s", "with core.mxu_efficiency"});

  // The host input rate: the highest any not-input-bound slice needs.
  if (!input_bound.empty()) {
    double need = 0;
    for (const CalibrationTarget* t : input_bound) {
      PODBENCH_ASSIGN_OR_RETURN(CalibrationTarget::Priced p, Price(*t, system));
      need = std::max(need, p.per_host_step_bytes / p.row.step_s);
    }
    const double rate = std::ceil(need / 1e7) * 1e7;
    system.host.input_bytes_per_s = rate;
    c.values.push_back({"host.input_bytes_per_s", rate, "B/s",
                        "the rate at which the hosts of " + Names(input_bound) +
                            " keep up with their steps, rounded up to 10 MB/s (a lower bound: the published runs "
                            "were not input-bound)"});
  } else {
    c.values.push_back({"host.input_bytes_per_s", input.host.input_bytes_per_s, "B/s",
                        "kept: no model declares a slice that was not input-bound", false});
    system.host.input_bytes_per_s = input.host.input_bytes_per_s;
  }

  // The start-up line and the cache fill.
  if (!firsts.empty()) {
    std::vector<CalibrationTarget::Priced> ps;
    std::set<int64_t> hosts;
    bool any_cache = false;
    for (const CalibrationTarget* t : firsts) {
      PODBENCH_ASSIGN_OR_RETURN(CalibrationTarget::Priced p, Price(*t, system));
      hosts.insert(p.hosts);
      any_cache = any_cache || p.caches_decoded_examples;
      ps.push_back(p);
    }
    const bool slope = hosts.size() >= 2;
    FirstBlockFit best = FitFirstBlocks(firsts, ps, input.host.cache_fill_bytes_per_s, false, slope);
    if (any_cache) {
      best.cost = 1e300;
      constexpr double kLo = 7, kHi = 11;  // log10 of the fill rates tried, B/s
      constexpr int kGrid = 200;
      double best_x = kLo;
      for (int i = 0; i <= kGrid; ++i) {
        const double x = kLo + (kHi - kLo) * i / kGrid;
        const FirstBlockFit f = FitFirstBlocks(firsts, ps, std::pow(10, x), true, slope);
        if (f.cost < best.cost) {
          best = f;
          best_x = x;
        }
      }
      const double step = (kHi - kLo) / kGrid;
      PODBENCH_ASSIGN_OR_RETURN(
          const double x, Golden([&](double v) -> Result<double> {
                            return FitFirstBlocks(firsts, ps, std::pow(10, v), true, slope).cost;
                          },
                                 best_x - step, best_x + step, 40));
      best = FitFirstBlocks(firsts, ps, std::pow(10, x), true, slope);
    }
    const std::string names = Names(firsts);
    c.values.push_back({"host.startup_s", best.a, "s",
                        "least squares over the first-block extras of " + names +
                            (any_cache ? ", with host.startup_s_per_host and host.cache_fill_bytes_per_s"
                                       : ", with host.startup_s_per_host")});
    c.values.push_back({"host.startup_s_per_host", best.b, "s",
                        slope ? "with host.startup_s (kept >= 0)" : "0: the points give one host count, no slope",
                        slope});
    if (any_cache) {
      c.values.push_back({"host.cache_fill_bytes_per_s", best.rate, "B/s",
                          "with host.startup_s: the stored bytes of their shards the hosts of the runs that cache "
                          "decoded examples decode in the first epoch beyond its steps"});
    } else {
      c.values.push_back({"host.cache_fill_bytes_per_s", input.host.cache_fill_bytes_per_s, "B/s",
                          "kept: no declared first block fills a cache", false});
    }
    system.host.startup_s = best.a;
    system.host.startup_s_per_host = best.b;
    system.host.cache_fill_bytes_per_s = any_cache ? best.rate : input.host.cache_fill_bytes_per_s;
  } else {
    const std::string kept = "kept: no model declares a first block";
    c.values.push_back({"host.startup_s", input.host.startup_s, "", kept, false});
    c.values.push_back({"host.startup_s_per_host", input.host.startup_s_per_host, "", kept, false});
    c.values.push_back({"host.cache_fill_bytes_per_s", input.host.cache_fill_bytes_per_s, "", kept, false});
    system.host.startup_s = input.host.startup_s;
    system.host.startup_s_per_host = input.host.startup_s_per_host;
    system.host.cache_fill_bytes_per_s = input.host.cache_fill_bytes_per_s;
  }

  // Every point after the fit.
  for (const CalibrationTarget& t : targets) {
    PODBENCH_ASSIGN_OR_RETURN(CalibrationTarget::Priced p, Price(t, system));
    PointFit f{t.model, t.point, 0};
    switch (t.point.kind) {
      case CalibrationKind::kBlock: f.predicted_s = p.row.median_gap_s; break;
      case CalibrationKind::kFirstBlockExtra: f.predicted_s = p.row.first_epoch_extra_s; break;
      case CalibrationKind::kInputBound: f.predicted_s = p.per_host_step_bytes / p.row.step_s; break;
      case CalibrationKind::kScoring: f.predicted_s = p.scoring_s; break;
    }
    c.points.push_back(std::move(f));
  }
  return c;
}

}  // namespace podbench::projection
