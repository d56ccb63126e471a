// The system-description check (systems/<system>.json), with the official
// mlperf_logging.system_desc_checker's rules (4.1.59):
//   - every required field present ("Missing field F");
//   - training, rule set 4.0.0 and later: `status` one of the availability
//     options ("Field status contains a non valid value: ...").
// Where the official tools crash, podbench gives a verdict instead:
//   - text that is not JSON, or JSON that is not an object: FAIL, naming the
//     file and (for JSON errors) the line and column (SystemDescResult::line);
//   - a required field that is not a string where the summary table joins it
//     (the official checker raises TypeError): FAIL "Field F is not a string";
//   - `division` other than "closed" or "open" (the package checker reads a
//     missing one with KeyError and treats any other value as open): FAIL
//     "Field division contains a non valid value: ...". Podbench adds this
//     check so a misspelling cannot move a closed submission past the seed and
//     RCP checks.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace podbench::submission {

struct SystemDescResult {
  std::string file;         // as given (for messages)
  // The 1-based line of the JSON syntax error when the text is not JSON, else 0.
  int64_t line = 0;
  std::string system_name;  // "" when absent or not a string
  bool valid = false;
  std::vector<std::string> errors;  // one reason each, in the official wording where there is one
  // `division` as written ("" when absent or not a string), and whether it is
  // exactly "closed" (the package checker's test).
  std::string division;
  bool closed = false;
  // Every field whose value is a string (the summarizer's columns read these).
  std::map<std::string, std::string> fields;
};

// Checks one system description. `usage` is "training" or "hpc"; `ruleset`
// must already be a valid X.Y.Z (ParseRuleset). Never fails: bad input is an
// invalid result with reasons.
SystemDescResult CheckSystemDesc(std::string_view json_text, const std::string& file, const std::string& usage,
                                 const std::string& ruleset);

// The official log line for a result: "System description checker passed for
// NAME" or "System description checker failed for NAME : [reasons]".
std::string SystemDescSummaryLine(const SystemDescResult& r);

}  // namespace podbench::submission
