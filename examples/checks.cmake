# Included at the end of examples/CMakeLists.txt (after the per-file example targets exist):
#   - example.<name>.output: <name>'s output equals examples/expected/<name>.txt (the text
#     docs/examples.md quotes), run in its own directory (examples may write files there);
#   - example.<name>.python: the Python halves of numpy_exchange, dlpack_torch and
#     normalize_images (their output
#     compared with examples/expected/<name>_py.txt), run with a Python 3 that has NumPy
#     (and PyTorch for dlpack_torch): STRIDED_PYTHON when set, else /usr/bin/python3 or the
#     python3 on PATH. Without one they show as SKIPPED.

file(GLOB _strided_expected CONFIGURE_DEPENDS "${CMAKE_CURRENT_SOURCE_DIR}/expected/*.txt")
foreach(_file IN LISTS _strided_expected)
  get_filename_component(_name "${_file}" NAME_WE)
  if(TARGET ${_name})
    add_test(NAME example.${_name}.output
             COMMAND "${CMAKE_COMMAND}" -D "PROGRAM=$<TARGET_FILE:${_name}>" -D
                     "WORKDIR=${CMAKE_CURRENT_BINARY_DIR}/${_name}.output.d" -D "EXPECTED=${_file}" -P
                     "${CMAKE_CURRENT_SOURCE_DIR}/compare_output.cmake")
    set_tests_properties(example.${_name}.output PROPERTIES LABELS "docs;example")
  endif()
endforeach()

# strided_example_python(<out var> <modules>): a Python 3 that imports <modules>, or "".
function(strided_example_python out modules)
  set(_found "")
  find_program(_strided_path_python NAMES python3)
  foreach(_candidate IN ITEMS "${STRIDED_PYTHON}" /usr/bin/python3 "${_strided_path_python}")
    if(_candidate AND EXISTS "${_candidate}")
      execute_process(
        COMMAND "${_candidate}" -c "import ${modules}"
        RESULT_VARIABLE _rc
        OUTPUT_QUIET ERROR_QUIET)
      if(_rc EQUAL 0)
        set(_found "${_candidate}")
        break()
      endif()
    endif()
  endforeach()
  set(${out}
      "${_found}"
      PARENT_SCOPE)
endfunction()

function(strided_example_python_skip name why)
  message(STATUS "strided examples: skipping ${name} (needs ${why})")
  add_test(NAME "${name}: SKIPPED" COMMAND "${CMAKE_COMMAND}" -E echo "SKIPPED: ${name} needs ${why}")
  set_tests_properties("${name}: SKIPPED" PROPERTIES SKIP_REGULAR_EXPRESSION "SKIPPED:")
endfunction()

# example.<name>.python: runs examples/<name>.py with <arg> and compares what it prints with
# examples/expected/<name>_py.txt (the script also asserts the values itself).
function(strided_example_python_test name python arg)
  add_test(NAME example.${name}.python
           COMMAND "${CMAKE_COMMAND}" -D "PROGRAM=${python}" -D
                   "ARGS=${CMAKE_CURRENT_SOURCE_DIR}/${name}.py;${arg}" -D
                   "WORKDIR=${CMAKE_CURRENT_BINARY_DIR}/${name}.python.d" -D
                   "EXPECTED=${CMAKE_CURRENT_SOURCE_DIR}/expected/${name}_py.txt" -P
                   "${CMAKE_CURRENT_SOURCE_DIR}/compare_output.cmake")
endfunction()

if(TARGET numpy_exchange)
  strided_example_python(_numpy_python numpy)
  if(_numpy_python)
    strided_example_python_test(numpy_exchange "${_numpy_python}" "$<TARGET_FILE:numpy_exchange>")
    set_tests_properties(example.numpy_exchange.python PROPERTIES LABELS "example;python")
  else()
    strided_example_python_skip(example.numpy_exchange.python "a Python 3 with numpy")
  endif()
endif()

if(TARGET dlpack_torch)
  strided_example_python(_torch_python torch)
  if(_torch_python)
    # The C++ half as a shared library for ctypes. Not strided_target_options: sanitizer runtimes
    # cannot be loaded into an uninstrumented Python, so it gets the warnings only.
    add_library(dlpack_torch_lib SHARED dlpack_torch.cpp)
    target_link_libraries(dlpack_torch_lib PRIVATE strided::strided dlpack::dlpack)
    if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
      target_compile_options(dlpack_torch_lib PRIVATE ${STRIDED_WARNING_FLAGS})
      if(STRIDED_WERROR)
        target_compile_options(dlpack_torch_lib PRIVATE -Werror)
      endif()
    endif()
    strided_example_python_test(dlpack_torch "${_torch_python}" "$<TARGET_FILE:dlpack_torch_lib>")
    set_tests_properties(example.dlpack_torch.python PROPERTIES LABELS "example;python")
  else()
    strided_example_python_skip(example.dlpack_torch.python "a Python 3 with torch")
  endif()
endif()

if(TARGET normalize_images)
  strided_example_python(_torch_np_python "numpy, torch")
  if(_torch_np_python)
    strided_example_python_test(normalize_images "${_torch_np_python}"
                                "$<TARGET_FILE:normalize_images>")
    set_tests_properties(example.normalize_images.python PROPERTIES LABELS "example;python")
  else()
    strided_example_python_skip(example.normalize_images.python "a Python 3 with numpy and torch")
  endif()
endif()
