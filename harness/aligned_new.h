// The podbench executable's operator new (aligned_new.cc): blocks of 1 KiB or
// more on a 64-byte boundary. Linked into the executable only, never into a
// library.
#pragma once

namespace podbench {

// Whether this program's operator new is aligned_new.cc's: false in a
// sanitizer build, which keeps the sanitizer's own.
bool AlignedNewInstalled();

}  // namespace podbench
