// Compiled as C++17 by tests/diagnostics/check.cmake: must stop at once with one line saying
// that strided needs C++20, not pages of errors from inside the headers.
#include <strided/tensor.hpp>

int main() { return 0; }
