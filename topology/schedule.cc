#include "topology/schedule.h"

#include <algorithm>
#include <tuple>

namespace podbench::topology {

uint64_t Schedule::NumTransfers() const {
  uint64_t n = 0;
  for (const Stage& st : stages) {
    for (const Stream& s : st.streams) n += s.transfers.size();
  }
  return n;
}

Status ValidateSchedule(const Schedule& schedule) {
  struct Access {
    int32_t core;
    uint64_t begin, end;
    bool write;
  };
  std::vector<Access> acc;
  for (size_t si = 0; si < schedule.stages.size(); ++si) {
    for (size_t ki = 0; ki < schedule.stages[si].streams.size(); ++ki) {
      const Stream& s = schedule.stages[si].streams[ki];
      for (int step = 0; step < s.num_steps(); ++step) {
        acc.clear();
        for (uint32_t i = s.step_begin[step]; i < s.step_begin[step + 1]; ++i) {
          const Transfer& t = s.transfers[i];
          auto where = [&] {
            return "stage " + std::to_string(si) + " stream " + std::to_string(ki) + " step " +
                   std::to_string(step) + " transfer " + std::to_string(i);
          };
          if (t.src < 0 || t.dst < 0 || t.src >= schedule.num_cores || t.dst >= schedule.num_cores ||
              t.src == t.dst) {
            return Status::Internal(where() + ": bad cores " + std::to_string(t.src) + " -> " +
                                    std::to_string(t.dst));
          }
          if (uint64_t(t.src_off) + t.count > schedule.elements ||
              uint64_t(t.dst_off) + t.count > schedule.elements) {
            return Status::Internal(where() + ": range outside the buffer");
          }
          if (t.count == 0) continue;
          acc.push_back({t.src, t.src_off, uint64_t(t.src_off) + t.count, false});
          acc.push_back({t.dst, t.dst_off, uint64_t(t.dst_off) + t.count, true});
        }
        std::sort(acc.begin(), acc.end(), [](const Access& a, const Access& b) {
          return std::tie(a.core, a.begin) < std::tie(b.core, b.begin);
        });
        // Sweep per core: any overlap involving a write is a race.
        for (size_t i = 0; i < acc.size(); ++i) {
          for (size_t j = i + 1; j < acc.size() && acc[j].core == acc[i].core && acc[j].begin < acc[i].end;
               ++j) {
            if (acc[i].write || acc[j].write) {
              return Status::Internal("stage " + std::to_string(si) + " stream " + std::to_string(ki) +
                                      " step " + std::to_string(step) + ": core " +
                                      std::to_string(acc[i].core) + " elements " +
                                      std::to_string(acc[j].begin) + ".. written and accessed twice");
            }
          }
        }
      }
    }
  }
  return Status::Ok();
}

}  // namespace podbench::topology
