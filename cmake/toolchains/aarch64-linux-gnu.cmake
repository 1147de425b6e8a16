# Cross-compiles strided's tests and examples for aarch64 Linux with Debian's
# g++-aarch64-linux-gnu, and runs them under qemu-user (Debian's qemu-user-static) through
# CMAKE_CROSSCOMPILING_EMULATOR, so `ctest` works as on the host:
#   cmake -S . -B build-aarch64 -G Ninja -DCMAKE_BUILD_TYPE=Release \
#         -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/aarch64-linux-gnu.cmake
#   cmake --build build-aarch64 && ctest --test-dir build-aarch64
# The host's header-only CMake packages (Catch2 2.x, nlohmann_json, dlpack) serve the target as
# well; fmt is a compiled library and the host's copy is x86-64, so it is not looked for (its
# tests show as skipped).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)

set(STRIDED_AARCH64_TRIPLE aarch64-linux-gnu)
set(CMAKE_C_COMPILER ${STRIDED_AARCH64_TRIPLE}-gcc)
set(CMAKE_CXX_COMPILER ${STRIDED_AARCH64_TRIPLE}-g++)

# The target's libraries and headers; programs (cmake, python) come from the host.
set(CMAKE_FIND_ROOT_PATH /usr/${STRIDED_AARCH64_TRIPLE})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)
set(CMAKE_DISABLE_FIND_PACKAGE_fmt ON)

find_program(STRIDED_QEMU_AARCH64 NAMES qemu-aarch64-static qemu-aarch64)
if(STRIDED_QEMU_AARCH64)
  # -L: where the emulated program finds the aarch64 dynamic loader and libstdc++.
  set(CMAKE_CROSSCOMPILING_EMULATOR "${STRIDED_QEMU_AARCH64};-L;/usr/${STRIDED_AARCH64_TRIPLE}")
endif()
