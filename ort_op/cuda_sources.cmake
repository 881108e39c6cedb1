# CUDAExecutionProvider op sources of libturbofno_ort (included by ort_op/CMakeLists.txt when CUDA is on).
set(TURBOFNO_ORT_CUDA_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/cuda_common.cc
  ${CMAKE_CURRENT_LIST_DIR}/op_cuda.cc
  ${CMAKE_CURRENT_LIST_DIR}/mlp_cuda.cc
)
