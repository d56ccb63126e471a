// libFuzzer target: the MLPerf log line parser, both formats, the streaming
// reader over the input as a whole log, and the conversion of parsed values
// into interpreter values. Differential: the checker's direct JSON -> value
// builder (py::JsonToVal) must accept, reject and build exactly what
// mllog::ParseJson + py::FromJson do; a difference aborts.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "rules/mllog/reader.h"
#include "rules/py/value.h"

namespace {

namespace mllog = podbench::mllog;
namespace py = podbench::rules::py;

void CheckJsonBuildersAgree(std::string_view text) {
  mllog::Value tree;
  std::string tree_error, direct_error;
  bool tree_ok = mllog::ParseJson(text, &tree, &tree_error);
  py::JsonToVal builder;
  py::Val direct;
  bool direct_ok = builder.Parse(text, &direct, &direct_error);
  if (tree_ok != direct_ok) std::abort();
  if (!tree_ok && tree_error != direct_error) std::abort();
  if (tree_ok && py::Repr(direct) != py::Repr(py::FromJson(tree))) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view line(reinterpret_cast<const char*>(data), size);
  for (auto format : {mllog::Format::kMll, mllog::Format::kMllog}) {
    mllog::Record r;
    std::string error;
    if (mllog::ParseLine(line, format, 0, 1, &r, &error)) {
      auto v = py::FromJson(r.value);
      (void)py::Repr(v);
    }
    auto reader = mllog::LogReader::FromString(std::string(line), format);
    mllog::RawRecord raw;
    while (reader->NextRaw(&raw)) {
      mllog::Record rec;
      mllog::ToRecord(raw, format, &rec);
      CheckJsonBuildersAgree(raw.value_json);
    }
  }
  CheckJsonBuildersAgree(line);
  return 0;
}
