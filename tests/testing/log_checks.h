// Checks of an MLPerf log that podbench wrote, shared by the workloads'
// end-to-end tests.
#pragma once

#include <initializer_list>
#include <string>

namespace podbench::testing {

// `podbench check --quiet LOG` with podbench's own v0.6 rules and, when
// ../shared is here, with the official 0.6.0 rule files (`official_flags`
// appended to that call, e.g. "--config training_0.6.0/minigo.yaml"): each
// must exit 0, else a test failure carrying check's output. Without ../shared
// only podbench's rules run (the official ones are fixtures).
void ExpectLogPassesBothRuleSets(const std::string& log, const std::string& official_flags = "");

// Each of `keys` (e.g. "global_batch_size:") occurs exactly once in the log
// text `text`, as " KEY" (a test failure names each that does not).
void ExpectEachKeyOnce(const std::string& text, std::initializer_list<const char*> keys);

// `podbench scaling WORKLOAD --preset google-v0.6 --db DB`: the JSON has
// `rows` rows, each with a predicted score and block time, and the text
// table names `slice`.
void ExpectScalingTable(const std::string& workload, const std::string& db, int rows, const std::string& slice);

}  // namespace podbench::testing
