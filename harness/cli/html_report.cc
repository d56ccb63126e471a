#include "harness/cli/html_report.h"

#include <fstream>
#include <map>
#include <tuple>

#include "base/version.h"
#include "harness/run/settings.h"
#include "results/report_data.h"
#include "results/report_html.h"

namespace podbench::cli {
namespace {

// What `podbench run` would record as the hyperparameters of `r`'s workload,
// slice, mode and preset without any --set, with the built-in system.
// Cached per (workload, slice, mode, preset).
class PresetHyperparameters {
 public:
  std::optional<nlohmann::json> operator()(const results::RunRecord& r) {
    auto key = std::make_tuple(r.run.workload, r.run.slice, r.run.mode, r.run.preset);
    auto it = cache_.find(key);
    if (it != cache_.end()) return it->second;
    harness::RunRequest req;
    req.workload = r.run.workload;
    req.slice = r.run.slice;
    req.mode = r.run.mode;
    req.preset = r.run.preset;
    req.seed = 0;
    std::optional<nlohmann::json> hp;
    if (auto s = harness::Normalize(req); s.ok()) {
      auto j = nlohmann::json::parse(s->HyperparametersJson(), nullptr, false);
      if (!j.is_discarded()) hp = std::move(j);
    }
    cache_.emplace(key, hp);
    return hp;
  }

 private:
  std::map<std::tuple<std::string, std::string, std::string, std::string>, std::optional<nlohmann::json>>
      cache_;
};

}  // namespace

Status WriteHtmlReport(results::ResultsStore& store, const HtmlReportRequest& request) {
  auto presets = std::make_shared<PresetHyperparameters>();
  PODBENCH_ASSIGN_OR_RETURN(
      results::ReportData data,
      results::BuildReportData(
          store, [presets](const results::RunRecord& r) { return (*presets)(r); }, request.workload));
  data.claims = request.claims;
  results::HtmlReportOptions options;
  options.generator = std::string("podbench ") + Version() + " (git " + GitHash() + ")";
  options.title = request.title;
  options.preamble = request.preamble;
  const std::string html = results::RenderHtmlReport(data, options);
  std::ofstream out(request.path, std::ios::out | std::ios::trunc | std::ios::binary);
  if (!out) return Status::IOError(request.path + ": cannot create the HTML report");
  out << html;
  out.close();
  if (!out) return Status::IOError(request.path + ": writing the HTML report failed");
  return Status::Ok();
}

}  // namespace podbench::cli
