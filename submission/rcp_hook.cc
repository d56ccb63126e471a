#include "submission/rcp_hook.h"

namespace podbench::submission {

// Replaced by the RCP checker (podbench rcp) when it lands.
std::unique_ptr<RcpCheck> MakeRcpCheck() { return nullptr; }

}  // namespace podbench::submission
