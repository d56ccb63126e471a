# Every dependency comes from a Debian 12 package; scripts/install-deps.sh
# installs them all. A missing one fails here with the package to install.
macro(podbench_require found_var what package)
  if(NOT ${found_var})
    message(FATAL_ERROR
      "podbench needs ${what}: install the Debian package '${package}' "
      "(or run: sudo bash scripts/install-deps.sh)")
  endif()
endmacro()

find_package(Threads REQUIRED)

find_package(CLI11 CONFIG QUIET)
podbench_require(CLI11_FOUND "CLI11" libcli11-dev)
find_package(yaml-cpp CONFIG QUIET)
podbench_require(yaml-cpp_FOUND "yaml-cpp" libyaml-cpp-dev)
find_package(SQLite3 QUIET)
podbench_require(SQLite3_FOUND "SQLite3" libsqlite3-dev)
find_package(nlohmann_json CONFIG QUIET)
podbench_require(nlohmann_json_FOUND "nlohmann-json" nlohmann-json3-dev)
find_package(simdjson CONFIG QUIET)
podbench_require(simdjson_FOUND "simdjson" libsimdjson-dev)
find_package(fmt CONFIG QUIET)
podbench_require(fmt_FOUND "fmt" libfmt-dev)
find_package(GTest CONFIG QUIET)
if(NOT GTest_FOUND)
  find_package(GTest QUIET)
endif()
podbench_require(GTest_FOUND "GoogleTest" "libgtest-dev libgmock-dev")
find_package(benchmark CONFIG QUIET)
podbench_require(benchmark_FOUND "Google Benchmark" libbenchmark-dev)

if(PODBENCH_MPI)
  find_package(MPI QUIET COMPONENTS CXX)
  podbench_require(MPI_CXX_FOUND "OpenMPI" "libopenmpi-dev openmpi-bin")
endif()

# oneDNN is a kernel backend loaded with dlopen() at run time (kernels/onednn):
# the build needs its C header only; without it the backend reports itself
# unavailable and the other kernels run.
find_path(DNNL_INCLUDE_DIR oneapi/dnnl/dnnl.h)

if(PODBENCH_BENCHMARKS)
  podbench_require(DNNL_INCLUDE_DIR "oneDNN" libdnnl-dev)
  find_package(BLAS QUIET)
  find_path(OPENBLAS_INCLUDE_DIR cblas.h PATH_SUFFIXES openblas openblas-pthread)
  find_library(OPENBLAS_LIBRARY NAMES openblas)
  if(OPENBLAS_INCLUDE_DIR AND OPENBLAS_LIBRARY)
    set(OPENBLAS_FOUND TRUE)
  endif()
  podbench_require(OPENBLAS_FOUND "OpenBLAS" libopenblas-dev)
endif()

find_path(TURBOJPEG_INCLUDE_DIR turbojpeg.h)
find_library(TURBOJPEG_LIBRARY NAMES turbojpeg)
if(TURBOJPEG_INCLUDE_DIR AND TURBOJPEG_LIBRARY)
  set(TURBOJPEG_FOUND TRUE)
  add_library(podbench_turbojpeg INTERFACE)
  target_include_directories(podbench_turbojpeg SYSTEM INTERFACE ${TURBOJPEG_INCLUDE_DIR})
  target_link_libraries(podbench_turbojpeg INTERFACE ${TURBOJPEG_LIBRARY})
endif()
podbench_require(TURBOJPEG_FOUND "TurboJPEG (JPEG decode for the input pipeline)" libturbojpeg0-dev)
