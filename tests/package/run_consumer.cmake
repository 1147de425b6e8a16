# cmake -P script behind the package.* tests (see CMakeLists.txt next to it).
# Inputs (-D): MODE, TARGET (strided::strided or strided::compiled), STRIDED_SOURCE_DIR, WORK_DIR,
# GENERATOR, CXX_COMPILER, CXX_FLAGS, CXX_STANDARD, BUILD_TYPE; optional PYTHON (the find_package
# consumer's pybind11 module is built for it and imported by it).
cmake_minimum_required(VERSION 3.20)

foreach(_var MODE STRIDED_SOURCE_DIR WORK_DIR GENERATOR CXX_COMPILER)
  if(NOT DEFINED ${_var} OR "${${_var}}" STREQUAL "")
    message(FATAL_ERROR "run_consumer.cmake: -D${_var}=... is required")
  endif()
endforeach()
if(NOT BUILD_TYPE)
  set(BUILD_TYPE Release)
endif()
if(NOT TARGET)
  set(TARGET strided::strided)
endif()

function(run)
  string(JOIN " " _cmd ${ARGN})
  message(STATUS "run: ${_cmd}")
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE _rc)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "failed (${_rc}): ${ARGN}")
  endif()
endfunction()

# What a release tarball or a submodule checkout of strided provides to a consumer. The tests,
# benchmarks and examples are deliberately left out: a consumer must not need them.
function(copy_release_tree dest)
  file(MAKE_DIRECTORY "${dest}")
  foreach(_item CMakeLists.txt LICENSE README.md src)
    if(EXISTS "${STRIDED_SOURCE_DIR}/${_item}")
      file(COPY "${STRIDED_SOURCE_DIR}/${_item}" DESTINATION "${dest}")
    endif()
  endforeach()
  file(COPY "${STRIDED_SOURCE_DIR}/cmake" "${STRIDED_SOURCE_DIR}/include" DESTINATION "${dest}")
endfunction()

set(_here "${CMAKE_CURRENT_LIST_DIR}")
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")

set(_common "-DSTRIDED_CONSUMER_TARGET=${TARGET}" -G "${GENERATOR}" "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}" "-DCMAKE_BUILD_TYPE=${BUILD_TYPE}"
            "-DCMAKE_CXX_FLAGS=${CXX_FLAGS}")
if(CXX_STANDARD)
  list(APPEND _common "-DCMAKE_CXX_STANDARD=${CXX_STANDARD}")
endif()

# The consumer project is copied next to its dependencies, as it would sit in a user's tree.
set(_consumer "${WORK_DIR}/consumer")
file(COPY "${_here}/${MODE}/" DESTINATION "${_consumer}")
file(COPY "${_here}/consumer.cpp" DESTINATION "${_consumer}")
set(_extra "")

if(MODE STREQUAL "find_package")
  # A user's install: configure strided alone (no tests), install into a private prefix.
  set(_prefix "${WORK_DIR}/prefix")
  run("${CMAKE_COMMAND}" -S "${STRIDED_SOURCE_DIR}" -B "${WORK_DIR}/strided-build" ${_common}
      -DSTRIDED_BUILD_TESTS=OFF -DSTRIDED_BUILD_BENCHMARKS=OFF -DSTRIDED_BUILD_EXAMPLES=OFF
      -DSTRIDED_INSTALL=ON)
  run("${CMAKE_COMMAND}" --build "${WORK_DIR}/strided-build" --config "${BUILD_TYPE}")
  run("${CMAKE_COMMAND}" --install "${WORK_DIR}/strided-build" --config "${BUILD_TYPE}" --prefix
      "${_prefix}")
  # Only the prefix: a stray system-wide strided must not make this test pass.
  list(APPEND _extra "-DCMAKE_PREFIX_PATH=${_prefix}" -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF
       -DCMAKE_FIND_USE_SYSTEM_PACKAGE_REGISTRY=OFF)
  if(PYTHON)
    list(APPEND _extra "-DPYTHON_EXECUTABLE=${PYTHON}")
  endif()
elseif(MODE STREQUAL "add_subdirectory")
  copy_release_tree("${_consumer}/external/strided")
elseif(MODE STREQUAL "fetchcontent")
  set(_stage "${WORK_DIR}/stage")
  copy_release_tree("${_stage}/strided-0.1.0")
  # A release-style tarball: strided-0.1.0/{CMakeLists.txt,cmake,include,...}.
  run("${CMAKE_COMMAND}" -E chdir "${_stage}" "${CMAKE_COMMAND}" -E tar czf
      "${WORK_DIR}/strided-0.1.0.tar.gz" strided-0.1.0)
  list(APPEND _extra "-DSTRIDED_URL=file://${WORK_DIR}/strided-0.1.0.tar.gz"
       -DFETCHCONTENT_QUIET=OFF)
else()
  message(FATAL_ERROR "unknown MODE ${MODE}")
endif()

run("${CMAKE_COMMAND}" -S "${_consumer}" -B "${WORK_DIR}/consumer-build" ${_common} ${_extra})
run("${CMAKE_COMMAND}" --build "${WORK_DIR}/consumer-build" --config "${BUILD_TYPE}")
foreach(_exe "${WORK_DIR}/consumer-build/consumer" "${WORK_DIR}/consumer-build/${BUILD_TYPE}/consumer")
  foreach(_suffix "" ".exe")
    if(EXISTS "${_exe}${_suffix}")
      run("${_exe}${_suffix}")
      return()
    endif()
  endforeach()
endforeach()
message(FATAL_ERROR "the consumer executable was not built")
