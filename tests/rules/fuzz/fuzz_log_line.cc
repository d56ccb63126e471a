// libFuzzer target: the MLPerf log line parser, both formats, and the
// conversion of parsed values into interpreter values.
#include <cstddef>
#include <cstdint>
#include <string>

#include "rules/mllog/reader.h"
#include "rules/py/value.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view line(reinterpret_cast<const char*>(data), size);
  for (auto format : {podbench::mllog::Format::kMll, podbench::mllog::Format::kMllog}) {
    podbench::mllog::Record r;
    std::string error;
    if (podbench::mllog::ParseLine(line, format, 0, 1, &r, &error)) {
      auto v = podbench::rules::py::FromJson(r.value);
      (void)podbench::rules::py::Repr(v);
    }
  }
  return 0;
}
