# Compiles kernels.cpp to assembly at OPT (-O2, -O3, ...) and reads what the compiler made of it:
#   - every transpose micro-kernel (transpose_tile_sse2 / _avx2_* / _avx512_* / _neon) is
#     straight-line code, no jump and no call: its register arrays were unrolled whole and its
#     helpers inlined, or the registers live on the stack (GCC -O2 did this, 2-6x slower);
#   - the scalar kernels (transpose_tile_scalar) have one loop at most, over columns: the copies
#     of a column are unrolled, as GCC did at -O3 only;
#   - transpose_few_rows (through few_rows_band) calls nothing but the micro-kernel, through its
#     pointer, and the C library's mem* functions: GCC -O2 kept its per-tile lambda out of line
#     (2x slower);
#   - on x86, prefetch_two_lines issues its two prefetches (GCC -O2 deleted them);
#   - map / zip_with's row loop (map_row_add, float x + y) holds packed adds at -O2 and -O3 (GCC
#     -O2 left the plain loop scalar); -Os is not asked to vectorise.
#   cmake -D COMPILER=... -D OPT=-O2 -D INCLUDE=... -D SOURCE=.../kernels.cpp -D OUT=file.s
#         -D X86=ON|OFF -P check.cmake   (X86: the compiler targets x86, where prefetches are issued)
execute_process(COMMAND "${COMPILER}" -std=c++20 "${OPT}" -DNDEBUG -S "-I${INCLUDE}" "${SOURCE}"
                        -o "${OUT}"
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${SOURCE} did not compile at ${OPT}:\n${err}")
endif()

file(STRINGS "${OUT}" lines)
# x86: jcc / jmp / call; aarch64: b, b.cond, cbz / cbnz, tbz / tbnz, bl, blr.
set(branch "^[ \t]+(j[a-z]+|call[a-z]*|b|b\\.[a-z]+|bl|blr|cbn?z|tbn?z)[ \t]")
set(direct_call "^[ \t]+(call[a-z]*[ \t]+[^* \t]|bl[ \t])")
set(function "")
set(kernels 0)
set(scalar_kernels 0)
set(bands 0)
set(prefetches 0)
set(packed_adds 0)
set(failures "")
foreach(line IN LISTS lines)
  if(line MATCHES "^([A-Za-z_][A-Za-z0-9_.$]*):")
    set(function "${CMAKE_MATCH_1}")
    set(branches 0)
    if(function MATCHES "transpose_tile_(sse2|avx2|avx512|neon)")
      math(EXPR kernels "${kernels} + 1")
    elseif(function MATCHES "transpose_tile_scalar")
      math(EXPR scalar_kernels "${scalar_kernels} + 1")
    elseif(function MATCHES "few_rows")
      math(EXPR bands "${bands} + 1")
    endif()
  elseif(function MATCHES "transpose_tile_(sse2|avx2|avx512|neon)")
    if(line MATCHES "${branch}")
      string(APPEND failures "\n  ${function}: ${line}")
    endif()
  elseif(function MATCHES "transpose_tile_scalar")
    if(line MATCHES "${branch}")
      math(EXPR branches "${branches} + 1")
      if(branches EQUAL 2)
        string(APPEND failures "\n  ${function}: a second branch: ${line}")
      endif()
    endif()
  elseif(function MATCHES "few_rows")  # the wrapper, and transpose_few_rows if not inlined in it
    if(line MATCHES "${direct_call}" AND NOT line MATCHES "[ \t]_ZN7strided6detail9copy_impl18transpose_few_rowsE|mem(cpy|move|set)")
      string(APPEND failures "\n  ${function}: ${line}")
    endif()
  elseif(function MATCHES "prefetch_two_lines" AND line MATCHES "^[ \t]+prefetcht0[ \t]")
    math(EXPR prefetches "${prefetches} + 1")
  elseif(function MATCHES "map_row_add|dense_row" AND
         line MATCHES "^[ \t]+(v?addps[ \t]|fadd[ \t]+v[0-9]+\\.4s)")
    math(EXPR packed_adds "${packed_adds} + 1")
  endif()
endforeach()

if(kernels EQUAL 0 OR scalar_kernels EQUAL 0 OR bands EQUAL 0)
  message(FATAL_ERROR "in ${OUT}: ${kernels} SIMD micro-kernels, ${scalar_kernels} scalar ones, "
                      "${bands} few-rows bands; expected some of each")
endif()
if(NOT failures STREQUAL "")
  message(FATAL_ERROR "at ${OPT}, code that is not what the kernels need:${failures}")
endif()
if(X86 AND NOT prefetches EQUAL 2)
  message(FATAL_ERROR "at ${OPT}, prefetch_two_lines issues ${prefetches} prefetches, not 2")
endif()
if(NOT OPT STREQUAL "-Os" AND packed_adds EQUAL 0)
  message(FATAL_ERROR "at ${OPT}, the map / zip_with row loop (map_row_add) is not vectorised")
endif()
message(STATUS "ok at ${OPT}: ${kernels} SIMD micro-kernels straight-line, ${scalar_kernels} "
               "scalar ones unrolled, the band inlined, ${prefetches} prefetches, "
               "${packed_adds} packed adds in the map row")
