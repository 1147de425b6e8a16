# Flags for strided's OWN targets (tests, benchmarks, examples). Never put on strided::strided:
# consumers choose their own warnings.
include_guard(GLOBAL)

set(STRIDED_WARNING_FLAGS -Wall -Wextra -Wpedantic -Wconversion -Wshadow)

# strided_target_options(<target>): link strided::strided, add warnings (-Werror when
# STRIDED_WERROR) and the sanitizers named in STRIDED_SANITIZE.
function(strided_target_options target)
  target_link_libraries(${target} PRIVATE strided::strided)
  if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
    target_compile_options(${target} PRIVATE ${STRIDED_WARNING_FLAGS})
    if(STRIDED_WERROR)
      target_compile_options(${target} PRIVATE -Werror)
    endif()
    if(STRIDED_SANITIZE)
      set(_flags -fsanitize=${STRIDED_SANITIZE} -fno-sanitize-recover=all -fno-omit-frame-pointer)
      target_compile_options(${target} PRIVATE ${_flags})
      target_link_options(${target} PRIVATE ${_flags})
      if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
        # GCC's -Wmaybe-uninitialized is unreliable with sanitizer instrumentation (the GCC
        # manual says so): it fires inside libstdc++'s std::function/std::regex as used by Catch2.
        target_compile_options(${target} PRIVATE -Wno-maybe-uninitialized)
      endif()
    endif()
  elseif(MSVC)
    target_compile_options(${target} PRIVATE /W4 /permissive-)
    if(STRIDED_WERROR)
      target_compile_options(${target} PRIVATE /WX)
    endif()
    if(STRIDED_SANITIZE)
      target_compile_options(${target} PRIVATE /fsanitize=${STRIDED_SANITIZE})
    endif()
  endif()
endfunction()

# strided_find_optional_deps(): look up the optional third-party libraries that some tests and
# examples use, once per build. Sets STRIDED_HAVE_<DEP> (FMT, NLOHMANN_JSON, DLPACK, EIGEN) in the
# caller.
macro(strided_find_optional_deps)
  if(NOT TARGET fmt::fmt)
    find_package(fmt QUIET)
  endif()
  find_package(nlohmann_json 3 QUIET)
  find_package(dlpack QUIET)
  find_package(Eigen3 3.3 QUIET NO_MODULE)
  set(STRIDED_HAVE_FMT OFF)
  set(STRIDED_HAVE_NLOHMANN_JSON OFF)
  set(STRIDED_HAVE_DLPACK OFF)
  if(TARGET fmt::fmt)
    set(STRIDED_HAVE_FMT ON)
  endif()
  if(TARGET nlohmann_json::nlohmann_json)
    set(STRIDED_HAVE_NLOHMANN_JSON ON)
  endif()
  if(TARGET dlpack::dlpack)
    set(STRIDED_HAVE_DLPACK ON)
  endif()
  set(STRIDED_HAVE_EIGEN OFF)
  if(TARGET Eigen3::Eigen)
    set(STRIDED_HAVE_EIGEN ON)
  endif()
endmacro()

# strided_required_dep(<file name> <out var>): the optional dependency a test or example file
# needs, by naming convention (documented in tests/CMakeLists.txt): fmt_* -> FMT,
# dlpack_* -> DLPACK, safetensors_* / json_* -> NLOHMANN_JSON, eigen_* -> EIGEN, anything else
# -> "" (none).
function(strided_required_dep file out)
  get_filename_component(_name "${file}" NAME)
  set(_dep "")
  if(_name MATCHES "^fmt_")
    set(_dep FMT)
  elseif(_name MATCHES "^dlpack_")
    set(_dep DLPACK)
  elseif(_name MATCHES "^(safetensors|json)_")
    set(_dep NLOHMANN_JSON)
  elseif(_name MATCHES "^eigen_")
    set(_dep EIGEN)
  endif()
  set(${out}
      "${_dep}"
      PARENT_SCOPE)
endfunction()

# strided_link_optional_deps(<target>): define STRIDED_HAVE_<DEP>=1 and link every optional
# dependency that was found, so a test can also use one conditionally (#ifdef STRIDED_HAVE_FMT).
function(strided_link_optional_deps target)
  if(STRIDED_HAVE_FMT)
    target_compile_definitions(${target} PRIVATE STRIDED_HAVE_FMT=1)
    target_link_libraries(${target} PRIVATE fmt::fmt)
  endif()
  if(STRIDED_HAVE_NLOHMANN_JSON)
    target_compile_definitions(${target} PRIVATE STRIDED_HAVE_NLOHMANN_JSON=1)
    target_link_libraries(${target} PRIVATE nlohmann_json::nlohmann_json)
  endif()
  if(STRIDED_HAVE_DLPACK)
    target_compile_definitions(${target} PRIVATE STRIDED_HAVE_DLPACK=1)
    target_link_libraries(${target} PRIVATE dlpack::dlpack)
  endif()
  if(STRIDED_HAVE_EIGEN)
    target_compile_definitions(${target} PRIVATE STRIDED_HAVE_EIGEN=1)
    target_link_libraries(${target} PRIVATE Eigen3::Eigen)
  endif()
endfunction()
