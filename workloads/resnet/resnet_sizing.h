// The functional ResNet's size: the network its functional_* hyperparameters
// describe, and the host memory a run of it is estimated to need (the
// harness refuses a run that would not fit the machine).
#pragma once

#include <cstdint>
#include <vector>

#include "base/status.h"
#include "workloads/resnet/resnet_model.h"
#include "workloads/workload.h"

namespace podbench::resnet {

// The network of functional_image_size, functional_width, functional_classes
// and functional_blocks ("a,b,c,d": bottlenecks per stage). InvalidArgument
// naming the hyperparameter when the blocks are not four counts 1..64 or the
// sizes fail ResNetConfig::Validate.
Result<ResNetConfig> FunctionalNet(const workloads::Hyperparameters& hp);

// Peak host memory of a functional run, estimated (bytes, saturating at
// INT64_MAX): the generated images held in memory (training and held-out;
// with input=jpeg the held-out ones and 4 prefetched training batches), per
// emulated core the activations and their gradients at the per-core batch
// plus kernel scratch of two of the largest tensor (FunctionalResNet's
// buffers and the convolutions' converted inputs), and the fp32 weights,
// momentum and per-core gradient buffers (and per-core weight replicas with
// weight-update sharding).
int64_t FunctionalHostBytes(const std::vector<Layer>& layers, const workloads::Hyperparameters& hp,
                            const workloads::SliceInfo& slice);

}  // namespace podbench::resnet
