# cmake -P script: runs PROGRAM (with ARGS, a ;-list, in WORKDIR) and compares its standard output
# with the file EXPECTED. docs/examples.md quotes those files (checked by docs.snippets), so the
# documentation shows what the examples really print.
cmake_minimum_required(VERSION 3.20)
file(MAKE_DIRECTORY "${WORKDIR}")
execute_process(
  COMMAND "${PROGRAM}" ${ARGS}
  WORKING_DIRECTORY "${WORKDIR}"
  OUTPUT_VARIABLE _actual
  RESULT_VARIABLE _rc)
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "${PROGRAM} exited with ${_rc}")
endif()
file(READ "${EXPECTED}" _expected)
if(NOT _actual STREQUAL _expected)
  message(FATAL_ERROR "${PROGRAM} no longer prints ${EXPECTED}. It prints:\n${_actual}")
endif()
