#include "kernels/onednn/onednn.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <utility>
#include <vector>

#include "kernels/bf16.h"
#include "kernels/cpu_features.h"
#include "kernels/gemm/gemm_driver.h"
#include "kernels/scratch.h"
#include "kernels/thread_pool.h"

#if PODBENCH_HAVE_ONEDNN_HEADERS
#include <oneapi/dnnl/dnnl.h>
#endif

namespace podbench::kernels::onednn {

OpenMpSpinPlan PlanOpenMpSpin(const char* user_spincount, const char* user_wait_policy, bool libgomp_loaded) {
  if (user_spincount != nullptr) return {"", std::string("GOMP_SPINCOUNT=") + user_spincount + " (user)"};
  if (user_wait_policy != nullptr) return {"", std::string("OMP_WAIT_POLICY=") + user_wait_policy + " (user)"};
  if (libgomp_loaded) return {"", "libgomp's default (it was loaded before oneDNN)"};
  const std::string count = std::to_string(kOpenMpSpinCount);
  return {count, "GOMP_SPINCOUNT=" + count + " (set by podbench)"};
}

#if !PODBENCH_HAVE_ONEDNN_HEADERS

bool Available() { return false; }
std::string UnavailableReason() { return "podbench was built without the oneDNN headers (libdnnl-dev)"; }
std::string VersionString() { return ""; }
std::string OpenMpWaitSetting() { return ""; }
void ParallelRangesOnOnednnThreads(int, std::int64_t n, std::int64_t, std::int64_t,
                                   const std::function<void(std::int64_t, std::int64_t)>& fn) {
  if (n > 0) fn(0, n);
}
Impl GemmImpl(const GemmProblem&, GemmDtype, int) { return {}; }
void Gemm(const GemmProblem&, GemmDtype, int) {}
Impl ConvImpl(ConvPass, const Conv2dShape&, Precision, int) { return {}; }
void Conv(ConvPass, const Conv2dShape&, const ConvArgs&, Precision, int) {}
void ConvOnBf16Values(ConvPass, const Conv2dShape&, const ConvArgs&, int) {}
bool ConvFoldsFilterRounding(ConvPass, const Conv2dShape&, int) { return false; }
bool FoldedFilterForTesting(ConvPass, const Conv2dShape&, int, const float*, std::vector<float>*, std::vector<float>*) {
  return false;
}
std::unique_ptr<Prepared> PrepareGemm(std::int64_t, std::int64_t, std::int64_t, GemmDtype, int, std::string* why) {
  if (why) *why = UnavailableReason();
  return nullptr;
}
std::unique_ptr<Prepared> PrepareConv(ConvPass, const Conv2dShape&, Precision, int, bool, std::string* why) {
  if (why) *why = UnavailableReason();
  return nullptr;
}

#else

namespace {

using std::int64_t;

// The C API functions podbench calls, resolved from the dlopen()ed library.
#define PODBENCH_DNNL_FUNCTIONS(X)                                                              \
  X(dnnl_engine_create) X(dnnl_stream_create) X(dnnl_stream_destroy)                            \
  X(dnnl_memory_desc_init_by_tag) X(dnnl_memory_desc_init_by_strides)                          \
  X(dnnl_memory_desc_get_size) X(dnnl_memory_desc_equal) X(dnnl_memory_create)                  \
  X(dnnl_memory_destroy) X(dnnl_primitive_desc_create) X(dnnl_primitive_desc_destroy)          \
  X(dnnl_primitive_desc_query) X(dnnl_primitive_desc_query_md) X(dnnl_primitive_create)        \
  X(dnnl_primitive_execute) X(dnnl_primitive_destroy) X(dnnl_primitive_attr_create)             \
  X(dnnl_primitive_attr_destroy) X(dnnl_primitive_attr_set_scratchpad_mode)                    \
  X(dnnl_primitive_attr_set_fpmath_mode) X(dnnl_primitive_attr_set_post_ops)                   \
  X(dnnl_post_ops_create) X(dnnl_post_ops_destroy) X(dnnl_post_ops_append_sum)                  \
  X(dnnl_matmul_desc_init) X(dnnl_convolution_forward_desc_init)                                \
  X(dnnl_convolution_backward_data_desc_init) X(dnnl_convolution_backward_weights_desc_init)   \
  X(dnnl_reorder_primitive_desc_create) X(dnnl_set_max_cpu_isa) X(dnnl_get_effective_cpu_isa)  \
  X(dnnl_version)

struct Api {
#define PODBENCH_DNNL_POINTER(name) decltype(&::name) name = nullptr;
  PODBENCH_DNNL_FUNCTIONS(PODBENCH_DNNL_POINTER)
#undef PODBENCH_DNNL_POINTER
  void (*omp_set_num_threads)(int) = nullptr;
  // libgomp's entry for a parallel region (the ABI GCC compiles `#pragma omp
  // parallel` to) and the thread index within it; null if absent.
  void (*gomp_parallel)(void (*)(void*), void*, unsigned, unsigned) = nullptr;
  int (*omp_get_thread_num)() = nullptr;
  int (*omp_get_num_threads)() = nullptr;
  dnnl_engine_t engine = nullptr;
  std::string error;  // empty when loaded
  std::string version;
};

// The oneDNN ISA that corresponds to podbench's cap (PODBENCH_CPU_ISA).
dnnl_cpu_isa_t DnnlIsaFor(Isa isa) {
  switch (isa) {
    case Isa::kScalar:
    case Isa::kAvx2Fma: return dnnl_cpu_isa_avx2;
    case Isa::kAvx512f: return dnnl_cpu_isa_avx512_core;
    case Isa::kAvx512Bf16: return dnnl_cpu_isa_avx512_core_bf16;
    case Isa::kAmxBf16: return dnnl_cpu_isa_avx512_core_amx;
  }
  return dnnl_cpu_isa_all;
}

// libgomp's threads spin after each parallel region before they sleep:
// 300,000 iterations by default, about 10 ms here. podbench's own pool runs
// between oneDNN calls on the same cores, and a spinning OpenMP thread holds
// one: a 2-thread 512^3 fp32 GEMM of podbench's ran 2.0x slower in the 10 ms
// after a oneDNN GEMM (2.40 against 1.17 ms), and dispatch measured it 3.5x
// slower than oneDNN's and dropped it. 10,000 iterations (a few hundred
// microseconds) still spans the gaps between back-to-back oneDNN calls.
// Applied only when libgomp is not loaded yet (it reads the variable once,
// at load) and the user has set neither GOMP_SPINCOUNT nor OMP_WAIT_POLICY.
// Decided once, at start-up (g_openmp_wait), while the process has one
// thread: setenv is not safe against a concurrent getenv.
const std::string& OpenMpWait() {
  static const std::string setting = [] {
    bool loaded = false;
    if (void* gomp = dlopen("libgomp.so.1", RTLD_NOW | RTLD_NOLOAD); gomp != nullptr) {
      loaded = true;
      dlclose(gomp);
    }
    const OpenMpSpinPlan plan =
        PlanOpenMpSpin(std::getenv("GOMP_SPINCOUNT"), std::getenv("OMP_WAIT_POLICY"), loaded);
    if (!plan.spincount.empty()) setenv("GOMP_SPINCOUNT", plan.spincount.c_str(), 0);
    return plan.setting;
  }();
  return setting;
}
[[maybe_unused]] const std::string& g_openmp_wait = OpenMpWait();

Api Load() {
  Api api;
  if (MaxSupportedIsa() == Isa::kScalar) {
    api.error = "the CPU (or PODBENCH_CPU_ISA) has no AVX2, the least podbench uses oneDNN on";
    return api;
  }
  const std::string soname = "libdnnl.so." + std::to_string(DNNL_VERSION_MAJOR);
  (void)OpenMpWait();  // before libgomp loads with libdnnl (start-up has normally decided already)
  void* h = dlopen(soname.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (h == nullptr) {
    const char* e = dlerror();
    api.error = e ? e : soname + ": cannot be loaded";
    return api;
  }
  bool missing = false;
#define PODBENCH_DNNL_RESOLVE(name)                                                     \
  api.name = reinterpret_cast<decltype(&::name)>(dlsym(h, #name));                      \
  if (api.name == nullptr && !missing) {                                                \
    missing = true;                                                                     \
    api.error = soname + " has no " #name;                                              \
  }
  PODBENCH_DNNL_FUNCTIONS(PODBENCH_DNNL_RESOLVE)
#undef PODBENCH_DNNL_RESOLVE
  if (missing) return api;
  const dnnl_version_t* v = api.dnnl_version();
  if (v->cpu_runtime != DNNL_RUNTIME_OMP) {
    api.error = soname + " is not built for OpenMP, so its thread count cannot be set per call";
    return api;
  }
  // libgomp came in with libdnnl; find the per-thread thread-count setter there.
  void* gomp = dlopen("libgomp.so.1", RTLD_NOW | RTLD_NOLOAD);
  if (gomp != nullptr) {
    api.omp_set_num_threads = reinterpret_cast<void (*)(int)>(dlsym(gomp, "omp_set_num_threads"));
    api.gomp_parallel = reinterpret_cast<void (*)(void (*)(void*), void*, unsigned, unsigned)>(
        dlsym(gomp, "GOMP_parallel"));
    api.omp_get_thread_num = reinterpret_cast<int (*)()>(dlsym(gomp, "omp_get_thread_num"));
    api.omp_get_num_threads = reinterpret_cast<int (*)()>(dlsym(gomp, "omp_get_num_threads"));
    if (api.omp_get_thread_num == nullptr || api.omp_get_num_threads == nullptr) api.gomp_parallel = nullptr;
  }
  if (api.omp_set_num_threads == nullptr) {
    api.error = soname + ": its OpenMP runtime (libgomp.so.1) has no omp_set_num_threads";
    return api;
  }
  if (DetectedCpuFeatures().capped &&
      api.dnnl_set_max_cpu_isa(DnnlIsaFor(MaxSupportedIsa())) != dnnl_success) {
    api.error = soname + ": could not cap its ISA at " + IsaName(MaxSupportedIsa());
    return api;
  }
  if (api.dnnl_engine_create(&api.engine, dnnl_cpu, 0) != dnnl_success) {
    api.error = soname + ": no CPU engine";
    return api;
  }
  api.version = "oneDNN " + std::to_string(v->major) + "." + std::to_string(v->minor) + "." +
                std::to_string(v->patch) + " (OpenMP)";
  return api;
}

const Api& A() {
  static const Api* api = new Api(Load());  // never destroyed: primitives may outlive exit handlers
  return *api;
}

int ResolveThreads(int threads) {
  const int have = DefaultThreadPool().threads();
  return threads <= 0 ? have : std::min(threads, have);
}

// 64-byte aligned scratch that grows and is kept (one per thread and use).
class ScratchBuffer {
 public:
  ~ScratchBuffer() { std::free(p_); }
  void* Get(std::size_t bytes) {
    if (bytes > size_) {
      std::free(p_);
      size_ = (bytes + 63) / 64 * 64;
      p_ = std::aligned_alloc(64, size_);
    }
    return p_;
  }

 private:
  void* p_ = nullptr;
  std::size_t size_ = 0;
};

struct ThreadState {
  dnnl_stream_t stream = nullptr;
  ~ThreadState() {
    if (stream != nullptr) A().dnnl_stream_destroy(stream);
  }
};

ThreadState& Thread() {
  thread_local ThreadState t;
  if (t.stream == nullptr) A().dnnl_stream_create(&t.stream, A().engine, dnnl_stream_default_flags);
  return t;
}

// Problem identity: kind (0 GEMM, 1 + ConvPass), dtype, threads, and up to 10 sizes.
struct Key {
  int kind = 0, dtype = 0, threads = 0;
  int64_t v[10] = {};
  bool operator==(const Key& o) const {
    return kind == o.kind && dtype == o.dtype && threads == o.threads && std::equal(v, v + 10, o.v);
  }
};
struct KeyHash {
  std::size_t operator()(const Key& k) const {
    std::size_t h = std::size_t(k.kind) * 1000003u ^ std::size_t(k.dtype) * 9176u ^ std::size_t(k.threads);
    for (int64_t x : k.v) h = h * 1099511628211u ^ std::size_t(x);
    return h;
  }
};

// A 4-d layout that oneDNN describes as blocked, addressed one dimension at
// a time: element (x0, x1, x2, x3) sits at offset0 + at[0][x0] + at[1][x1] +
// at[2][x2] + at[3][x3]. Exact because every term of a blocked layout (each
// dimension's outer index times its stride, then the inner blocks as the
// digits of a mixed radix) depends on one dimension. at[k] runs to the
// padded size; elements past dims[k] are padding and must hold zeros.
struct SplitOffsets {
  std::vector<int64_t> at[4];
  int64_t dims[4] = {};
  int64_t offset0 = 0;
  // Whether dimension 0 (1) comes in aligned groups of 8 indices that lie
  // side by side, over its whole padded size (InGroups). RoundIntoLayout
  // moves 8 elements at a time where one holds.
  bool dim0_in_8s = false, dim1_in_8s = false;
  // Where dim0_in_8s: at[0][8 r], the start of each group of 8; and the
  // length of the runs of dimension 0 that lie side by side (8, 16, 32 ...:
  // the largest multiple of 8 that divides the padded size with each run
  // from a multiple of it consecutive), else 0.
  std::vector<int64_t> dim0_runs;
  int64_t dim0_run = 0;
  // Where dim1_in_8s and each aligned group of 8 indices of dimension 0 lies
  // at one stride (as in OIhw8o8i, 8; OIhw16o16i, 16): that stride, so an
  // 8 x 8 tile of dimensions 1 x 0 goes in place transposed; else 0.
  int64_t transposed_stride = 0;
  // Where transposed_stride is 16 and the same holds for aligned groups of
  // 16 (OIhw16o16i): a 16 x 16 tile goes in place transposed.
  bool transposed_16s = false;
};

// Whether `at` (one dimension's offsets) has a multiple of `group` entries
// and each `group` from a multiple of it lie `stride` elements apart (1:
// side by side).
bool InGroups(const std::vector<int64_t>& at, std::size_t group, int64_t stride) {
  if (at.size() % group != 0) return false;
  for (std::size_t i = 0; i < at.size(); ++i) {
    if (at[i] != at[i / group * group] + stride * int64_t(i % group)) return false;
  }
  return true;
}

// False when `md` is not a plain or blocked 4-d layout without extras
// (compensation buffers, padded offsets), or keeps neither dimension 0 nor 1
// in groups of 8: then podbench leaves the reorder to oneDNN.
bool SplitOffsetsOf(const dnnl_memory_desc_t& md, SplitOffsets* out) {
  if (md.ndims != 4 || md.format_kind != dnnl_blocked || md.extra.flags != 0) return false;
  const dnnl_blocking_desc_t& b = md.format_desc.blocking;
  for (int d = 0; d < 4; ++d) {
    if (md.padded_offsets[d] != 0 || md.padded_dims[d] < md.dims[d]) return false;
    int64_t block = 1;  // the product of d's inner blocks
    for (int k = 0; k < b.inner_nblks; ++k) {
      if (b.inner_idxs[k] == d) block *= b.inner_blks[k];
    }
    out->dims[d] = md.dims[d];
    out->at[d].resize(std::size_t(md.padded_dims[d]));
    for (int64_t x = 0; x < md.padded_dims[d]; ++x) {
      int64_t offset = x / block * b.strides[d], rest = x % block, inner_stride = 1;
      for (int k = b.inner_nblks - 1; k >= 0; --k) {  // innermost block first: the least significant digit
        if (b.inner_idxs[k] == d) {
          offset += rest % b.inner_blks[k] * inner_stride;
          rest /= b.inner_blks[k];
        }
        inner_stride *= b.inner_blks[k];
      }
      out->at[d][std::size_t(x)] = offset;
    }
  }
  out->offset0 = md.offset0;
  const std::vector<int64_t>& at0 = out->at[0];
  const std::vector<int64_t>& at1 = out->at[1];
  out->dim0_in_8s = InGroups(at0, 8, 1);
  out->dim1_in_8s = InGroups(at1, 8, 1);
  out->dim0_runs.clear();
  out->dim0_run = 0;
  if (out->dim0_in_8s) {
    for (std::size_t x = 0; x < at0.size(); x += 8) out->dim0_runs.push_back(at0[x]);
    out->dim0_run = 8;
    while (InGroups(at0, std::size_t(out->dim0_run) * 2, 1)) out->dim0_run *= 2;
  }
  const int64_t stride0 = out->dim1_in_8s && at0.size() % 8 == 0 ? at0[1] - at0[0] : 0;
  out->transposed_stride = stride0 > 0 && InGroups(at0, 8, stride0) ? stride0 : 0;
  out->transposed_16s = out->transposed_stride == 16 && InGroups(at0, 16, 16) && InGroups(at1, 16, 1);
  // Neither: element by element would cost more than oneDNN's own reorder of a rounded copy.
  if (!out->dim0_in_8s && !out->dim1_in_8s) return false;
  return true;
}

// A created primitive and what executing it needs.
struct Entry {
  Impl impl;
  std::string why;  // when !impl.accepted
  dnnl_primitive_t prim = nullptr;
  dnnl_memory_desc_t md0{}, md1{}, md_out{}, md_scratch{};
  std::size_t scratch_bytes = 0;
  // Convolutions: weights between podbench's HWIO and the primitive's layout
  // (to it for forward / backward data, from it for backward filter).
  dnnl_primitive_t wei_reorder = nullptr;
  dnnl_memory_desc_t wei_user{}, wei_prim{};
  std::size_t wei_prim_bytes = 0;
  // bf16 weights converted from the fp32 HWIO filter by the reorder itself
  // (one pass; see InputsFromF32).
  bool wei_from_f32 = false;
  // Where InputsFromF32 holds, the bf16 activations too come from podbench's
  // fp32 ones through oneDNN reorders (act_reorder[i] turns act_user[i] into
  // the primitive's operand i: md0, md1), run on oneDNN's OpenMP threads like
  // the primitive. Rounding them on podbench's pool instead left each pool
  // spinning while the other worked: with 2 threads on 2 cores the forward
  // res2 convolution ran at 0.68x of oneDNN with its own reorders.
  dnnl_primitive_t act_reorder[2] = {nullptr, nullptr};
  dnnl_memory_desc_t act_user[2]{};
  // fp32 forward / backward data with a weights reorder: where podbench can
  // address wei_prim itself, the fp32 convolution on bf16 values
  // (Inputs::kBf16Values) rounds the filter while putting it in that layout.
  bool wei_split_ok = false;
  SplitOffsets wei_split;
};

// Whether a bf16 primitive's inputs (weights and activations) may come
// straight from fp32 through oneDNN's reorder, which rounds to nearest even
// like Bf16 except that it flushes fp32 denormals to zero (vcvtneps2bf16).
// Where the primitive runs on AMX or AVX-512 BF16, which read bf16 denormal
// inputs as zero anyway, that changes nothing but fp32 inputs in
// [2^-126 (1 - 2^-8), 2^-126), which round up to the smallest normal bf16 in
// Bf16 and to zero here. For the weights it saves a pass (a third of a
// small-batch res5 convolution's time); for the activations it keeps the
// conversion on oneDNN's threads (see Entry::act_reorder).
bool InputsFromF32(const Impl& impl, bool bf16) { return bf16 && impl.isa >= Isa::kAvx512Bf16; }

std::mutex& CacheMutex() {
  static std::mutex* mu = new std::mutex;
  return *mu;
}
std::unordered_map<Key, std::unique_ptr<Entry>, KeyHash>& Cache() {
  static auto* cache = new std::unordered_map<Key, std::unique_ptr<Entry>, KeyHash>;
  return *cache;
}

void SetThreads(int threads) { A().omp_set_num_threads(threads); }

dnnl_data_type_t Dt(bool bf16) { return bf16 ? dnnl_bf16 : dnnl_f32; }

Isa IsaOfImpl(const std::string& name, bool bf16) {
  if (name.find("amx") != std::string::npos) return Isa::kAmxBf16;
  if (name.find("avx512_core_bf16") != std::string::npos) return Isa::kAvx512Bf16;
  if (name.find("avx512") != std::string::npos) return Isa::kAvx512f;
  if (name.find("avx2") != std::string::npos) return Isa::kAvx2Fma;
  // Names without an ISA ("gemm:jit") run on the best the library uses.
  const unsigned eff = unsigned(A().dnnl_get_effective_cpu_isa());
  auto has = [eff](dnnl_cpu_isa_t isa) { return (eff & unsigned(isa)) == unsigned(isa); };
  if (bf16 && has(dnnl_cpu_isa_avx512_core_amx)) return Isa::kAmxBf16;
  if (bf16 && has(dnnl_cpu_isa_avx512_core_bf16)) return Isa::kAvx512Bf16;
  if (has(dnnl_cpu_isa_avx512_core)) return Isa::kAvx512f;
  return Isa::kAvx2Fma;
}

// Owns a primitive descriptor or attribute for the length of a scope.
struct PdHolder {
  dnnl_primitive_desc_t pd = nullptr;
  ~PdHolder() {
    if (pd != nullptr) A().dnnl_primitive_desc_destroy(pd);
  }
};
struct AttrHolder {
  dnnl_primitive_attr_t attr = nullptr;
  explicit AttrHolder(bool sum) {
    A().dnnl_primitive_attr_create(&attr);
    A().dnnl_primitive_attr_set_scratchpad_mode(attr, dnnl_scratchpad_mode_user);
    A().dnnl_primitive_attr_set_fpmath_mode(attr, dnnl_fpmath_mode_strict);
    if (sum) {
      dnnl_post_ops_t ops = nullptr;
      A().dnnl_post_ops_create(&ops);
      A().dnnl_post_ops_append_sum(ops, 1.0f);
      A().dnnl_primitive_attr_set_post_ops(attr, ops);
      A().dnnl_post_ops_destroy(ops);
    }
  }
  ~AttrHolder() { A().dnnl_primitive_attr_destroy(attr); }
};

// Fills e from a created primitive descriptor: implementation, acceptance, primitive, scratchpad.
void Finish(Entry& e, dnnl_primitive_desc_t pd, bool bf16) {
  const char* impl = nullptr;
  A().dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl);
  e.impl.name = impl ? impl : "?";
  e.impl.isa = IsaOfImpl(e.impl.name, bf16);
  if (e.impl.name.rfind("ref", 0) == 0) {
    e.why = "oneDNN offers only its reference implementation (" + e.impl.name + ")";
    return;
  }
  if (const dnnl_memory_desc_t* s = A().dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0)) {
    e.md_scratch = *s;
    e.scratch_bytes = A().dnnl_memory_desc_get_size(s);
  }
  if (A().dnnl_primitive_create(&e.prim, pd) != dnnl_success) {
    e.why = "oneDNN could not create its " + e.impl.name + " primitive";
    return;
  }
  e.impl.accepted = true;
}

bool Plain(dnnl_memory_desc_t* md, std::initializer_list<int64_t> dims, dnnl_data_type_t dt, dnnl_format_tag_t tag) {
  const std::vector<int64_t> d(dims);
  return A().dnnl_memory_desc_init_by_tag(md, int(d.size()), d.data(), dt, tag) == dnnl_success;
}

void BuildGemm(Entry& e, const GemmProblem& p, bool bf16) {
  const int64_t da[2] = {p.m, p.k}, sa[2] = {p.rsa, p.csa};
  const int64_t db[2] = {p.k, p.n}, sb[2] = {p.rsb, p.csb};
  const int64_t dc[2] = {p.m, p.n}, sc[2] = {p.ldc, 1};
  if (A().dnnl_memory_desc_init_by_strides(&e.md0, 2, da, Dt(bf16), sa) != dnnl_success ||
      A().dnnl_memory_desc_init_by_strides(&e.md1, 2, db, Dt(bf16), sb) != dnnl_success ||
      A().dnnl_memory_desc_init_by_strides(&e.md_out, 2, dc, dnnl_f32, sc) != dnnl_success) {
    e.why = "oneDNN refuses these strides";
    return;
  }
  dnnl_matmul_desc_t desc;
  if (A().dnnl_matmul_desc_init(&desc, &e.md0, &e.md1, nullptr, &e.md_out) != dnnl_success) {
    e.why = "oneDNN refuses this matmul";
    return;
  }
  AttrHolder attr(p.accumulate);
  PdHolder pd;
  if (A().dnnl_primitive_desc_create(&pd.pd, &desc, attr.attr, A().engine, nullptr) != dnnl_success) {
    e.why = std::string("oneDNN has no ") + (bf16 ? "bf16" : "f32") + " matmul for this CPU";
    return;
  }
  Finish(e, pd.pd, bf16);
}

struct ConvDims {
  int64_t src[4], wei[4], dst[4], strides[2], pad_l[2], pad_r[2];
};

// False when the shape's right/bottom padding would be negative (oneDNN needs >= 0).
bool DimsOf(const Conv2dShape& s, ConvDims* d) {
  const int64_t oh = s.OutH(), ow = s.OutW();
  const int64_t pr_h = (oh - 1) * s.stride + s.kh - s.h - s.pad;
  const int64_t pr_w = (ow - 1) * s.stride + s.kw - s.w - s.pad;
  if (pr_h < 0 || pr_w < 0) return false;
  *d = ConvDims{{s.n, s.c, s.h, s.w}, {s.oc, s.c, s.kh, s.kw}, {s.n, s.oc, oh, ow},
                {s.stride, s.stride}, {s.pad, s.pad}, {pr_h, pr_w}};
  return true;
}

// The forward descriptor (also the hint of the backward passes).
bool ForwardDesc(const ConvDims& d, bool bf16, dnnl_data_type_t dst_dt, dnnl_convolution_desc_t* desc) {
  dnnl_memory_desc_t src, wei, dst;
  return Plain(&src, {d.src[0], d.src[1], d.src[2], d.src[3]}, Dt(bf16), dnnl_nhwc) &&
         Plain(&wei, {d.wei[0], d.wei[1], d.wei[2], d.wei[3]}, Dt(bf16), dnnl_format_tag_any) &&
         Plain(&dst, {d.dst[0], d.dst[1], d.dst[2], d.dst[3]}, dst_dt, dnnl_nhwc) &&
         A().dnnl_convolution_forward_desc_init(desc, dnnl_forward_training, dnnl_convolution_direct, &src, &wei,
                                                nullptr, &dst, d.strides, d.pad_l, d.pad_r) == dnnl_success;
}

// Weights reorder between HWIO (podbench) and the primitive's layout.
bool BuildWeightsReorder(Entry& e, const ConvDims& d, dnnl_data_type_t dt, const dnnl_memory_desc_t& prim_md,
                         bool to_prim) {
  e.wei_prim = prim_md;
  e.wei_prim_bytes = A().dnnl_memory_desc_get_size(&prim_md);
  if (!Plain(&e.wei_user, {d.wei[0], d.wei[1], d.wei[2], d.wei[3]}, dt, dnnl_hwio)) return false;
  if (A().dnnl_memory_desc_equal(&e.wei_user, &e.wei_prim)) return true;  // no reorder needed
  PdHolder pd;
  const dnnl_memory_desc_t& from = to_prim ? e.wei_user : e.wei_prim;
  const dnnl_memory_desc_t& to = to_prim ? e.wei_prim : e.wei_user;
  if (A().dnnl_reorder_primitive_desc_create(&pd.pd, &from, A().engine, &to, A().engine, nullptr) != dnnl_success) {
    return false;
  }
  return A().dnnl_primitive_create(&e.wei_reorder, pd.pd) == dnnl_success;
}

// Activation reorder i: plain fp32 NHWC of `dims` to the primitive's bf16 operand `prim_md`.
bool BuildActivationReorder(Entry& e, int i, const int64_t* dims, const dnnl_memory_desc_t& prim_md) {
  if (!Plain(&e.act_user[i], {dims[0], dims[1], dims[2], dims[3]}, dnnl_f32, dnnl_nhwc)) return false;
  PdHolder pd;
  if (A().dnnl_reorder_primitive_desc_create(&pd.pd, &e.act_user[i], A().engine, &prim_md, A().engine, nullptr) !=
      dnnl_success) {
    return false;
  }
  return A().dnnl_primitive_create(&e.act_reorder[i], pd.pd) == dnnl_success;
}

void BuildConv(Entry& e, ConvPass pass, const Conv2dShape& s, bool bf16) {
  ConvDims d;
  if (!DimsOf(s, &d)) {
    e.why = "oneDNN needs non-negative right padding";
    return;
  }
  const char* what = bf16 ? "bf16" : "f32";
  dnnl_convolution_desc_t fwd;
  if (!ForwardDesc(d, bf16, pass == ConvPass::kForward ? dnnl_f32 : Dt(bf16), &fwd)) {
    e.why = "oneDNN refuses this convolution";
    return;
  }
  AttrHolder attr(false);
  PdHolder fwd_pd;
  if (A().dnnl_primitive_desc_create(&fwd_pd.pd, &fwd, pass == ConvPass::kForward ? attr.attr : nullptr,
                                     A().engine, nullptr) != dnnl_success) {
    e.why = std::string("oneDNN has no ") + what + " convolution for this CPU";
    return;
  }
  if (pass == ConvPass::kForward) {
    e.md0 = *A().dnnl_primitive_desc_query_md(fwd_pd.pd, dnnl_query_src_md, 0);
    e.md_out = *A().dnnl_primitive_desc_query_md(fwd_pd.pd, dnnl_query_dst_md, 0);
    Finish(e, fwd_pd.pd, bf16);
    e.wei_from_f32 = e.impl.accepted && InputsFromF32(e.impl, bf16);
    if (e.impl.accepted &&
        !BuildWeightsReorder(e, d, e.wei_from_f32 ? dnnl_f32 : Dt(bf16),
                             *A().dnnl_primitive_desc_query_md(fwd_pd.pd, dnnl_query_weights_md, 0), true)) {
      e.impl.accepted = false;
      e.why = "oneDNN cannot reorder HWIO weights for " + e.impl.name;
    }
    e.wei_split_ok = e.impl.accepted && !bf16 && e.wei_reorder != nullptr && SplitOffsetsOf(e.wei_prim, &e.wei_split);
    if (e.wei_from_f32 && !BuildActivationReorder(e, 0, d.src, e.md0)) {
      e.impl.accepted = false;
      e.why = "oneDNN cannot convert fp32 NHWC activations for " + e.impl.name;
    }
    return;
  }
  dnnl_convolution_desc_t bwd;
  dnnl_memory_desc_t src, wei, dst;
  const bool data = pass == ConvPass::kBackwardData;
  // Backward data: diff_src f32, weights and diff_dst in the precision.
  // Backward filter: src and diff_dst in the precision, diff_weights f32.
  if (!Plain(&src, {d.src[0], d.src[1], d.src[2], d.src[3]}, data ? dnnl_f32 : Dt(bf16), dnnl_nhwc) ||
      !Plain(&wei, {d.wei[0], d.wei[1], d.wei[2], d.wei[3]}, data ? Dt(bf16) : dnnl_f32, dnnl_format_tag_any) ||
      !Plain(&dst, {d.dst[0], d.dst[1], d.dst[2], d.dst[3]}, Dt(bf16), dnnl_nhwc)) {
    e.why = "oneDNN refuses this convolution";
    return;
  }
  const dnnl_status_t st =
      data ? A().dnnl_convolution_backward_data_desc_init(&bwd, dnnl_convolution_direct, &src, &wei, &dst, d.strides,
                                                          d.pad_l, d.pad_r)
           : A().dnnl_convolution_backward_weights_desc_init(&bwd, dnnl_convolution_direct, &src, &wei, nullptr, &dst,
                                                             d.strides, d.pad_l, d.pad_r);
  PdHolder pd;
  if (st != dnnl_success ||
      A().dnnl_primitive_desc_create(&pd.pd, &bwd, attr.attr, A().engine, fwd_pd.pd) != dnnl_success) {
    e.why = std::string("oneDNN has no ") + what + " backward-" + (data ? "data" : "weights") +
            " convolution for this CPU";
    return;
  }
  if (data) {
    e.md0 = *A().dnnl_primitive_desc_query_md(pd.pd, dnnl_query_diff_dst_md, 0);
    e.md_out = *A().dnnl_primitive_desc_query_md(pd.pd, dnnl_query_diff_src_md, 0);
  } else {
    e.md0 = *A().dnnl_primitive_desc_query_md(pd.pd, dnnl_query_src_md, 0);
    e.md1 = *A().dnnl_primitive_desc_query_md(pd.pd, dnnl_query_diff_dst_md, 0);
  }
  Finish(e, pd.pd, bf16);
  const dnnl_memory_desc_t* w =
      A().dnnl_primitive_desc_query_md(pd.pd, data ? dnnl_query_weights_md : dnnl_query_diff_weights_md, 0);
  e.wei_from_f32 = e.impl.accepted && data && InputsFromF32(e.impl, bf16);
  if (e.impl.accepted && !BuildWeightsReorder(e, d, data && !e.wei_from_f32 ? Dt(bf16) : dnnl_f32, *w, data)) {
    e.impl.accepted = false;
    e.why = "oneDNN cannot reorder HWIO weights for " + e.impl.name;
  }
  e.wei_split_ok =
      e.impl.accepted && data && !bf16 && e.wei_reorder != nullptr && SplitOffsetsOf(e.wei_prim, &e.wei_split);
  // The activations (dy; or x and dy) from fp32 by oneDNN, where the primitive reads bf16 natively.
  if (e.impl.accepted && InputsFromF32(e.impl, bf16) &&
      !(data ? BuildActivationReorder(e, 0, d.dst, e.md0)
             : BuildActivationReorder(e, 0, d.src, e.md0) && BuildActivationReorder(e, 1, d.dst, e.md1))) {
    e.impl.accepted = false;
    e.why = "oneDNN cannot convert fp32 NHWC activations for " + e.impl.name;
  }
}

Key GemmKey(const GemmProblem& p, GemmDtype dtype, int threads) {
  Key k;
  k.kind = 0;
  k.dtype = int(dtype);
  k.threads = threads;
  const int64_t v[10] = {p.m, p.n, p.k, p.rsa, p.csa, p.rsb, p.csb, p.ldc, p.accumulate ? 1 : 0, 0};
  std::copy(v, v + 10, k.v);
  return k;
}

Key ConvKey(ConvPass pass, const Conv2dShape& s, Precision prec, int threads) {
  Key k;
  k.kind = 1 + int(pass);
  k.dtype = int(prec);
  k.threads = threads;
  const int64_t v[10] = {s.n, s.h, s.w, s.c, s.oc, s.kh, s.kw, s.stride, s.pad, 0};
  std::copy(v, v + 10, k.v);
  return k;
}

// The cached entry for `key`, built by `build` on first use (with the OpenMP
// thread count of the key, which oneDNN reads when it plans the work).
template <typename Build>
Entry& Lookup(const Key& key, Build&& build) {
  std::lock_guard<std::mutex> lock(CacheMutex());
  auto& slot = Cache()[key];
  if (slot == nullptr) {
    slot = std::make_unique<Entry>();
    if (!Available()) {
      slot->why = UnavailableReason();
    } else {
      SetThreads(key.threads);
      build(*slot);
    }
  }
  return *slot;
}

// Memory objects wrapping caller buffers for one execution.
class Mem {
 public:
  Mem(const dnnl_memory_desc_t& md, const void* handle) {
    A().dnnl_memory_create(&m_, &md, A().engine, const_cast<void*>(handle));
  }
  ~Mem() { A().dnnl_memory_destroy(m_); }
  Mem(const Mem&) = delete;
  Mem& operator=(const Mem&) = delete;
  dnnl_memory_t get() const { return m_; }

 private:
  dnnl_memory_t m_ = nullptr;
};

void Execute(dnnl_primitive_t prim, std::vector<dnnl_exec_arg_t> args) {
  A().dnnl_primitive_execute(prim, Thread().stream, int(args.size()), args.data());
}

// src rounded to bf16 into a new lease in `leases`, split over `threads` of the primitive's OpenMP team when large.
const void* RoundedCopy(const float* src, int64_t n, std::deque<ScratchLease>& leases, int threads) {
  Bf16* dst = leases.emplace_back(std::size_t(n) * sizeof(Bf16)).as<Bf16>();
  ParallelRangesOnOnednnThreads(threads, n, kMinConvertPerThread, 16,
                                [&](int64_t b, int64_t e) { ConvertToBf16(src + b, dst + b, e - b); });
  return dst;
}

// The same as fp32 values (RoundToBf16), for an fp32 primitive.
const float* RoundedValuesCopy(const float* src, int64_t n, std::deque<ScratchLease>& leases, int threads) {
  float* dst = leases.emplace_back(std::size_t(n) * sizeof(float)).as<float>();
  ParallelRangesOnOnednnThreads(threads, n, kMinConvertPerThread, 16,
                                [&](int64_t b, int64_t e) { RoundToBf16(src + b, dst + b, e - b); });
  return dst;
}

// dst (laid out as `to`, dims O, I, H, W) = the HWIO filter rounded to bf16
// values, padding zeroed: the weights reorder and the rounding in one pass
// over the filter instead of two. A work item is a tile of 8 (or 16, below)
// input channels x TileWidth output channels at one filter tap. Items run in the
// source's order (kh, kw, input chunk, output tile fastest), so the filter is
// read once, front to back; the other order, the destination's, measured
// 2-4% slower on a 3x3x512x512 filter (6-11% slower with the vector tiles
// below). Items split over the primitive's OpenMP team.
// A tile's real elements go straight from the filter to their place in
// vector registers: each source row in runs of 8 output channels
// (RoundToBf16Runs8) where the layout keeps 8 output channels side by side
// (e.g. OIhw8i8o, OIhw16i16o, Acdb32a), or as blocks transposed in registers
// where it keeps 8 input channels side by side: 8 x 8 (OIhw8o8i), or 16 x 16
// with AVX-512 where it keeps 16 (OIhw16o16i; 8 x 8 blocks wrote each output
// channel's 64-byte line in two halves, one item apart, and took 1.00 / 1.23x
// oneDNN's reorder on 1 / 2 threads for the 3x3x512x512 data gradient's
// filter under the AVX-512F cap; 16 x 16, 0.91 / 0.83x). What is left (the
// padding, and the real elements of a part padded run or block) is rounded
// into a buffer and moved element by element. (All tiles once went through
// the buffer, the transposed ones element by element: under the AVX2 cap the
// res5 convolution on bf16 values then ran at 0.85-0.90x of the fp32 one,
// forward and backward data; with the vector paths 0.99-1.03x. Row by row
// with the rounding done per element, this took twice oneDNN's own reorder.)
constexpr int64_t kFoldMaxWidth = 512;

// Output channels per work item of RoundIntoLayout. Where runs of output
// channels lie side by side, each source row of a tile goes to width / run
// places far apart (one per run: Acdb32a's runs of 32 are 576 KiB apart for
// a 3x3x512 filter), all at the same offset modulo 4 KiB, so all in one cache
// set; wider tiles pay less for each item and each row, until the places
// outnumber the ways. On the Zen 5 (12-way L1, 16-way L2), 3x3x512x512 under
// the AVX-512F cap (Acdb32a): 8 x 64 tiles took 0.86-1.28x oneDNN's own
// reorder (medians of interleaved runs, 1 and 2 threads), 8 x 512 0.64-0.89x;
// under the AVX2 cap (OIhw8i8o, runs of 8): 8 x 64 0.88-1.40x, 8 x 128
// 1.00-1.26x, 8 x 512 1.59-2.55x. So: 16 runs a row, at most kFoldMaxWidth.
int64_t TileWidth(const SplitOffsets& to) {
  if (!to.dim0_in_8s) return 64;
  return std::clamp<int64_t>(16 * to.dim0_run, 64, kFoldMaxWidth);
}

void RoundIntoLayout(const float* hwio, const SplitOffsets& to, float* dst, int threads) {
  constexpr int64_t k8 = 8, kMaxDepth = 16;
  const gemm_internal::VectorPackers* vp =
      CpuSupports(Isa::kAvx2Fma) ? gemm_internal::VectorPackersFor(Isa::kAvx2Fma) : nullptr;
  const gemm_internal::VectorPackers* vp16 =
      CpuSupports(Isa::kAvx512f) ? gemm_internal::VectorPackersFor(Isa::kAvx512f) : nullptr;
  const bool runs = to.dim0_in_8s, blocks = !runs && to.transposed_stride >= 8 && vp != nullptr;
  const int64_t stride = to.transposed_stride;
  // Input channels per item: 16 where a 16 x 16 tile goes in place (each of
  // its output channels then fills a whole 64-byte line), else 8.
  const bool deep = blocks && to.transposed_16s && vp16 != nullptr;
  const int64_t depth = deep ? kMaxDepth : k8, width = TileWidth(to);
  const int64_t oc = to.dims[0], ic = to.dims[1], kh = to.dims[2], kw = to.dims[3];
  const int64_t pad_oc = int64_t(to.at[0].size()), pad_ic = int64_t(to.at[1].size());
  const int64_t pad_kh = int64_t(to.at[2].size()), pad_kw = int64_t(to.at[3].size());
  const int64_t chunks = (pad_ic + depth - 1) / depth, tiles = (pad_oc + width - 1) / width;
  const std::vector<int64_t>& at0 = to.at[0];
  const std::vector<int64_t>& at1 = to.at[1];
  ParallelRangesOnOnednnThreads(
      threads, tiles * chunks * pad_kh * pad_kw, std::max<int64_t>(1, kMinConvertPerThread / (depth * width)), 1,
      [&](int64_t r0, int64_t r1) {
        alignas(64) float tile[kMaxDepth][kFoldMaxWidth];
        for (int64_t r = r0; r < r1; ++r) {
          const int64_t o0 = r % tiles * width, i0 = r / tiles % chunks * depth;
          const int64_t w = r / tiles / chunks % pad_kw, h = r / tiles / chunks / pad_kw;
          const int64_t rows = std::min(depth, pad_ic - i0), cols = std::min(width, pad_oc - o0);
          const int64_t real_cols = std::clamp<int64_t>(oc - o0, 0, cols);
          float* tap = dst + to.offset0 + to.at[2][std::size_t(h)] + to.at[3][std::size_t(w)];
          const bool real_tap = h < kh && w < kw && i0 < ic;  // else a padding tap or input chunk
          // Row j (input channel i0 + j) of the tile in the filter, where real: src + j * oc.
          const float* src = real_tap ? hwio + ((h * kw + w) * ic + i0) * oc + o0 : nullptr;
          // Columns [0, fast) go straight to their place: whole runs (blocks) of real elements.
          const bool whole_rows = real_tap && rows == depth && i0 + depth <= ic;
          const int64_t fast = (runs || blocks) && whole_rows ? real_cols / depth * depth : 0;
          if (fast > 0 && runs) {
            for (int64_t j = 0; j < k8; ++j) {
              RoundToBf16Runs8(src + j * oc, long(fast / k8), tap + at1[std::size_t(i0 + j)],
                               to.dim0_runs.data() + o0 / k8);
            }
          } else if (fast > 0) {
            const float* row[kMaxDepth];
            for (int64_t q = 0; q < fast; q += depth) {
              for (int64_t j = 0; j < depth; ++j) row[j] = src + j * oc + q;
              float* out = tap + at1[std::size_t(i0)] + at0[std::size_t(o0 + q)];
              if (deep) {
                vp16->transpose_rows(row, int(depth), depth, int(depth), depth, true, out);
              } else if (stride == k8) {
                vp->transpose_rows(row, int(k8), k8, int(k8), k8, true, out);
              } else {  // rows of 8 at a wider stride: through the buffer
                vp->transpose_rows(row, int(k8), k8, int(k8), k8, true, tile[0]);
                for (int64_t t = 0; t < k8; ++t) {  // (memcpy of a constant 32 bytes: two vector moves)
                  std::memcpy(out + t * stride, tile[0] + t * k8, k8 * sizeof(float));
                }
              }
            }
          }
          if (fast == cols) continue;
          // The rest, columns [fast, cols) of every row: rounded into the buffer, padding zeroed.
          for (int64_t j = 0; j < rows; ++j) {
            const int64_t m = real_tap && i0 + j < ic ? real_cols : 0;
            if (m > fast) RoundToBf16(src + j * oc + fast, tile[j] + fast, long(m - fast));
            std::fill(tile[j] + std::max(m, fast), tile[j] + cols, 0.0f);
          }
          for (int64_t j = 0; j < rows; ++j) {
            float* out = tap + at1[std::size_t(i0 + j)];
            for (int64_t q = fast; q < cols; ++q) out[at0[std::size_t(o0 + q)]] = tile[j][q];
          }
        }
      });
}

// How a convolution's inputs reach its primitive.
enum class Inputs {
  kAsGiven,     // fp32 primitive on podbench's fp32 values
  kBf16,        // bf16 primitive: inputs rounded to bf16 (see InputsFromF32 for who rounds)
  kBf16Values,  // fp32 primitive on the inputs rounded to bf16 values (RoundToBf16)
};

void RunConv(const Entry& e, ConvPass pass, const Conv2dShape& s, const ConvArgs& args, Inputs in, int threads) {
  std::deque<ScratchLease> t;  // this call's buffers (a deque: leases stay put)
  const Mem scratch(e.md_scratch, t.emplace_back(e.scratch_bytes).get());
  const int64_t n0 = ConvIn0Elems(pass, s), n1 = ConvIn1Elems(pass, s);
  // Activation operand i of the primitive from fp32 `src` (n elements).
  auto activation = [&](int i, const float* src, int64_t n) -> const void* {
    if (in == Inputs::kAsGiven) return src;
    if (in == Inputs::kBf16Values) return args.Bf16Activations() ? src : RoundedValuesCopy(src, n, t, threads);
    if (e.act_reorder[i] == nullptr) return RoundedCopy(src, n, t, threads);
    const dnnl_memory_desc_t& to = i == 0 ? e.md0 : e.md1;
    void* dst = t.emplace_back(A().dnnl_memory_desc_get_size(&to)).get();
    const Mem from(e.act_user[i], src), out(to, dst);
    Execute(e.act_reorder[i], {{DNNL_ARG_FROM, from.get()}, {DNNL_ARG_TO, out.get()}});
    return dst;
  };
  switch (pass) {
    case ConvPass::kForward:
    case ConvPass::kBackwardData: {
      // in0: x or dy (activations); in1: the HWIO filter.
      const void* act = activation(0, args.in0, n0);
      const void* wei = args.in1;
      // A filter promised to hold bf16 values (args.weights) goes to the fp32
      // primitive as the fp32 pass's does; the fold rounds it, which leaves
      // such values as they are, and is kept where it runs (it is faster than
      // oneDNN's reorder on 1 thread).
      if (in == Inputs::kBf16Values && e.wei_split_ok) {
        float* w = t.emplace_back(e.wei_prim_bytes).as<float>();
        RoundIntoLayout(args.in1, e.wei_split, w, threads);
        wei = w;
      } else {
        const void* wei_user = in == Inputs::kBf16 && !e.wei_from_f32 ? RoundedCopy(args.in1, n1, t, threads)
                               : in == Inputs::kBf16Values && !args.Bf16Weights()
                                   ? RoundedValuesCopy(args.in1, n1, t, threads)
                                   : args.in1;
        wei = wei_user;
        if (e.wei_reorder != nullptr) {
          void* w = t.emplace_back(e.wei_prim_bytes).get();
          const Mem from(e.wei_user, wei_user), to(e.wei_prim, w);
          Execute(e.wei_reorder, {{DNNL_ARG_FROM, from.get()}, {DNNL_ARG_TO, to.get()}});
          wei = w;
        }
      }
      const Mem a(e.md0, act), w(e.wei_prim, wei), out(e.md_out, args.out);
      if (pass == ConvPass::kForward) {
        Execute(e.prim, {{DNNL_ARG_SRC, a.get()}, {DNNL_ARG_WEIGHTS, w.get()}, {DNNL_ARG_DST, out.get()},
                         {DNNL_ARG_SCRATCHPAD, scratch.get()}});
      } else {
        Execute(e.prim, {{DNNL_ARG_DIFF_DST, a.get()}, {DNNL_ARG_WEIGHTS, w.get()}, {DNNL_ARG_DIFF_SRC, out.get()},
                         {DNNL_ARG_SCRATCHPAD, scratch.get()}});
      }
      return;
    }
    case ConvPass::kBackwardFilter: {
      const void* x = activation(0, args.in0, n0);
      const void* dy = activation(1, args.in1, n1);
      void* dw = e.wei_reorder != nullptr ? t.emplace_back(e.wei_prim_bytes).get() : args.out;
      {
        const Mem src(e.md0, x), ddst(e.md1, dy), dwm(e.wei_prim, dw);
        Execute(e.prim, {{DNNL_ARG_SRC, src.get()}, {DNNL_ARG_DIFF_DST, ddst.get()},
                         {DNNL_ARG_DIFF_WEIGHTS, dwm.get()}, {DNNL_ARG_SCRATCHPAD, scratch.get()}});
      }
      if (e.wei_reorder != nullptr) {
        const Mem from(e.wei_prim, dw), to(e.wei_user, args.out);
        Execute(e.wei_reorder, {{DNNL_ARG_FROM, from.get()}, {DNNL_ARG_TO, to.get()}});
      }
      return;
    }
  }
}

// A reorder primitive from `from` to `to`; null when they are equal or oneDNN has none.
dnnl_primitive_t MakeReorder(const dnnl_memory_desc_t& from, const dnnl_memory_desc_t& to) {
  if (A().dnnl_memory_desc_equal(&from, &to)) return nullptr;
  PdHolder pd;
  if (A().dnnl_reorder_primitive_desc_create(&pd.pd, &from, A().engine, &to, A().engine, nullptr) != dnnl_success) {
    return nullptr;
  }
  dnnl_primitive_t r = nullptr;
  return A().dnnl_primitive_create(&r, pd.pd) == dnnl_success ? r : nullptr;
}

// Owns operand buffers, their memory objects, extra primitives (reorders),
// and the steps Run executes in order.
class PreparedImpl : public Prepared {
 public:
  PreparedImpl(const Entry& e, int threads) : e_(e), threads_(threads) {}
  ~PreparedImpl() override {
    mems_.clear();
    for (dnnl_primitive_t p : owned_) A().dnnl_primitive_destroy(p);
  }
  // A buffer of `md` (zeros, or small values through an f32 plain buffer and a reorder).
  dnnl_memory_t Buffer(const dnnl_memory_desc_t& md, bool fill, int ndims = 0, const int64_t* dims = nullptr,
                       dnnl_format_tag_t plain = dnnl_format_tag_undef) {
    const std::size_t bytes = std::max<std::size_t>(A().dnnl_memory_desc_get_size(&md), 64);
    buffers_.emplace_back(std::make_unique<ScratchBuffer>());
    void* p = buffers_.back()->Get(bytes);
    std::memset(p, 0, bytes);
    mems_.emplace_back(std::make_unique<Mem>(md, p));
    if (fill) {
      dnnl_memory_desc_t f32_md;
      A().dnnl_memory_desc_init_by_tag(&f32_md, ndims, dims, dnnl_f32, plain);
      std::vector<float> src(A().dnnl_memory_desc_get_size(&f32_md) / sizeof(float));
      for (std::size_t i = 0; i < src.size(); ++i) src[i] = float(int(i % 17) - 8) * 0.01f;
      const Mem from(f32_md, src.data());
      if (dnnl_primitive_t r = MakeReorder(f32_md, md)) {
        Execute(r, {{DNNL_ARG_FROM, from.get()}, {DNNL_ARG_TO, mems_.back()->get()}});
        A().dnnl_primitive_destroy(r);
      } else {
        std::memcpy(p, src.data(), std::min(bytes, src.size() * sizeof(float)));
      }
    }
    return mems_.back()->get();
  }
  // `to` converted from a filled plain f32 buffer by oneDNN's reorder, in every Run.
  dnnl_memory_t ConvertedEachRun(const dnnl_memory_desc_t& to, int ndims, const int64_t* dims,
                                 dnnl_format_tag_t plain) {
    dnnl_memory_desc_t f32_md;
    A().dnnl_memory_desc_init_by_tag(&f32_md, ndims, dims, dnnl_f32, plain);
    dnnl_memory_t from = Buffer(f32_md, true, ndims, dims, plain);
    dnnl_primitive_t r = MakeReorder(f32_md, to);
    if (r == nullptr) return from;  // already that type and layout
    owned_.push_back(r);
    dnnl_memory_t out = Buffer(to, false);
    steps_.push_back({r, {{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, out}}});
    return out;
  }
  // `from` reordered into a plain f32 buffer after the primitive, in every Run.
  void ReorderedAfter(dnnl_memory_t from_mem, const dnnl_memory_desc_t& from, int ndims, const int64_t* dims,
                      dnnl_format_tag_t plain) {
    dnnl_memory_desc_t f32_md;
    A().dnnl_memory_desc_init_by_tag(&f32_md, ndims, dims, dnnl_f32, plain);
    if (dnnl_primitive_t r = MakeReorder(from, f32_md)) {
      owned_.push_back(r);
      after_.push_back({r, {{DNNL_ARG_FROM, from_mem}, {DNNL_ARG_TO, Buffer(f32_md, false)}}});
    }
  }
  void Main(std::vector<dnnl_exec_arg_t> args) {
    args.push_back({DNNL_ARG_SCRATCHPAD, Buffer(e_.md_scratch, false)});
    steps_.push_back({e_.prim, std::move(args)});
    for (auto& st : after_) steps_.push_back(std::move(st));
    after_.clear();
  }
  void Run() override {
    SetThreads(threads_);
    for (const Step& st : steps_) Execute(st.prim, st.args);
  }
  const Impl& impl() const override { return e_.impl; }

 private:
  struct Step {
    dnnl_primitive_t prim;
    std::vector<dnnl_exec_arg_t> args;
  };
  const Entry& e_;
  int threads_;
  std::vector<std::unique_ptr<ScratchBuffer>> buffers_;
  std::vector<std::unique_ptr<Mem>> mems_;
  std::vector<dnnl_primitive_t> owned_;
  std::vector<Step> steps_, after_;
};

}  // namespace

bool Available() { return A().error.empty(); }
std::string UnavailableReason() { return A().error; }
std::string VersionString() { return A().version; }
std::string OpenMpWaitSetting() { return Available() ? OpenMpWait() : ""; }

void ParallelRangesOnOnednnThreads(int threads, int64_t n, int64_t min_per_part, int64_t align,
                                   const std::function<void(int64_t, int64_t)>& fn) {
  if (n <= 0) return;
  const int t = int(std::clamp<int64_t>(n / std::max<int64_t>(min_per_part, 1), 1, ResolveThreads(threads)));
  if (t == 1 || !Available() || A().gomp_parallel == nullptr) {
    fn(0, n);
    return;
  }
  struct Region {
    const std::function<void(int64_t, int64_t)>* fn;
    int64_t n, align;
  } region{&fn, n, align};
  A().gomp_parallel(
      [](void* data) {
        const Region& r = *static_cast<const Region*>(data);
        const int64_t w = A().omp_get_thread_num(), k = A().omp_get_num_threads();
        const int64_t b = w == 0 ? 0 : r.n * w / k / r.align * r.align;
        const int64_t e = w + 1 == k ? r.n : r.n * (w + 1) / k / r.align * r.align;
        if (b < e) (*r.fn)(b, e);
      },
      &region, unsigned(t), 0);
}

namespace {
// The cached convolution entry for (pass, s, prec) on t resolved threads.
const Entry& ConvEntry(ConvPass pass, const Conv2dShape& s, Precision prec, int t) {
  return Lookup(ConvKey(pass, s, prec, t), [&](Entry& e) { BuildConv(e, pass, s, prec == Precision::kBf16); });
}
}  // namespace

Impl GemmImpl(const GemmProblem& p, GemmDtype dtype, int threads) {
  if (p.m <= 0 || p.n <= 0 || p.k <= 0) return {};
  const int t = ResolveThreads(threads);
  return Lookup(GemmKey(p, dtype, t), [&](Entry& e) { BuildGemm(e, p, dtype == GemmDtype::kBf16); }).impl;
}

void Gemm(const GemmProblem& p, GemmDtype dtype, int threads) {
  const int t = ResolveThreads(threads);
  const Entry& e = Lookup(GemmKey(p, dtype, t), [&](Entry& en) { BuildGemm(en, p, dtype == GemmDtype::kBf16); });
  SetThreads(t);
  const ScratchLease scratch_buffer(e.scratch_bytes);
  const Mem a(e.md0, p.a), b(e.md1, p.b), c(e.md_out, p.c);
  const Mem scratch(e.md_scratch, scratch_buffer.get());
  Execute(e.prim, {{DNNL_ARG_SRC, a.get()}, {DNNL_ARG_WEIGHTS, b.get()}, {DNNL_ARG_DST, c.get()},
                   {DNNL_ARG_SCRATCHPAD, scratch.get()}});
}

Impl ConvImpl(ConvPass pass, const Conv2dShape& s, Precision prec, int threads) {
  const int t = ResolveThreads(threads);
  return ConvEntry(pass, s, prec, t).impl;
}

void Conv(ConvPass pass, const Conv2dShape& s, const ConvArgs& args, Precision prec, int threads) {
  const int t = ResolveThreads(threads);
  const Entry& e = ConvEntry(pass, s, prec, t);
  SetThreads(t);
  RunConv(e, pass, s, args, prec == Precision::kBf16 ? Inputs::kBf16 : Inputs::kAsGiven, t);
}

void ConvOnBf16Values(ConvPass pass, const Conv2dShape& s, const ConvArgs& args, int threads) {
  const int t = ResolveThreads(threads);
  const Entry& e = ConvEntry(pass, s, Precision::kF32, t);
  SetThreads(t);
  RunConv(e, pass, s, args, Inputs::kBf16Values, t);
}

bool ConvFoldsFilterRounding(ConvPass pass, const Conv2dShape& s, int threads) {
  const int t = ResolveThreads(threads);
  return ConvEntry(pass, s, Precision::kF32, t).wei_split_ok;
}

bool FoldedFilterForTesting(ConvPass pass, const Conv2dShape& s, int threads, const float* hwio,
                            std::vector<float>* folded, std::vector<float>* reference) {
  const int t = ResolveThreads(threads);
  const Entry& e = ConvEntry(pass, s, Precision::kF32, t);
  if (!e.wei_split_ok) return false;
  SetThreads(t);
  const std::size_t n = e.wei_prim_bytes / sizeof(float);
  folded->assign(n, -1.0f);  // not zero: the padding must be written
  RoundIntoLayout(hwio, e.wei_split, folded->data(), t);
  const int64_t elems = ConvIn1Elems(pass, s);
  std::vector<float> rounded(hwio, hwio + elems);
  RoundToBf16(rounded.data(), rounded.data(), long(elems));
  reference->assign(n, -1.0f);
  const Mem from(e.wei_user, rounded.data()), to(e.wei_prim, reference->data());
  Execute(e.wei_reorder, {{DNNL_ARG_FROM, from.get()}, {DNNL_ARG_TO, to.get()}});
  return true;
}

std::unique_ptr<Prepared> PrepareGemm(int64_t m, int64_t n, int64_t k, GemmDtype dtype, int threads,
                                      std::string* why) {
  GemmProblem p;
  p.m = m;
  p.n = n;
  p.k = k;
  p.rsa = k;
  p.rsb = n;
  p.ldc = n;
  const int t = ResolveThreads(threads);
  const Entry& e = Lookup(GemmKey(p, dtype, t), [&](Entry& en) { BuildGemm(en, p, dtype == GemmDtype::kBf16); });
  if (!e.impl.accepted) {
    if (why) *why = e.why;
    return nullptr;
  }
  auto op = std::make_unique<PreparedImpl>(e, t);
  const int64_t da[2] = {m, k}, db[2] = {k, n};
  dnnl_memory_t a = op->Buffer(e.md0, true, 2, da, dnnl_ab);
  dnnl_memory_t b = op->Buffer(e.md1, true, 2, db, dnnl_ab);
  op->Main({{DNNL_ARG_SRC, a}, {DNNL_ARG_WEIGHTS, b}, {DNNL_ARG_DST, op->Buffer(e.md_out, false)}});
  return op;
}

std::unique_ptr<Prepared> PrepareConv(ConvPass pass, const Conv2dShape& s, Precision prec, int threads, bool from_f32,
                                      std::string* why) {
  const int t = ResolveThreads(threads);
  const Entry& e = ConvEntry(pass, s, prec, t);
  if (!e.impl.accepted) {
    if (why) *why = e.why;
    return nullptr;
  }
  ConvDims d;
  DimsOf(s, &d);
  auto op = std::make_unique<PreparedImpl>(e, t);
  // An operand: converted from plain fp32 by oneDNN in every run, or prepared once.
  auto in = [&](const dnnl_memory_desc_t& md, const int64_t* dims, dnnl_format_tag_t plain) {
    return from_f32 ? op->ConvertedEachRun(md, 4, dims, plain) : op->Buffer(md, true, 4, dims, plain);
  };
  switch (pass) {
    case ConvPass::kForward:
      op->Main({{DNNL_ARG_SRC, in(e.md0, d.src, dnnl_nhwc)}, {DNNL_ARG_WEIGHTS, in(e.wei_prim, d.wei, dnnl_hwio)},
                {DNNL_ARG_DST, op->Buffer(e.md_out, false)}});
      break;
    case ConvPass::kBackwardData:
      op->Main({{DNNL_ARG_DIFF_DST, in(e.md0, d.dst, dnnl_nhwc)}, {DNNL_ARG_WEIGHTS, in(e.wei_prim, d.wei, dnnl_hwio)},
                {DNNL_ARG_DIFF_SRC, op->Buffer(e.md_out, false)}});
      break;
    case ConvPass::kBackwardFilter: {
      dnnl_memory_t dw = op->Buffer(e.wei_prim, false);
      if (from_f32) op->ReorderedAfter(dw, e.wei_prim, 4, d.wei, dnnl_hwio);
      op->Main({{DNNL_ARG_SRC, in(e.md0, d.src, dnnl_nhwc)}, {DNNL_ARG_DIFF_DST, in(e.md1, d.dst, dnnl_nhwc)},
                {DNNL_ARG_DIFF_WEIGHTS, dw}});
      break;
    }
  }
  return op;
}

#endif  // PODBENCH_HAVE_ONEDNN_HEADERS

}  // namespace podbench::kernels::onednn
