#include "kernels/bench/peers.h"

#include <cblas.h>
#include <dlfcn.h>

#include <oneapi/dnnl/dnnl.hpp>
#include <vector>

namespace podbench::kernels::bench {
namespace {

using dt = dnnl::memory::data_type;
using tag = dnnl::memory::format_tag;
using dims = dnnl::memory::dims;

dnnl::engine& Engine() {
  static dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
}

// Memory of descriptor `md` filled with small values, through an f32 buffer
// of the plain layout `plain` and a reorder, so any type or layout works.
dnnl::memory Filled(const dnnl::memory::desc& md, tag plain) {
  dnnl::memory::desc f32_md(md.dims(), dt::f32, plain);
  dnnl::memory src(f32_md, Engine());
  float* p = static_cast<float*>(src.get_data_handle());
  const std::size_t n = f32_md.get_size() / sizeof(float);
  for (std::size_t i = 0; i < n; ++i) p[i] = float(int(i % 17) - 8) * 0.01f;
  dnnl::memory dst(md, Engine());
  dnnl::stream s(Engine());
  dnnl::reorder(src, dst).execute(s, src, dst);
  s.wait();
  return dst;
}

class Primitive : public OneDnnOp {
 public:
  Primitive(dnnl::primitive prim, std::unordered_map<int, dnnl::memory> args, std::string impl)
      : prim_(std::move(prim)), args_(std::move(args)), impl_(std::move(impl)), stream_(Engine()) {}
  void Run() override {
    prim_.execute(stream_, args_);
    stream_.wait();
  }
  std::string Impl() const override { return impl_; }

 private:
  dnnl::primitive prim_;
  std::unordered_map<int, dnnl::memory> args_;
  std::string impl_;
  dnnl::stream stream_;
};

// The two OpenBLAS entry points the bench uses, resolved from the library
// CMake found (PODBENCH_OPENBLAS_SO), else the runtime's libopenblas.so.0.
struct OpenBlas {
  void (*set_num_threads)(int) = nullptr;
  decltype(&cblas_sgemm) sgemm = nullptr;
};

const OpenBlas& Blas() {
  static const OpenBlas blas = [] {
    OpenBlas b;
    void* h = dlopen(PODBENCH_OPENBLAS_SO, RTLD_NOW | RTLD_LOCAL);
    if (!h) h = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_LOCAL);
    if (!h) return b;
    b.set_num_threads = reinterpret_cast<void (*)(int)>(dlsym(h, "openblas_set_num_threads"));
    b.sgemm = reinterpret_cast<decltype(&cblas_sgemm)>(dlsym(h, "cblas_sgemm"));
    if (!b.set_num_threads || !b.sgemm) b = OpenBlas{};
    return b;
  }();
  return blas;
}

}  // namespace

bool OpenBlasAvailable() { return Blas().sgemm != nullptr; }

void SetPeerThreads(int threads) {
  if (OpenBlasAvailable()) Blas().set_num_threads(threads);
  // oneDNN here uses OpenMP; libgomp is loaded with libdnnl.
  using SetFn = void (*)(int);
  if (void* sym = dlsym(RTLD_DEFAULT, "omp_set_num_threads")) {
    reinterpret_cast<SetFn>(sym)(threads);
  }
}

void OpenBlasSgemm(std::int64_t m, std::int64_t n, std::int64_t k, const float* a, const float* b,
                   float* c) {
  Blas().sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, blasint(m), blasint(n), blasint(k), 1.0f,
              a, blasint(k), b, blasint(n), 0.0f, c, blasint(n));
}

std::unique_ptr<OneDnnOp> MakeOneDnnMatmul(std::int64_t m, std::int64_t n, std::int64_t k, bool bf16) {
  const dt in = bf16 ? dt::bf16 : dt::f32;
  dnnl::memory::desc a_md({m, k}, in, tag::ab), b_md({k, n}, in, tag::ab), c_md({m, n}, dt::f32, tag::ab);
  dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a_md, b_md, c_md), Engine());
  std::unordered_map<int, dnnl::memory> args{{DNNL_ARG_SRC, Filled(a_md, tag::ab)},
                                             {DNNL_ARG_WEIGHTS, Filled(b_md, tag::ab)},
                                             {DNNL_ARG_DST, dnnl::memory(c_md, Engine())}};
  return std::make_unique<Primitive>(dnnl::matmul(pd), std::move(args), pd.impl_info_str());
}

std::unique_ptr<OneDnnOp> MakeOneDnnConv(std::int64_t n, std::int64_t h, std::int64_t w,
                                         std::int64_t c, std::int64_t oc, std::int64_t kh,
                                         std::int64_t kw, std::int64_t stride, std::int64_t pad) {
  const std::int64_t oh = (h + 2 * pad - kh) / stride + 1, ow = (w + 2 * pad - kw) / stride + 1;
  dnnl::memory::desc src_md({n, c, h, w}, dt::f32, tag::nhwc);
  dnnl::memory::desc dst_md({n, oc, oh, ow}, dt::f32, tag::nhwc);
  dnnl::memory::desc wei_any({oc, c, kh, kw}, dt::f32, tag::any);
  dnnl::convolution_forward::desc desc(dnnl::prop_kind::forward_inference,
                                       dnnl::algorithm::convolution_direct, src_md, wei_any, dst_md,
                                       {stride, stride}, {pad, pad}, {pad, pad});
  dnnl::convolution_forward::primitive_desc pd(desc, Engine());
  std::unordered_map<int, dnnl::memory> args{{DNNL_ARG_SRC, Filled(src_md, tag::nhwc)},
                                             {DNNL_ARG_WEIGHTS, Filled(pd.weights_desc(), tag::oihw)},
                                             {DNNL_ARG_DST, dnnl::memory(dst_md, Engine())}};
  return std::make_unique<Primitive>(dnnl::convolution_forward(pd), std::move(args), pd.impl_info_str());
}

}  // namespace podbench::kernels::bench
