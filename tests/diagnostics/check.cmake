# Runs the compiler on SOURCE (-fsyntax-only, -std=STD, include dir INCLUDE) and requires it to
# FAIL with output matching EXPECT, in at most MAX_ERRORS lines containing "error".
#   cmake -D COMPILER=... -D STD=c++17 -D INCLUDE=... -D SOURCE=... -D EXPECT=regex
#         -D MAX_ERRORS=n -P check.cmake
execute_process(COMMAND "${COMPILER}" "-std=${STD}" -fsyntax-only "-I${INCLUDE}" "${SOURCE}"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
set(text "${out}${err}")
if(rc EQUAL 0)
  message(FATAL_ERROR "${SOURCE} compiled with -std=${STD}, but must not")
endif()
if(NOT text MATCHES "${EXPECT}")
  message(FATAL_ERROR "the diagnostic does not say '${EXPECT}':\n${text}")
endif()
string(REGEX MATCHALL "error" errors "${text}")
list(LENGTH errors count)
if(count GREATER MAX_ERRORS)
  message(FATAL_ERROR "${count} errors (at most ${MAX_ERRORS} expected):\n${text}")
endif()
message(STATUS "ok: ${count} error(s), the first says '${EXPECT}'")
