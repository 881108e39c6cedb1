# CUDA kernel sources of turbofno_core (included by plugins/CMakeLists.txt when CUDA is on).
# One instantiation file per element type; the kernels themselves are header templates.
set(TURBOFNO_CUDA_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/plan.cpp
  ${CMAKE_CURRENT_LIST_DIR}/plan_separable.cpp
  ${CMAKE_CURRENT_LIST_DIR}/dft_c2c.cu
  ${CMAKE_CURRENT_LIST_DIR}/workspace.cpp
  ${CMAKE_CURRENT_LIST_DIR}/pdl.cpp
  ${CMAKE_CURRENT_LIST_DIR}/launch.cu
  ${CMAKE_CURRENT_LIST_DIR}/inst_f32.cu
  ${CMAKE_CURRENT_LIST_DIR}/inst_f16.cu
  ${CMAKE_CURRENT_LIST_DIR}/inst_bf16.cu
  ${CMAKE_CURRENT_LIST_DIR}/pointwise_mlp.cu
)
