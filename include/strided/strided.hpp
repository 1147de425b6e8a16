// Everything in strided that needs nothing but the standard library: tensors, views, casts,
// printing, runtime dtypes (AnyTensor), batches, map/zip_with, threads, the buffer cache and .npy
// files. The headers that need a third-party library stay opt-in: <strided/format.hpp> (fmt),
// <strided/io/safetensors.hpp> (nlohmann_json), <strided/interop/dlpack.hpp> (dlpack).
#pragma once

// clang-format off
#include "strided/detail/config.hpp"  // first: the C++20 check
// clang-format on

#include "strided/any_tensor.hpp"
#include "strided/batch.hpp"
#include "strided/buffer_cache.hpp"
#include "strided/dtype.hpp"
#include "strided/element.hpp"
#include "strided/error.hpp"
#include "strided/gather.hpp"
#include "strided/half.hpp"
#include "strided/io/error.hpp"
#include "strided/io/npy.hpp"
#include "strided/layout.hpp"
#include "strided/layout_views.hpp"
#include "strided/map.hpp"
#include "strided/parallel.hpp"
#include "strided/ranges.hpp"
#include "strided/reduce.hpp"
#include "strided/result.hpp"
#include "strided/runs.hpp"
#include "strided/shape.hpp"
#include "strided/tensor.hpp"
#include "strided/tensor_span.hpp"
#include "strided/values.hpp"
#include "strided/view_ops.hpp"
