// "gnmt": the model's registration. Only its full-size graph and Google's
// v0.6 step configurations exist so far (`podbench model gnmt`); its
// workload plugin registers here when it lands.
#include "workloads/gnmt/gnmt_google_v06.h"
#include "workloads/gnmt/gnmt_graph.h"
#include "workloads/registry.h"

namespace podbench::gnmt {

PODBENCH_REGISTER_MODEL("gnmt")
    ->Presets({"google-v0.6"})
    ->Zoo("GNMT, 4+4 LSTM layers of 1024, bidirectional first layer, normalized Bahdanau attention, 32k BPE",
          "parameters: the MLPerf v0.6 reference GNMT, 160,671,297 as NVIDIA's v0.6 log prints it "
          "(fixtures/logs/v0.6/NVIDIA/.../gnmt/result_0.txt), reconciled with Google's TF variant; no published "
          "FLOPs: derived by hand")
    ->ZooGraph(&workloads::GraphAtDefaults<&BuildGnmtGraph>, &GoogleV06Preset);

}  // namespace podbench::gnmt
