#include "workloads/resnet/resnet_sizing.h"

#include <algorithm>
#include <cstdlib>
#include <string>

namespace podbench::resnet {

Result<ResNetConfig> FunctionalNet(const workloads::Hyperparameters& hp) {
  ResNetConfig c;
  c.image_size = static_cast<int>(hp.Int("functional_image_size"));
  c.width = static_cast<int>(hp.Int("functional_width"));
  c.num_classes = static_cast<int>(hp.Int("functional_classes"));
  const std::string& b = hp.String("functional_blocks");
  int stage = 0;
  size_t pos = 0;
  while (pos <= b.size() && stage < 4) {
    size_t comma = b.find(',', pos);
    std::string item = b.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    char* end = nullptr;
    long v = std::strtol(item.c_str(), &end, 10);
    if (item.empty() || *end != '\0' || v < 1 || v > 64) break;
    c.blocks[static_cast<size_t>(stage++)] = static_cast<int>(v);
    if (comma == std::string::npos) {
      pos = b.size() + 1;
      break;
    }
    pos = comma + 1;
  }
  if (stage != 4 || pos != b.size() + 1) {
    return Status::InvalidArgument("functional_blocks '" + b + "': expected four positive counts, e.g. 1,1,1,1");
  }
  PODBENCH_RETURN_IF_ERROR(c.Validate().WithContext("functional_image_size/width/classes"));
  return c;
}

int64_t FunctionalHostBytes(const std::vector<Layer>& layers, const workloads::Hyperparameters& hp,
                            const workloads::SliceInfo& slice) {
  const double side = static_cast<double>(hp.Int("functional_image_size"));
  const double image = side * side * 3;
  double tensors = image, most = image;
  for (const Layer& l : layers) {
    if (l.kind == LayerKind::kSoftmaxXent) continue;
    tensors += static_cast<double>(l.out_elems());
    most = std::max(most, static_cast<double>(l.out_elems()));
  }
  const double batch = static_cast<double>(hp.Int("global_batch_size"));
  const double cores = static_cast<double>(slice.cores);
  const double train = static_cast<double>(hp.Int("functional_train_examples"));
  const double eval = static_cast<double>(hp.Int("functional_eval_examples"));
  const double data = image * (eval + (hp.String("input") == "jpeg" ? 4 * batch : train));
  const double activations = batch * (2 * tensors + 2 * most);  // summed over the cores
  const double params = static_cast<double>(TotalParams(layers));
  const double weights = params * (2 + cores * (hp.Bool("weight_update_sharding") ? 2 : 1));
  const double bytes = 4 * (data + activations + weights);
  return bytes >= 9.2e18 ? INT64_MAX : static_cast<int64_t>(bytes);
}

}  // namespace podbench::resnet
