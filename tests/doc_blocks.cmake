# The C++ blocks of README.md and docs/*.md, compiled and run (tests/doc_blocks.py says how a
# block is marked). Included from tests/CMakeLists.txt.
#   docs.blocks.lint   every C++ block carries a compile marker, and the markers are well formed
#   docs.blocks.selftest  tests/doc_blocks_test.py: the checker itself, on small made-up pages
#   docs.links         every link and repository path the docs name exists, anchors included
#   docs.example_list  docs/examples.md links every program in examples/
#   docs.tables        the generated tables (docs/figures/tables.py) match docs/figures/copy.csv
#   docs.<page>        the page's blocks, compiled as one program (target doc_<page>) and run;
#                      where the page shows a block's output, the output is compared
# The pages are read at configure time (and again when one changes), so that a page with a
# compiled block gets its target.

find_package(Python3 COMPONENTS Interpreter)
if(NOT Python3_Interpreter_FOUND)
  message(WARNING "python3 not found: the docs' code blocks are not compiled (docs.* tests).")
  add_test(NAME "docs.blocks: SKIPPED" COMMAND "${CMAKE_COMMAND}" -E echo
                                               "SKIPPED: docs.blocks needs python3")
  set_tests_properties("docs.blocks: SKIPPED" PROPERTIES SKIP_REGULAR_EXPRESSION "SKIPPED:" LABELS
                                                         "docs")
  return()
endif()

set(_doc_script "${CMAKE_CURRENT_SOURCE_DIR}/doc_blocks.py")
set(_doc_out "${CMAKE_CURRENT_BINARY_DIR}/doc_blocks")
file(GLOB _doc_pages CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/README.md"
     "${PROJECT_SOURCE_DIR}/docs/*.md")
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${_doc_pages} "${_doc_script}")
execute_process(COMMAND "${Python3_EXECUTABLE}" "${_doc_script}" generate "${PROJECT_SOURCE_DIR}"
                        "${_doc_out}" RESULT_VARIABLE _doc_rc)
if(NOT _doc_rc EQUAL 0)
  message(FATAL_ERROR "tests/doc_blocks.py generate failed (${_doc_rc})")
endif()

add_test(NAME docs.blocks.selftest COMMAND "${Python3_EXECUTABLE}"
                                          "${CMAKE_CURRENT_SOURCE_DIR}/doc_blocks_test.py")
set_tests_properties(docs.blocks.selftest PROPERTIES LABELS "docs" ENVIRONMENT
                                                     "DOC_BLOCKS_CXX=${CMAKE_CXX_COMPILER}")

foreach(_check IN ITEMS lint links examples)
  set(_name "docs.${_check}")
  if(_check STREQUAL "lint")
    set(_name "docs.blocks.lint")
  endif()
  if(_check STREQUAL "examples")
    set(_name "docs.example_list")  # docs.examples runs the blocks of docs/examples.md
  endif()
  add_test(NAME ${_name} COMMAND "${Python3_EXECUTABLE}" "${_doc_script}" ${_check}
                                 "${PROJECT_SOURCE_DIR}")
  set_tests_properties(${_name} PROPERTIES LABELS "docs")
endforeach()

add_test(NAME docs.tables COMMAND "${Python3_EXECUTABLE}" "${PROJECT_SOURCE_DIR}/docs/figures/tables.py"
                                  check "${PROJECT_SOURCE_DIR}")
set_tests_properties(docs.tables PROPERTIES LABELS "docs")

file(STRINGS "${_doc_out}/pages.txt" _doc_listing)
foreach(_entry IN LISTS _doc_listing)
  separate_arguments(_fields UNIX_COMMAND "${_entry}")
  list(GET _fields 0 _target)
  list(GET _fields 1 _page)
  add_executable(${_target} "${_doc_out}/${_target}.cpp")
  strided_target_options(${_target})
  strided_link_optional_deps(${_target})
  target_include_directories(${_target} PRIVATE "${CMAKE_CURRENT_SOURCE_DIR}")
  # Blocks write their files (npy, safetensors) to the working directory.
  set(_workdir "${_doc_out}/run_${_target}")
  file(MAKE_DIRECTORY "${_workdir}")
  string(REGEX REPLACE "^doc_" "" _short "${_target}")
  add_test(NAME "docs.${_short}" COMMAND ${_target} WORKING_DIRECTORY "${_workdir}")
  set_tests_properties("docs.${_short}" PROPERTIES LABELS "docs" TIMEOUT 300)
endforeach()
