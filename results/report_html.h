// The HTML report (`podbench report --html FILE`, and `podbench reproduce`):
// one self-contained file, inline SVG and CSS, no scripts, no network, no
// external fonts. Per workload: the scaling curves predicted against
// published (time to train and block time against chips, log axes), the step
// time breakdown per slice (stacked bars over whatever categories the store
// holds), ablations (paired bars, baseline against ablation), the accuracy
// of functional runs against epochs with the target, and the verdicts of
// labelled run sets. Every plot is a <figure> with its table beside it
// (data-plot / data-table name the pair); a section without data says so.
// The layout wraps in a narrow window and prints in black and white.
//
// Ownership: results/ renders what it stores, in every format (text, JSON,
// CSV in export.h; HTML and SVG here, plots in report_svg.h); the harness
// only gathers the data (report_data.h) and writes the file.
#pragma once

#include <string>

#include "results/report_data.h"

namespace podbench::results {

struct HtmlReportOptions {
  std::string generator;  // e.g. "podbench 0.1.0 (git abc123)", shown in the header
  std::string title = "podbench report";
  std::string preamble;   // an optional paragraph under the title (plain text)
};

std::string RenderHtmlReport(const ReportData& data, const HtmlReportOptions& options);

}  // namespace podbench::results
