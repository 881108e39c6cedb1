# CPU kernel sources of turbofno_core (included by plugins/CMakeLists.txt). SIMD code uses
# per-function target pragmas with run-time dispatch, so no -march flag is needed or wanted.
set(TURBOFNO_CPU_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/run_cpu.cpp
  ${CMAKE_CURRENT_LIST_DIR}/plan.cpp
  ${CMAKE_CURRENT_LIST_DIR}/twiddle.cpp
  ${CMAKE_CURRENT_LIST_DIR}/transforms.cpp
  ${CMAKE_CURRENT_LIST_DIR}/last_axis.cpp
  ${CMAKE_CURRENT_LIST_DIR}/thread_pool.cpp
  ${CMAKE_CURRENT_LIST_DIR}/table_cache.cpp
  ${CMAKE_CURRENT_LIST_DIR}/kernels_select.cpp
  ${CMAKE_CURRENT_LIST_DIR}/gelu_table.cpp
  ${CMAKE_CURRENT_LIST_DIR}/kernels_portable.cpp
  ${CMAKE_CURRENT_LIST_DIR}/kernels_avx2.cpp
  ${CMAKE_CURRENT_LIST_DIR}/kernels_avx512.cpp
  ${CMAKE_CURRENT_LIST_DIR}/skip_avx512.cpp
  ${CMAKE_CURRENT_LIST_DIR}/pointwise_mlp.cpp
)
# The activations (activation.h) are branch-free selects that GCC if-converts into vector blends only
# when it may assume FP operations do not trap (AVX-512 masks work either way; AVX2 and SSE need
# this). It changes no result: no reassociation, no fast-math, IEEE rounding as before.
set_source_files_properties(
  ${CMAKE_CURRENT_LIST_DIR}/kernels_portable.cpp
  ${CMAKE_CURRENT_LIST_DIR}/kernels_avx2.cpp
  ${CMAKE_CURRENT_LIST_DIR}/kernels_avx512.cpp
  ${CMAKE_CURRENT_LIST_DIR}/skip_avx512.cpp
  PROPERTIES COMPILE_OPTIONS "$<$<CXX_COMPILER_ID:GNU,Clang>:-fno-trapping-math>")
