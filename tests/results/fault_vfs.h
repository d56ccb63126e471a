// A fault-injecting SQLite VFS for tests, in the spirit of leveldb's
// FaultInjectionTestEnv: it forwards every call to the default VFS, and while
// armed makes writes (and syncs) fail with SQLITE_FULL, as a full disk would.
#pragma once

namespace podbench::testing {

// The VFS name to pass as StoreOptions::vfs. Registers it on first use.
const char* FaultVfsName();

// While armed, every xWrite/xTruncate/xSync through the VFS fails with SQLITE_FULL.
void SetWriteFaults(bool armed);

}  // namespace podbench::testing
