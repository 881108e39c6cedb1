# CPU kernel sources of turbofno_core (included by plugins/CMakeLists.txt). SIMD code uses
# per-function target pragmas with run-time dispatch, so no -march flag is needed or wanted.
set(TURBOFNO_CPU_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/run_cpu.cpp
  ${CMAKE_CURRENT_LIST_DIR}/plan.cpp
  ${CMAKE_CURRENT_LIST_DIR}/twiddle.cpp
  ${CMAKE_CURRENT_LIST_DIR}/transforms.cpp
  ${CMAKE_CURRENT_LIST_DIR}/thread_pool.cpp
  ${CMAKE_CURRENT_LIST_DIR}/table_cache.cpp
  ${CMAKE_CURRENT_LIST_DIR}/kernels_select.cpp
  ${CMAKE_CURRENT_LIST_DIR}/kernels_portable.cpp
  ${CMAKE_CURRENT_LIST_DIR}/kernels_avx2.cpp
  ${CMAKE_CURRENT_LIST_DIR}/kernels_avx512.cpp
)
