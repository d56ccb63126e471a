#include "results/bench_samples.h"

#include <algorithm>
#include <cmath>
#include <map>

#include <nlohmann/json.hpp>

namespace podbench::results {
namespace {

// Nanoseconds per `time_unit` of Google Benchmark; 0 for an unknown unit.
double NsPer(const std::string& unit) {
  if (unit == "ns") return 1;
  if (unit == "us") return 1e3;
  if (unit == "ms") return 1e6;
  if (unit == "s") return 1e9;
  return 0;
}

// `name` without the components that say how it was measured rather than
// what ("min_time:0.010", "min_warmup_time:...", "repeats:3"), so that sets
// measured with other --min-time or --repetitions still match.
std::string WithoutMeasurementSettings(const std::string& name) {
  std::string out;
  size_t start = 0;
  for (;;) {
    const size_t end = name.find('/', start);
    const std::string part = name.substr(start, end == std::string::npos ? std::string::npos : end - start);
    const bool setting = part.rfind("min_time:", 0) == 0 || part.rfind("min_warmup_time:", 0) == 0 ||
                         part.rfind("repeats:", 0) == 0;
    if (!setting || start == 0) out += (out.empty() ? "" : "/") + part;
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return out;
}

BenchSamples& Entry(std::vector<BenchSamples>& out, std::map<std::string, size_t>& index,
                    const std::string& name) {
  auto [it, fresh] = index.emplace(name, out.size());
  if (fresh) out.push_back({name, {}, false});
  return out[it->second];
}

}  // namespace

Result<std::vector<BenchSamples>> ParseGoogleBenchmarkJson(
    std::string_view text, const std::string& source,
    std::vector<std::pair<std::string, std::string>>* errored) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Status::InvalidArgument(source + ": not valid JSON");
  if (!j.is_object() || !j.contains("benchmarks") || !j["benchmarks"].is_array()) {
    return Status::InvalidArgument(source +
                                   ": not a Google Benchmark JSON report (no \"benchmarks\" array)");
  }
  std::vector<BenchSamples> out;
  std::map<std::string, size_t> index;
  std::map<std::string, BenchRepetition> medians;  // run name -> the median aggregate
  for (const nlohmann::json& b : j["benchmarks"]) {
    if (!b.is_object()) continue;
    const std::string name =
        WithoutMeasurementSettings(b.value("run_name", b.value("name", std::string())));
    if (b.value("error_occurred", false)) {
      if (errored != nullptr && std::none_of(errored->begin(), errored->end(),
                                             [&](const auto& e) { return e.first == name; })) {
        errored->emplace_back(name, b.value("error_message", std::string()));
      }
      continue;
    }
    const std::string unit = b.value("time_unit", std::string("ns"));
    const double scale = NsPer(unit);
    if (name.empty() || scale == 0 || !b.contains("real_time") || !b["real_time"].is_number()) {
      return Status::InvalidArgument(source + ": benchmark entry '" + b.value("name", std::string()) +
                                     "' has no run name, real_time or known time_unit ('" + unit +
                                     "')");
    }
    BenchRepetition rep;
    rep.real_time_ns = b["real_time"].get<double>() * scale;
    if (b.contains("cpu_time") && b["cpu_time"].is_number()) {
      rep.cpu_time_ns = b["cpu_time"].get<double>() * scale;
    }
    rep.iterations = b.value("iterations", int64_t{0});
    const std::string run_type = b.value("run_type", std::string("iteration"));
    const bool aggregate = run_type == "aggregate";
    if (aggregate && b.value("aggregate_name", std::string()) != "median") continue;  // mean, stddev, cv
    // A time of zero or less cannot be a measurement, and a ratio to it
    // means nothing; one that overflows in nanoseconds is not one either.
    if (!std::isfinite(rep.real_time_ns) || rep.real_time_ns <= 0) {
      return Status::InvalidArgument(source + ": benchmark '" + name + "' has real_time " +
                                     b["real_time"].dump() + " " + unit +
                                     ", not a positive time a comparison can use");
    }
    if (aggregate) {
      medians[name] = rep;
    } else {
      Entry(out, index, name).repetitions.push_back(rep);
    }
  }
  for (const auto& [name, rep] : medians) {
    if (index.count(name) != 0) continue;
    BenchSamples& e = Entry(out, index, name);
    e.repetitions.push_back(rep);
    e.median_only = true;
  }
  if (out.empty()) return Status::InvalidArgument(source + ": the report holds no benchmark result");
  return out;
}

std::vector<BenchSamples> SamplesFromRecords(const std::vector<KernelBenchRecord>& records) {
  std::vector<BenchSamples> out;
  std::map<std::string, size_t> index;
  for (const KernelBenchRecord& k : records) {
    BenchSamples& e = Entry(out, index, k.Key());
    if (k.repetitions.empty()) {
      e.repetitions.push_back({k.median_ns, std::nullopt, k.iterations});
      e.median_only = true;
    } else {
      e.repetitions.insert(e.repetitions.end(), k.repetitions.begin(), k.repetitions.end());
    }
  }
  return out;
}

}  // namespace podbench::results
