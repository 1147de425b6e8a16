// The text engine: Display (PyTorch's str(t)) and Debug (structure + bounded preview), written
// with std::to_chars only. It works on a buffer pointer + Layout, never on Tensor, so that
// tensor.hpp can include it; the public entry points (operator<<, to_string, to_debug_string,
// display, PrintOptions) are at the end of tensor.hpp, the fmt/std formatters in format.hpp.
#pragma once

#include "strided/detail/format_debug.hpp"
#include "strided/detail/format_display.hpp"
#include "strided/detail/format_number.hpp"
