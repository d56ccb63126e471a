// "minigo": the model's registration. Only its network's graph and a
// default step configuration exist so far (`podbench model minigo`); its
// workload plugin registers here when it lands.
#include "workloads/minigo/minigo_default_preset.h"
#include "workloads/minigo/minigo_graph.h"
#include "workloads/registry.h"

namespace podbench::minigo {

PODBENCH_REGISTER_MODEL("minigo")
    ->Presets({"default"})
    ->Zoo("MiniGo 9x9, 17 input planes, 9 residual blocks of 32, policy and value heads",
          "no published parameter or FLOP count exists for the v0.6 9x9 network: derived by hand from "
          "dual_net.py and ml_perf/flags/9/architecture.flags")
    ->ZooGraph(&workloads::GraphAtDefaults<&BuildMiniGoGraph>, &DefaultPreset);

}  // namespace podbench::minigo
