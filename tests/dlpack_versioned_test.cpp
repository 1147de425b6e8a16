#include "catch_shim.hpp"
// The DLPack >= 1.0 forms, compiled against tests/interop/dlpack_v1/dlpack/dlpack.h (the 1.0 ABI)
// because the system header may predate them. It must come before strided's header.
#include "interop/dlpack_v1/dlpack/dlpack.h"
// (keep this order)
#include <cstdint>
#include <numeric>
#include <strided/interop/dlpack.hpp>
#include <vector>

using namespace strided;

static_assert(STRIDED_DLPACK_HAS_VERSIONED == 1);

namespace {

int deletes = 0;

struct Producer {
  std::vector<std::int64_t> shape;
  DLManagedTensorVersioned managed{};

  static DLManagedTensorVersioned* make(float* data, std::vector<std::int64_t> shape) {
    auto* p = new Producer{std::move(shape), {}};
    p->managed.version = {1, 3};  // a later minor version is compatible
    p->managed.flags = DLPACK_FLAG_BITMASK_READ_ONLY | DLPACK_FLAG_BITMASK_IS_COPIED;
    DLTensor& dl = p->managed.dl_tensor;
    dl.data = data;
    dl.device = {kDLCPU, 0};
    dl.ndim = static_cast<std::int32_t>(p->shape.size());
    dl.dtype = {kDLFloat, 32, 1};
    dl.shape = p->shape.data();
    dl.strides = nullptr;
    p->managed.manager_ctx = p;
    p->managed.deleter = [](DLManagedTensorVersioned* self) {
      ++deletes;
      delete static_cast<Producer*>(self->manager_ctx);
    };
    return &p->managed;
  }
};

}  // namespace

TEST_CASE("dlpack versioned: export sets the version and the read-only flag") {
  auto base = Tensor<float>::from_vector({0, 1, 2, 3, 4, 5}, {2, 3}).value();
  auto view = base.transpose_2d().value().narrow(0, 1, 2).value();
  DLManagedTensorVersioned* m = to_dlpack_versioned(view);
  REQUIRE(m != nullptr);
  CHECK(m->version.major == 1);
  CHECK(m->version.minor == 0);
  CHECK(m->flags == DLPACK_FLAG_BITMASK_READ_ONLY);
  CHECK(m->dl_tensor.ndim == 2);
  CHECK(m->dl_tensor.strides[0] == 1);
  CHECK(m->dl_tensor.strides[1] == 3);
  CHECK(static_cast<const float*>(m->dl_tensor.data) == base.storage().get() + 1);
  auto back = from_dlpack_versioned<float>(m);
  REQUIRE(back.has_value());
  CHECK(back->to_vector() == std::vector<float>{1, 4, 2, 5});
  CHECK(back->storage().get() + back->offset() == base.storage().get() + 1);
  auto b = to_dlpack_versioned(Tensor<bool>::scalar(true));
  CHECK(b->dl_tensor.dtype.code == kDLBool);  // dlpack_bool_code is the 1.0 header's kDLBool
  b->deleter(b);
}

TEST_CASE("dlpack versioned: import, flags, version check, deleter once") {
  std::vector<float> values(6);
  std::iota(values.begin(), values.end(), 0.0f);
  deletes = 0;
  {
    auto t = from_dlpack_versioned<float>(Producer::make(values.data(), {2, 3}));
    REQUIRE(t.has_value());
    CHECK(t->storage().get() == values.data());
    CHECK(t->strides() == Strides{3, 1});
    CHECK(t->get({1, 2}) == 5.0f);
    CHECK(deletes == 0);
  }
  CHECK(deletes == 1);

  DLManagedTensorVersioned* future = Producer::make(values.data(), {6});
  future->version.major = 2;
  auto rejected = from_dlpack_versioned<float>(future);
  REQUIRE_FALSE(rejected.has_value());
  CHECK(rejected.error().kind() == IoErrorKind::unsupported_version);
  CHECK(std::string(rejected.error().op()) == "from_dlpack_versioned");
  CHECK(deletes == 2);

  DLManagedTensorVersioned* gpu = Producer::make(values.data(), {6});
  gpu->dl_tensor.device.device_type = kDLCUDA;
  auto on_gpu = from_dlpack_versioned<float>(gpu);
  REQUIRE_FALSE(on_gpu.has_value());
  CHECK(on_gpu.error().kind() == IoErrorKind::unsupported_device);
  CHECK(deletes == 3);
}
