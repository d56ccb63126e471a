// The HTML report of a results store, as `report --html` and `reproduce`
// write it: results/ gathers the data and renders it; this supplies what only
// the workloads know (the hyperparameters a preset sets on a slice, which
// tell ablation runs from baseline runs) and writes the file.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"
#include "results/report_data.h"
#include "results/store.h"

namespace podbench::cli {

struct HtmlReportRequest {
  std::string path;      // the file written
  std::string workload;  // empty = every workload in the store
  std::string title = "podbench report";
  std::string preamble;  // a paragraph under the title, plain text
  std::vector<results::ClaimRow> claims;  // the seed papers' claims tested (reproduce), drawn first
};

// IOError naming the file when it cannot be written; the store's errors.
Status WriteHtmlReport(results::ResultsStore& store, const HtmlReportRequest& request);

}  // namespace podbench::cli
