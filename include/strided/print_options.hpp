// PrintOptions: how Display writes a tensor (strided::display, fmt::format("{:.2}", t)).
#pragma once

// clang-format off
#include "strided/detail/config.hpp"  // first: the C++20 check
// clang-format on

#include <cstddef>
#include <optional>

namespace strided {

/// Display options: PyTorch's torch.set_printoptions, passed explicitly (there is no global
/// state). Defaults are PyTorch's.
struct PrintOptions {
  /// Decimals of floating-point values (negative counts as 0).
  int precision = 4;
  /// Summarise when numel() > threshold (SIZE_MAX: never).
  std::size_t threshold = 1000;
  /// Items shown at each end of a summarised axis.
  std::size_t edgeitems = 3;
  /// Characters per line before a row wraps.
  std::size_t linewidth = 80;
  /// Force (true) or forbid (false) scientific notation; nullopt lets the values decide.
  std::optional<bool> sci_mode = std::nullopt;
};

}  // namespace strided
