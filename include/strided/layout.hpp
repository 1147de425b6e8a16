// Layout: shape + strides + offset, and all the view algebra on it. Every operation returns a new
// layout and touches no data, so each is constexpr and allocation-free up to inline_rank axes.
// The class is declared in strided/layout_class.hpp; reshape and broadcast_to are defined in
// strided/layout_reshape.hpp, the extended views in strided/layout_views.hpp.
#pragma once

// clang-format off
#include "strided/detail/config.hpp"  // first: the C++20 check
// clang-format on

#include "strided/layout_class.hpp"
#include "strided/layout_reshape.hpp"
#include "strided/layout_views.hpp"
