#include "submission/benchmark_meta.h"

#include <charconv>
#include <map>
#include <utility>

namespace podbench::submission {
namespace {

using Table = std::map<std::string, std::vector<std::string>>;

const std::map<std::string, Table>& Allowed() {
  static const std::map<std::string, Table> kAllowed = {
      {"training",
       {
           {"0.6", {"resnet", "ssd", "maskrcnn", "gnmt", "transformer", "ncf", "minigo"}},
           {"0.7", {"bert", "dlrm", "gnmt", "maskrcnn", "minigo", "resnet", "ssd", "transformer"}},
           {"1.0", {"bert", "dlrm", "maskrcnn", "minigo", "resnet", "ssd", "rnnt", "unet3d"}},
           {"1.1", {"bert", "dlrm", "maskrcnn", "minigo", "resnet", "ssd", "rnnt", "unet3d"}},
           {"2.0", {"bert", "dlrm", "maskrcnn", "minigo", "resnet", "ssd", "rnnt", "unet3d"}},
           {"2.1", {"bert", "dlrm", "maskrcnn", "minigo", "resnet", "ssd", "rnnt", "unet3d"}},
           {"3.0", {"bert", "dlrm_dcnv2", "gpt3", "maskrcnn", "resnet", "ssd", "rnnt", "unet3d"}},
           {"3.1", {"bert", "dlrm_dcnv2", "gpt3", "maskrcnn", "resnet", "ssd", "rnnt", "unet3d", "stable_diffusion"}},
           {"4.0", {"bert", "dlrm_dcnv2", "gpt3", "resnet", "ssd", "unet3d", "stable_diffusion", "llama2_70b_lora", "gnn"}},
           {"4.1", {"bert", "dlrm_dcnv2", "gpt3", "ssd", "stable_diffusion", "llama2_70b_lora", "gnn"}},
           {"5.0", {"bert", "dlrm_dcnv2", "retinanet", "stable_diffusion", "llama2_70b_lora", "rgat", "llama31_405b"}},
           {"5.1", {"llama31_8b", "dlrm_dcnv2", "retinanet", "flux1", "llama2_70b_lora", "rgat", "llama31_405b"}},
           {"6.0", {"llama31_8b", "dlrm_dcnv2", "flux1", "llama2_70b_lora", "llama31_405b", "gpt_oss_20b", "deepseekv3_671b"}},
           {"6.1", {"llama31_8b", "flux1", "llama2_70b_lora", "gpt_oss_20b", "deepseekv3_671b", "qwen35_397b_grpo"}},
       }},
      {"hpc",
       {
           {"0.7", {"cosmoflow", "deepcam"}},
           {"1.0", {"cosmoflow", "deepcam", "oc20"}},
           {"2.0", {"cosmoflow", "deepcam", "oc20"}},
           {"3.0", {"cosmoflow", "deepcam", "oc20", "openfold"}},
       }},
  };
  return kAllowed;
}

const std::map<std::string, std::map<std::string, int>>& Counts() {
  static const std::map<std::string, std::map<std::string, int>> kCounts = {
      {"training",
       {{"bert", 10}, {"dlrm", 5}, {"dlrm_dcnv2", 10}, {"gnmt", 10}, {"gpt3", 3}, {"maskrcnn", 5},
        {"minigo", 10}, {"resnet", 5}, {"ssd", 5}, {"retinanet", 5}, {"stable_diffusion", 10},
        {"transformer", 10}, {"ncf", 10}, {"rnnt", 10}, {"unet3d", 40}, {"gnn", 10}, {"rgat", 10},
        {"llama2_70b_lora", 10}, {"llama31_405b", 3}, {"llama31_8b", 10}, {"flux1", 10},
        {"gpt_oss_20b", 10}, {"deepseekv3_671b", 3}, {"qwen35_397b_grpo", 3}}},
      {"hpc", {{"deepcam", 5}, {"cosmoflow", 10}, {"oc20", 5}, {"openfold", 10}}},
  };
  return kCounts;
}

}  // namespace

Result<RulesetVersion> ParseRuleset(const std::string& ruleset) {
  RulesetVersion v;
  int* parts[3] = {&v.major, &v.minor, &v.patch};
  const char* p = ruleset.data();
  const char* end = p + ruleset.size();
  for (int i = 0; i < 3; ++i) {
    auto [next, ec] = std::from_chars(p, end, *parts[i]);
    if (ec != std::errc() || next == p || *parts[i] < 0) {
      return Status::InvalidArgument("rule set '" + ruleset + "' is not a version X.Y.Z");
    }
    p = next;
    if (i < 2) {
      if (p == end || *p != '.') return Status::InvalidArgument("rule set '" + ruleset + "' is not a version X.Y.Z");
      ++p;
    }
  }
  if (p != end) return Status::InvalidArgument("rule set '" + ruleset + "' is not a version X.Y.Z");
  return v;
}

Result<std::vector<std::string>> AllowedBenchmarks(const std::string& usage, const std::string& ruleset) {
  auto u = Allowed().find(usage);
  if (u == Allowed().end()) return Status::NotFound("usage '" + usage + "' is not known (training or hpc)");
  auto r = u->second.find(ruleset);
  if (r == u->second.end()) {
    size_t dot = ruleset.rfind('.');
    if (dot != std::string::npos) r = u->second.find(ruleset.substr(0, dot));
  }
  if (r == u->second.end()) return Status::NotFound("rule set " + ruleset + " is not known for " + usage);
  return r->second;
}

std::optional<int> ResultFileCount(const std::string& usage, const std::string& benchmark) {
  auto u = Counts().find(usage);
  if (u == Counts().end()) return std::nullopt;
  auto b = u->second.find(benchmark);
  if (b == u->second.end()) return std::nullopt;
  return b->second;
}

int AllowedFailingLogs(const std::string& benchmark) { return benchmark == "unet3d" ? 4 : 1; }

bool RunsSeedAndRcpChecks(const RulesetVersion& v) { return v.AtLeast(1, 0); }

}  // namespace podbench::submission
