# TensorRT headers for trt_plugin/ (headers only: the plugin never links libnvinfer).
# Order: TENSORRT_INCLUDE_DIR, TENSORRT_ROOT (CMake variable or environment), standard system
# paths, the checkout's .deps/tensorrt-10.14.1/include (for offline machines: fill it with
# `python cmake/fetch_tensorrt_headers.py .deps/tensorrt-10.14.1/include` elsewhere and copy it
# along), the user cache (~/.cache/turbofno/tensorrt-10.14.1/include), else fetch NVIDIA's
# TensorRT 10.14.1 headers from the kernel-lens==2.0.1 wheel on PyPI (sha256-verified; see
# cmake/fetch_tensorrt_headers.py). Defines the INTERFACE target turbofno_tensorrt_headers and
# TURBOFNO_TRT_VERSION (e.g. 10.14.1).
if(TARGET turbofno_tensorrt_headers)
  return()
endif()

set(TURBOFNO_TRT_FETCH_VERSION "10.14.1")
if(NOT DEFINED TENSORRT_ROOT AND DEFINED ENV{TENSORRT_ROOT})
  set(TENSORRT_ROOT "$ENV{TENSORRT_ROOT}")
endif()
if(DEFINED ENV{XDG_CACHE_HOME} AND NOT "$ENV{XDG_CACHE_HOME}" STREQUAL "")
  set(_tfno_cache_root "$ENV{XDG_CACHE_HOME}")
else()
  set(_tfno_cache_root "$ENV{HOME}/.cache")
endif()
set(TURBOFNO_TRT_HEADER_CACHE "${_tfno_cache_root}/turbofno/tensorrt-${TURBOFNO_TRT_FETCH_VERSION}/include"
    CACHE PATH "Where fetched TensorRT headers are kept")

set(_tfno_trt_hints)
if(TENSORRT_ROOT)
  list(APPEND _tfno_trt_hints "${TENSORRT_ROOT}/include")
endif()
find_path(TENSORRT_INCLUDE_DIR NvInferRuntime.h
  HINTS ${_tfno_trt_hints}
  PATHS /usr/include/x86_64-linux-gnu /usr/include/aarch64-linux-gnu /usr/local/tensorrt/include
        /opt/tensorrt/include "${PROJECT_SOURCE_DIR}/.deps/tensorrt-${TURBOFNO_TRT_FETCH_VERSION}/include"
        "${TURBOFNO_TRT_HEADER_CACHE}"
  DOC "Folder holding NvInferRuntime.h")

if(NOT TENSORRT_INCLUDE_DIR)
  find_package(Python3 COMPONENTS Interpreter REQUIRED)
  message(STATUS "TurboFNO: no TensorRT headers found; fetching TensorRT ${TURBOFNO_TRT_FETCH_VERSION} headers "
                 "(kernel-lens==2.0.1 wheel) into ${TURBOFNO_TRT_HEADER_CACHE}")
  execute_process(
    COMMAND "${Python3_EXECUTABLE}" "${CMAKE_CURRENT_LIST_DIR}/fetch_tensorrt_headers.py" "${TURBOFNO_TRT_HEADER_CACHE}"
    RESULT_VARIABLE _tfno_fetch_rc)
  if(NOT _tfno_fetch_rc EQUAL 0 OR NOT EXISTS "${TURBOFNO_TRT_HEADER_CACHE}/NvInferRuntime.h")
    message(FATAL_ERROR "TurboFNO: could not obtain TensorRT headers. Set TENSORRT_ROOT (a TensorRT install), "
                        "TENSORRT_INCLUDE_DIR, or pass -DTURBOFNO_BUILD_TRT=OFF.")
  endif()
  set(TENSORRT_INCLUDE_DIR "${TURBOFNO_TRT_HEADER_CACHE}" CACHE PATH "Folder holding NvInferRuntime.h" FORCE)
endif()

# Version: NvInferVersion.h spells it either directly or through TRT_*_ENTERPRISE macros.
file(READ "${TENSORRT_INCLUDE_DIR}/NvInferVersion.h" _tfno_ver_h)
foreach(_part MAJOR MINOR PATCH)
  string(REGEX MATCH "#define[ \t]+TRT_${_part}_ENTERPRISE[ \t]+([0-9]+)" _m "${_tfno_ver_h}")
  if(NOT _m)
    string(REGEX MATCH "#define[ \t]+NV_TENSORRT_${_part}[ \t]+([0-9]+)" _m "${_tfno_ver_h}")
  endif()
  set(_tfno_trt_${_part} "${CMAKE_MATCH_1}")
endforeach()
set(TURBOFNO_TRT_VERSION "${_tfno_trt_MAJOR}.${_tfno_trt_MINOR}.${_tfno_trt_PATCH}")
set(TURBOFNO_TRT_VERSION_MAJOR "${_tfno_trt_MAJOR}")
if(TURBOFNO_TRT_VERSION_MAJOR LESS 8)
  message(FATAL_ERROR "TurboFNO: TensorRT ${TURBOFNO_TRT_VERSION} at ${TENSORRT_INCLUDE_DIR} is too old (8.6+ needed)")
endif()
message(STATUS "TurboFNO: TensorRT headers ${TURBOFNO_TRT_VERSION} at ${TENSORRT_INCLUDE_DIR}")

add_library(turbofno_tensorrt_headers INTERFACE)
target_include_directories(turbofno_tensorrt_headers SYSTEM INTERFACE "${TENSORRT_INCLUDE_DIR}")
