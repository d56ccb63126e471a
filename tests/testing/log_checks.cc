#include "tests/testing/log_checks.h"

#include <nlohmann/json.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/testing/shared_dir.h"
#include "tests/testing/temp_dir.h"

namespace podbench::testing {

void ExpectLogPassesBothRuleSets(const std::string& log, const std::string& official_flags) {
  int rc = -1;
  std::string out = Podbench("check --quiet " + log, &rc);
  EXPECT_EQ(rc, 0) << "podbench's v0.6 rules on " << log << ":\n" << out;
  if (auto shared = SharedDir()) {
    out = Podbench("check --quiet --ruleset 0.6.0 --rules-dir " + (*shared / "fixtures" / "mlperf-logging-rules").string() +
                       (official_flags.empty() ? "" : " " + official_flags) + " " + log,
                   &rc);
    EXPECT_EQ(rc, 0) << "the official 0.6.0 rules on " << log << ":\n" << out;
  }
}

void ExpectEachKeyOnce(const std::string& text, std::initializer_list<const char*> keys) {
  for (const char* k : keys) EXPECT_EQ(CountOccurrences(text, std::string(" ") + k), 1) << k;
}

void ExpectScalingTable(const std::string& workload, const std::string& db, int rows, const std::string& slice) {
  int rc = -1;
  const std::string json = Podbench("scaling " + workload + " --preset google-v0.6 --format json --db " + db, &rc);
  ASSERT_EQ(rc, 0) << json;
  const nlohmann::json j = nlohmann::json::parse(json, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << json;
  int checked = 0;
  for (const auto& row : j["rows"]) {
    EXPECT_FALSE(row["predicted_min"].is_null()) << row.dump();
    EXPECT_FALSE(row["block_s"].is_null()) << row.dump();
    ++checked;
  }
  EXPECT_EQ(checked, rows);
  const std::string table = Podbench("scaling " + workload + " --preset google-v0.6 --db " + db, &rc);
  ASSERT_EQ(rc, 0) << table;
  EXPECT_THAT(table, ::testing::HasSubstr(slice));
  EXPECT_THAT(table, ::testing::HasSubstr("pub_min"));
}

}  // namespace podbench::testing
