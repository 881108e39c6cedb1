# Locates the ONNX Runtime C/C++ API headers (1.29.0) and defines the INTERFACE target
# turbofno::ort_headers. Order: -DONNXRUNTIME_INCLUDE_DIR (or the env var of the same name), then the
# user cache ($XDG_CACHE_HOME or ~/.cache)/turbofno/ort-1.29.0/include, else download once into that
# cache with cmake/fetch_ort_headers.py (sha512-verified). Nothing links against libonnxruntime.
set(TURBOFNO_ORT_HEADERS_VERSION "1.29.0")
set(ONNXRUNTIME_INCLUDE_DIR "$ENV{ONNXRUNTIME_INCLUDE_DIR}" CACHE PATH "Directory containing onnxruntime_c_api.h")

if(NOT ONNXRUNTIME_INCLUDE_DIR)
  if(DEFINED ENV{XDG_CACHE_HOME} AND NOT "$ENV{XDG_CACHE_HOME}" STREQUAL "")
    set(_tfno_cache "$ENV{XDG_CACHE_HOME}")
  else()
    set(_tfno_cache "$ENV{HOME}/.cache")
  endif()
  set(_tfno_ort_dir "${_tfno_cache}/turbofno/ort-${TURBOFNO_ORT_HEADERS_VERSION}/include")
  if(NOT EXISTS "${_tfno_ort_dir}/onnxruntime_c_api.h")
    find_package(Python3 REQUIRED COMPONENTS Interpreter)
    message(STATUS "TurboFNO: fetching ONNX Runtime ${TURBOFNO_ORT_HEADERS_VERSION} headers into ${_tfno_ort_dir}")
    execute_process(
      COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/fetch_ort_headers.py ${_tfno_ort_dir}
      RESULT_VARIABLE _tfno_rc)
    if(NOT _tfno_rc EQUAL 0)
      message(FATAL_ERROR "Could not fetch the ONNX Runtime headers (exit ${_tfno_rc}). "
                          "Pass -DONNXRUNTIME_INCLUDE_DIR=<dir with onnxruntime_c_api.h> instead.")
    endif()
  endif()
  set(ONNXRUNTIME_INCLUDE_DIR "${_tfno_ort_dir}" CACHE PATH "Directory containing onnxruntime_c_api.h" FORCE)
endif()

if(NOT EXISTS "${ONNXRUNTIME_INCLUDE_DIR}/onnxruntime_c_api.h")
  message(FATAL_ERROR "ONNXRUNTIME_INCLUDE_DIR=${ONNXRUNTIME_INCLUDE_DIR} has no onnxruntime_c_api.h")
endif()
message(STATUS "TurboFNO: ONNX Runtime headers: ${ONNXRUNTIME_INCLUDE_DIR}")

if(NOT TARGET turbofno::ort_headers)
  add_library(turbofno_ort_headers INTERFACE)
  add_library(turbofno::ort_headers ALIAS turbofno_ort_headers)
  target_include_directories(turbofno_ort_headers SYSTEM INTERFACE "${ONNXRUNTIME_INCLUDE_DIR}")
  # Resolve the OrtApi at RegisterCustomOps time instead of linking libonnxruntime.
  target_compile_definitions(turbofno_ort_headers INTERFACE ORT_API_MANUAL_INIT)
endif()
