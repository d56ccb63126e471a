// Fuzz target: the RCP parsers and check. The first byte picks the input:
// an RCP JSON file (ParseRcpTable) or a result log (ReadRunConvergence, then
// CheckRcp over two copies of it against a fixed two-point table). Asserts
// nothing but that each returns (no crash, no UB, no leak).
#include <cstddef>
#include <cstdint>
#include <string>

#include "submission/rcp.h"

namespace {

const char* kTable = R"({
  "bert_a": {"Benchmark": "bert", "BS": 256, "Hyperparams": {}, "Epochs to converge": [1,2,3,4,5,6,7,8,9,10]},
  "bert_b": {"Benchmark": "bert", "BS": 1024, "Hyperparams": {}, "Epochs to converge": [3,4,5,6,7,8,9,10,11,12]}
})";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  using namespace podbench::submission;
  if (data[0] & 1) {
    auto t = ParseRcpTable(text, "fuzz.json", "training", "4.0.0", "bert");
    (void)t.ok();
  } else {
    const auto run = ReadRunConvergence(text, (data[0] & 2) ? "3.1.0" : "4.0.0", (data[0] & 4) != 0);
    RcpOptions o;
    o.ruleset = "4.0.0";
    o.pass = (data[0] & 8) ? RcpPass::kFull : RcpPass::kPruned;
    auto v = CheckRcp({run, run, run}, o, [](const std::string& b) {
      return ParseRcpTable(kTable, "table.json", "training", "4.0.0", b);
    });
    (void)v.pass;
  }
  return 0;
}
