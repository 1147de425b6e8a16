// The library's errors: ShapeError (layout and construction, strided/shape_error.hpp) and
// DataError (batch assembly, strided/data_error.hpp), each with its kinds and std::error_code
// category.
#pragma once

// clang-format off
#include "strided/detail/config.hpp"  // first: the C++20 check
// clang-format on

#include "strided/data_error.hpp"
#include "strided/shape_error.hpp"
