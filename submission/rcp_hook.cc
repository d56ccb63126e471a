#include "submission/rcp_hook.h"

#include "submission/rcp.h"

namespace podbench::submission {
namespace {

// The RCP check of submission/rcp.h over a walked tree: each result log is
// read through ReadTreeFile (bounded, links checked), the RCP files come from
// the --mlperf-logging folder, and the normalization factor is returned, not
// written.
class OfficialRcpCheck : public RcpCheck {
 public:
  RcpOutcome Check(const RcpRequest& req) const override {
    RcpOutcome out;
    if (req.tree == nullptr || req.dir == nullptr || req.logging == nullptr) {
      out.message = "internal: incomplete RCP request";
      return out;
    }
    std::vector<RunConvergence> runs;
    for (const auto& f : req.dir->result_files) {
      auto text = ReadTreeFile(*req.tree, f.path, WalkLimits{}.max_file_bytes);
      if (!text.ok()) {
        out.state = RcpOutcome::State::kFail;
        out.message = "cannot read " + f.path + ": " + text.status().message();
        return out;
      }
      runs.push_back(ReadRunConvergence(*text, req.ruleset, req.bert_train_samples));
    }
    RcpOptions o;
    o.usage = req.usage;
    o.ruleset = req.ruleset;
    o.bert_train_samples = req.bert_train_samples;
    o.bypass = req.bypass;
    const RcpVerdict v = CheckRcp(runs, o, FileRcpLoader(req.logging->root, req.usage, req.ruleset));
    out.state = v.pass ? RcpOutcome::State::kPass : RcpOutcome::State::kFail;
    out.message = v.message;
    // The official checker writes scaling.json only for a pass faster than the RCP mean.
    if (v.pass && v.record && v.submission_mean && *v.submission_mean < v.record->mean) {
      out.scaling_factor = v.norm_factor;
    }
    return out;
  }
};

}  // namespace

std::unique_ptr<RcpCheck> MakeRcpCheck() { return std::make_unique<OfficialRcpCheck>(); }

}  // namespace podbench::submission
