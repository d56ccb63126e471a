// libFuzzer target: the rule-file loader (YAML, records, code parsing).
#include <cstddef>
#include <cstdint>
#include <string>

#include "rules/rule_set.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  auto f = podbench::rules::ParseRuleFile(text, "fuzz.yaml");
  (void)f.ok();
  (void)podbench::rules::ValidateRelativePath(text);
  return 0;
}
