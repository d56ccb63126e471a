#include "submission/system_desc.h"

#include <algorithm>
#include <array>
#include <optional>

#include "base/utf8.h"
#include "rules/mllog/value.h"
#include "submission/benchmark_meta.h"

namespace podbench::submission {
namespace {

constexpr std::array<const char*, 33> kRequiredFields = {
    "submitter", "division", "status", "system_name", "number_of_nodes", "host_processors_per_node",
    "host_processor_model_name", "host_processor_core_count", "host_processor_vcpu_count",
    "host_processor_frequency", "host_processor_caches", "host_processor_interconnect",
    "host_memory_capacity", "host_storage_type", "host_storage_capacity", "host_networking",
    "host_networking_topology", "host_memory_configuration", "accelerators_per_node",
    "accelerator_model_name", "accelerator_host_interconnect", "accelerator_frequency",
    "accelerator_on-chip_memories", "accelerator_memory_configuration", "accelerator_memory_capacity",
    "accelerator_interconnect", "accelerator_interconnect_topology", "cooling", "hw_notes", "framework",
    "other_software_stack", "operating_system", "sw_notes"};

// The fields the official checker joins into the summary table's columns.
constexpr std::array<const char*, 7> kTableFields = {
    "submitter", "system_name", "host_processor_model_name", "host_processor_core_count",
    "accelerator_model_name", "accelerators_per_node", "framework"};

constexpr std::array<const char*, 4> kAvailability = {
    "Available on-premise", "Available cloud", "Research, Development, or Internal (RDI)", "Preview"};

// Python's repr of a list of str, as the official messages print it.
template <typename List>
std::string PyList(const List& items) {
  std::string out = "[";
  bool first = true;
  for (const auto& s : items) {
    if (!first) out += ", ";
    first = false;
    std::string str(s);
    const char quote = str.find('\'') != std::string::npos && str.find('"') == std::string::npos ? '"' : '\'';
    out += quote;
    for (char c : str) {
      if (c == quote || c == '\\') out += '\\';
      out += c;
    }
    out += quote;
  }
  return out + "]";
}

std::string Shown(const mllog::Value& v) { return v.is_string() ? v.as_string() : v.ToJson(); }

}  // namespace

SystemDescResult CheckSystemDesc(std::string_view json_text, const std::string& file, const std::string& usage,
                                 const std::string& ruleset) {
  SystemDescResult r;
  r.file = file;
  mllog::Value doc;
  std::string error;
  size_t offset = 0;
  // The official checkers read the file as UTF-8 text with Python's json: a
  // byte that is not UTF-8 stops them, and so does a byte-order mark.
  bool parsed = false;
  if (const std::optional<size_t> bad = InvalidUtf8At(json_text)) {
    error = "a byte that is not UTF-8";
    offset = *bad;
  } else if (StartsWithUtf8Bom(json_text)) {
    error = "a UTF-8 byte-order mark";
  } else {
    parsed = mllog::ParseJson(json_text, &doc, &error, &offset);
  }
  if (!parsed) {
    offset = std::min(offset, json_text.size());
    const std::string_view before = json_text.substr(0, offset);
    r.line = 1 + static_cast<int64_t>(std::count(before.begin(), before.end(), '\n'));
    const size_t line_start = before.rfind('\n') == std::string_view::npos ? 0 : before.rfind('\n') + 1;
    r.errors.push_back("not valid JSON: " + error + " at line " + std::to_string(r.line) + ", column " +
                       std::to_string(offset - line_start + 1));
    return r;
  }
  if (!doc.is_dict()) {
    r.errors.push_back("not a JSON object (a system description is one object of fields)");
    return r;
  }
  for (size_t i = 0; i < doc.keys().size(); ++i) {
    if (doc.items()[i].is_string()) r.fields[doc.keys()[i]] = doc.items()[i].as_string();
  }
  for (const char* f : kRequiredFields) {
    if (doc.Find(f) == nullptr) r.errors.push_back(std::string("Missing field ") + f);
  }
  for (const char* f : kTableFields) {
    const mllog::Value* v = doc.Find(f);
    if (v != nullptr && !v->is_string()) r.errors.push_back(std::string("Field ") + f + " is not a string: " + v->ToJson());
  }
  if (const mllog::Value* name = doc.Find("system_name"); name && name->is_string()) r.system_name = name->as_string();
  if (const mllog::Value* div = doc.Find("division")) {
    if (div->is_string()) r.division = div->as_string();
    r.closed = div->is_string() && div->as_string() == "closed";
    if (!div->is_string() || (div->as_string() != "closed" && div->as_string() != "open")) {
      r.errors.push_back("Field division contains a non valid value: " + Shown(*div) +
                         ", must be one of ['closed', 'open']");
    }
  }
  auto version = ParseRuleset(ruleset);
  const mllog::Value* status = doc.Find("status");
  if (usage == "training" && version.ok() && version->major >= 4 && status != nullptr &&
      !(status->is_string() && std::find(kAvailability.begin(), kAvailability.end(), status->as_string()) !=
                                   kAvailability.end())) {
    r.errors.push_back("Field status contains a non valid value: " + Shown(*status) + ", must be one of " +
                       PyList(kAvailability));
  }
  r.valid = r.errors.empty();
  return r;
}

std::string SystemDescSummaryLine(const SystemDescResult& r) {
  if (r.valid) return "System description checker passed for " + r.system_name;
  return "System description checker failed for " + r.system_name + " : " + PyList(r.errors);
}

}  // namespace podbench::submission
