# The pybind11 casters against real NumPy and PyTorch: pybind11_module.cpp is built as the
# extension module strided_pybind11_test, which test_pybind11.py imports; CTest runs it as
# `pybind11_python` (labels unit;python). Needs what interop_python needs (dlpack, a Python 3
# with numpy and torch) and pybind11 (Debian: pybind11-dev), built for that same Python.

function(strided_pybind11_skip why)
  message(STATUS "strided tests: skipping pybind11_python (${why})")
  add_test(NAME "pybind11_python: SKIPPED" COMMAND "${CMAKE_COMMAND}" -E echo
                                                   "SKIPPED: pybind11_python needs ${why}")
  set_tests_properties("pybind11_python: SKIPPED" PROPERTIES SKIP_REGULAR_EXPRESSION "SKIPPED:")
endfunction()

function(strided_pybind11_tests python)
  if(CMAKE_CROSSCOMPILING)
    strided_pybind11_skip("a native build (the host Python cannot load a cross-compiled module)")
    return()
  endif()
  if(CMAKE_CXX_FLAGS MATCHES "-fno-exceptions")
    strided_pybind11_skip("exceptions (pybind11 reports errors as C++ exceptions)")
    return()
  endif()
  # pybind11's classic mode finds its Python through PYTHON_EXECUTABLE: the interpreter that
  # has numpy and torch. (tests/doc_blocks.cmake's find_package(Python3) would switch pybind11
  # to its FindPython mode, with whatever python3 that found: hidden in this function's scope.)
  set(PYTHON_EXECUTABLE "${python}")
  set(Python3_FOUND FALSE)
  find_package(pybind11 2.6 QUIET CONFIG)
  if(NOT pybind11_FOUND)
    strided_pybind11_skip("pybind11 (Debian: pybind11-dev)")
    return()
  endif()
  # Like strided_interop_test: warnings but never STRIDED_SANITIZE (Python is not instrumented).
  pybind11_add_module(strided_pybind11_test MODULE NO_EXTRAS pybind11_module.cpp)
  target_link_libraries(strided_pybind11_test PRIVATE strided::strided dlpack::dlpack)
  if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
    target_compile_options(strided_pybind11_test PRIVATE ${STRIDED_WARNING_FLAGS})
    if(STRIDED_WERROR)
      target_compile_options(strided_pybind11_test PRIVATE -Werror)
    endif()
  endif()
  add_test(NAME pybind11_python COMMAND "${python}" "${CMAKE_CURRENT_SOURCE_DIR}/test_pybind11.py"
                                        "$<TARGET_FILE_DIR:strided_pybind11_test>")
  set_tests_properties(pybind11_python PROPERTIES LABELS "unit;python" TIMEOUT 600)
endfunction()
