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

}  // namespace

Result<Calibration> Calibrate(const topology::SystemSpec& input, const std::vector<CalibrationTarget>& targets) {
  std::vector<const CalibrationTarget*> blocks, firsts, input_bound;
  for (const CalibrationTarget& t : targets) {
    switch (t.point.kind) {
      case CalibrationKind::kBlock: blocks.push_back(&t); break;
      case CalibrationKind::kFirstBlockExtra: firsts.push_back(&t); break;
      case CalibrationKind::kInputBound: input_bound.push_back(&t); break;
    }
  }
  if (blocks.empty()) return Status::FailedPrecondition("calibration: no model declares a published block");
  Calibration c;
  topology::SystemSpec system = input;
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
  const std::string block_names = Names(blocks);
  c.values.push_back({"core.mxu_efficiency", eff, "",
                      "least squares of the relative errors of " + std::to_string(blocks.size()) +
                          " published blocks (" + block_names + "), with core.op_overhead_s"});
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

  // Start-up: a line in hosts through the first-block extras of runs that
  // cache nothing (their extra is the start-up alone).
  std::vector<const CalibrationTarget*> plain, cached;
  std::vector<CalibrationTarget::Priced> plain_p, cached_p;
  for (const CalibrationTarget* t : firsts) {
    PODBENCH_ASSIGN_OR_RETURN(CalibrationTarget::Priced p, Price(*t, system));
    (p.caches_decoded_examples ? cached : plain).push_back(t);
    (p.caches_decoded_examples ? cached_p : plain_p).push_back(p);
  }
  double a = input.host.startup_s, b = input.host.startup_s_per_host;
  if (!plain.empty()) {
    std::set<int64_t> hosts;
    double sx = 0, sy = 0;
    for (size_t i = 0; i < plain.size(); ++i) {
      hosts.insert(plain_p[i].hosts);
      sx += static_cast<double>(plain_p[i].hosts);
      sy += plain[i]->point.published_s;
    }
    const double n = static_cast<double>(plain.size());
    b = 0;
    a = sy / n;
    if (hosts.size() >= 2) {
      double sxx = 0, sxy = 0;
      for (size_t i = 0; i < plain.size(); ++i) {
        const double x = static_cast<double>(plain_p[i].hosts) - sx / n;
        sxx += x * x;
        sxy += x * (plain[i]->point.published_s - sy / n);
      }
      b = std::max(0.0, sxy / sxx);  // a start-up does not shrink with more hosts
      a = sy / n - b * sx / n;
    }
    const std::string how = hosts.size() >= 2
                                ? "least squares line in hosts through the first-block extras of " + Names(plain) +
                                      " (runs that cache nothing: the extra is the start-up alone)"
                                : "the first-block extra of " + Names(plain) +
                                      " (a run that caches nothing: the extra is the start-up alone), read as it is";
    c.values.push_back({"host.startup_s", a, "s", how, hosts.size() >= 2});
    c.values.push_back({"host.startup_s_per_host", b, "s",
                        hosts.size() >= 2 ? "with host.startup_s" : "0: one host count, no slope to fit",
                        hosts.size() >= 2});
  } else {
    c.values.push_back({"host.startup_s", a, "s", "kept: no model declares a first block without a cache", false});
    c.values.push_back({"host.startup_s_per_host", b, "s", "kept", false});
  }
  system.host.startup_s = a;
  system.host.startup_s_per_host = b;

  // Cache fill: what the start-up leaves of the caching runs' first-block
  // extras is their hosts' cache fill beyond their first epoch's steps.
  if (!cached.empty()) {
    // Each point's exact rate: its hosts' fill (bytes) over the time the
    // first epoch's steps and what the start-up leaves of its extra take.
    std::vector<double> exact;
    for (size_t i = 0; i < cached.size(); ++i) {
      const CalibrationTarget::Priced& p = cached_p[i];
      const double startup = a + b * static_cast<double>(p.hosts);
      const double left = cached[i]->point.published_s - startup;
      if (!(left > 0)) {
        return Status::FailedPrecondition("the first block of " + cached[i]->model + " " + cached[i]->point.slice +
                                          " is no longer than the start-up alone");
      }
      exact.push_back(p.first_epoch_fill_bytes / (p.first_epoch_steps_s + left));
    }
    auto err = [&](double log_rate) -> Result<double> {
      topology::SystemSpec s = system;
      s.host.cache_fill_bytes_per_s = std::exp(log_rate);
      double sum = 0;
      for (const CalibrationTarget* t : cached) {
        PODBENCH_ASSIGN_OR_RETURN(CalibrationTarget::Priced p, Price(*t, s));
        sum += std::pow((p.row.first_epoch_extra_s - t->point.published_s) / t->point.published_s, 2);
      }
      return sum;
    };
    const auto [lo, hi] = std::minmax_element(exact.begin(), exact.end());
    double rate = *lo;
    if (*hi > *lo) {
      PODBENCH_ASSIGN_OR_RETURN(const double log_rate, Golden(err, std::log(*lo), std::log(*hi), 60));
      rate = std::exp(log_rate);
    }
    system.host.cache_fill_bytes_per_s = rate;
    c.values.push_back({"host.cache_fill_bytes_per_s", rate, "B/s",
                        (cached.size() == 1 ? "the first-block extra of " : "least squares over the first-block extras of ") +
                            Names(cached) + " after the start-up: the hosts filling their decoded-example cache"});
  } else {
    c.values.push_back({"host.cache_fill_bytes_per_s", input.host.cache_fill_bytes_per_s, "B/s",
                        "kept: no model declares a first block that fills a cache", false});
    system.host.cache_fill_bytes_per_s = input.host.cache_fill_bytes_per_s;
  }

  // Every point after the fit.
  for (const CalibrationTarget& t : targets) {
    PODBENCH_ASSIGN_OR_RETURN(CalibrationTarget::Priced p, Price(t, system));
    PointFit f{t.model, t.point, 0};
    if (t.point.kind == CalibrationKind::kBlock) f.predicted_s = p.row.median_gap_s;
    if (t.point.kind == CalibrationKind::kFirstBlockExtra) f.predicted_s = p.row.first_epoch_extra_s;
    if (t.point.kind == CalibrationKind::kInputBound) f.predicted_s = p.per_host_step_bytes / p.row.step_s;
    c.points.push_back(std::move(f));
  }
  return c;
}

}  // namespace podbench::projection
