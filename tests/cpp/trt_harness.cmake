# The TensorRT plugin harness (tests/cpp/trt_harness_*.cpp). Included by tests/cpp/CMakeLists.txt
# when the turbofno_trt target exists. It loads libturbofno_trt.so with dlopen like TensorRT does;
# it links the core only to compute expected shapes/workspace, and cudart for the GPU part.
add_executable(trt_harness
  ${CMAKE_CURRENT_LIST_DIR}/trt_harness_main.cpp
  ${CMAKE_CURRENT_LIST_DIR}/trt_harness_common.cpp
  ${CMAKE_CURRENT_LIST_DIR}/trt_harness_flow.cpp
  ${CMAKE_CURRENT_LIST_DIR}/trt_harness_cpu.cpp
  ${CMAKE_CURRENT_LIST_DIR}/trt_harness_output_size.cpp
  ${CMAKE_CURRENT_LIST_DIR}/trt_harness_gpu.cpp
  ${CMAKE_CURRENT_LIST_DIR}/trt_harness_support.cpp
  ${CMAKE_CURRENT_LIST_DIR}/trt_harness_mlp.cpp
)
target_link_libraries(trt_harness PRIVATE turbofno_core turbofno_tensorrt_headers CUDA::cudart_static ${CMAKE_DL_LIBS})
add_dependencies(trt_harness turbofno_trt)
# Two ctest entries: the CPU checks (always run), and the GPU part, which exits 77 where no device
# exists (SKIP_RETURN_CODE: ctest reports it Skipped, never Passed).
add_test(NAME trt_plugin_harness COMMAND trt_harness --lib $<TARGET_FILE:turbofno_trt> --cpu-only)
add_test(NAME trt_plugin_harness_gpu COMMAND trt_harness --lib $<TARGET_FILE:turbofno_trt> --gpu-only)
set_tests_properties(trt_plugin_harness_gpu PROPERTIES SKIP_RETURN_CODE 77)

# The TensorRT part of the fuzz campaign (tests/fuzz/campaign.py drives it in chunks); ctest runs a
# 1500-case slice per op with the default seed.
add_executable(trt_fuzz ${CMAKE_CURRENT_LIST_DIR}/../fuzz/trt_fuzz.cpp ${CMAKE_CURRENT_LIST_DIR}/trt_harness_common.cpp)
target_include_directories(trt_fuzz PRIVATE ${CMAKE_CURRENT_LIST_DIR})
target_link_libraries(trt_fuzz PRIVATE turbofno_core turbofno_tensorrt_headers CUDA::cudart_static ${CMAKE_DL_LIBS})
add_dependencies(trt_fuzz turbofno_trt)
add_test(NAME trt_fuzz_slice COMMAND trt_fuzz --lib $<TARGET_FILE:turbofno_trt> --count 1500)
add_test(NAME trt_fuzz_mlp_slice COMMAND trt_fuzz --lib $<TARGET_FILE:turbofno_trt> --op PointwiseMLP --count 1500)
