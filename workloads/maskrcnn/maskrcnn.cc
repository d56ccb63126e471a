// "maskrcnn": the model's registration. Only its full-size graph and
// Google's v0.6 step configurations exist so far (`podbench model
// maskrcnn`); its workload plugin registers here when it lands.
#include "workloads/maskrcnn/maskrcnn_google_v06.h"
#include "workloads/maskrcnn/maskrcnn_graph.h"
#include "workloads/registry.h"

namespace podbench::maskrcnn {

PODBENCH_REGISTER_MODEL("maskrcnn")
    ->Presets({"google-v0.6"})
    ->Zoo("Mask R-CNN ResNet-50-FPN, 832x1344, 512 ROIs (128 masked), frozen BN, conv0+res2 frozen",
          "parameters: torchvision maskrcnn_resnet50_fpn (44,401,393; its frozen BN scale/shift are buffers) + "
          "53,120 frozen BN scale/shift; backbone+RPN conv FLOPs: detectron2 tests/test_model_analysis.py "
          "(117 G multiply-adds at 800x800, its R-50 striding the 1x1)")
    ->ZooGraph(&workloads::GraphAtDefaults<&BuildMaskRcnnGraph>, &GoogleV06Preset);

}  // namespace podbench::maskrcnn
