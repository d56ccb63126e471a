// An mlperf_logging folder for tests, laid out from ../shared's fixtures:
// compliance_checker/ -> fixtures/mlperf-logging-rules, rcp_checker/ and
// result_summarizer/ -> fixtures/mlperf-logging-data/.
#pragma once

#include <filesystem>

#include "tests/testing/temp_dir.h"

namespace podbench::testing {

class MlperfLoggingFixture {
 public:
  explicit MlperfLoggingFixture(const std::filesystem::path& shared) {
    const auto fx = shared / "fixtures";
    std::filesystem::create_directory_symlink(fx / "mlperf-logging-rules", dir_ / "compliance_checker");
    std::filesystem::create_directory_symlink(fx / "mlperf-logging-data/rcp_checker", dir_ / "rcp_checker");
    std::filesystem::create_directory_symlink(fx / "mlperf-logging-data/result_summarizer", dir_ / "result_summarizer");
  }
  const std::filesystem::path& path() const { return dir_.path(); }

 private:
  TempDir dir_;
};

}  // namespace podbench::testing
