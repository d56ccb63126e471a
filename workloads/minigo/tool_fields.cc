#include "workloads/minigo/tool_fields.h"

#include <cmath>
#include <cstdlib>

namespace podbench::minigo {

Status ParseToolFields(const std::string& tool, const std::vector<std::string>& args,
                       std::map<std::string, double>* fields) {
  for (const std::string& kv : args) {
    const size_t eq = kv.find('=');
    const std::string key = kv.substr(0, eq);
    if (eq == std::string::npos || !fields->contains(key)) {
      std::string known;
      for (const auto& [k, v] : *fields) known += (known.empty() ? "" : ", ") + k;
      return Status::InvalidArgument(tool + ": argument '" + kv + "' is not FIELD=VALUE with a known field (" +
                                     known + ")");
    }
    const char* text = kv.c_str() + eq + 1;
    char* end = nullptr;
    const double v = std::strtod(text, &end);
    if (end == text || *end != '\0' || !std::isfinite(v)) {
      return Status::InvalidArgument(tool + ": " + key + " = '" + text + "' is not a number");
    }
    (*fields)[key] = v;
  }
  return Status::Ok();
}

}  // namespace podbench::minigo
