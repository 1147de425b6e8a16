#include "catch_shim.hpp"
// from_dlpack_any / to_dlpack(AnyTensor): every dtype through DLPack and back with the dtype
// read from the DLDataType, zero-copy; what cannot be imported. (PyTorch round trips:
// tests/interop/test_interop.py.)
#include <cstdint>
#include <strided/interop/dlpack.hpp>
#include <string>
#include <vector>

#include "any_support.hpp"

using strided::AnyTensor;
using strided::DType;
using strided::IoErrorKind;
using strided::Tensor;

TEST_CASE("dlpack_any: every dtype exports and imports with its dtype, zero-copy") {
  for (const strided::DTypeInfo& row : strided::dtype_registry) {
    INFO(row.name);
    const AnyTensor t =
        strided_test::any_from(Tensor<double>::from_vector({1, 0, 3, -4, 5, 6}, {2, 3}).value(),
                               row.dtype)
            .transpose(0, 1)
            .value();
    DLManagedTensor* m = strided::to_dlpack(t);
    REQUIRE(m != nullptr);
    CHECK(m->dl_tensor.dtype.code == row.dlpack_code);
    CHECK(m->dl_tensor.dtype.bits == row.dlpack_bits);
    auto back = strided::from_dlpack_any(m);
    REQUIRE(back);
    CHECK(back->dtype() == row.dtype);
    CHECK(back->strides() == t.strides());
    CHECK(strided::equal(*back, t));
    CHECK(static_cast<const std::byte*>(back->storage().get()) ==
          static_cast<const std::byte*>(t.storage().get()));
#if STRIDED_DLPACK_HAS_VERSIONED
    auto v = strided::from_dlpack_versioned_any(strided::to_dlpack_versioned(t));
    REQUIRE(v);
    CHECK(strided::equal(*v, t));
#endif
  }
}

namespace {
int deletes = 0;
void count_delete(DLManagedTensor*) { ++deletes; }
}  // namespace

TEST_CASE("dlpack_any: dtypes strided cannot hold are unsupported_dtype; the deleter runs once") {
  float data[4] = {1, 2, 3, 4};
  std::int64_t shape[1] = {4};
  auto make = [&](std::uint8_t code, std::uint8_t bits, std::uint16_t lanes) {
    DLManagedTensor m{};
    m.dl_tensor.data = data;
    m.dl_tensor.device = DLDevice{kDLCPU, 0};
    m.dl_tensor.ndim = 1;
    m.dl_tensor.dtype = DLDataType{code, bits, lanes};
    m.dl_tensor.shape = shape;
    m.deleter = &count_delete;
    return m;
  };
  struct Bad {
    std::uint8_t code, bits;
    std::uint16_t lanes;
    const char* dtype;  // as the message names it: by name where strided has one
  };
  for (Bad bad :
       {Bad{kDLComplex, 64, 1, "{code 5, bits 64}"}, Bad{kDLFloat, 8, 1, "{code 2, bits 8}"},
        Bad{kDLInt, 4, 1, "{code 0, bits 4}"}, Bad{kDLFloat, 32, 2, "f32x2"},
        Bad{kDLOpaqueHandle, 64, 1, "{code 3, bits 64}"}}) {
    deletes = 0;
    DLManagedTensor m = make(bad.code, bad.bits, bad.lanes);
    auto r = strided::from_dlpack_any(&m);
    REQUIRE_FALSE(r);
    CHECK(r.error().kind() == IoErrorKind::unsupported_dtype);
    CHECK(r.error().message() == "from_dlpack_any: <dlpack>: dtype " + std::string(bad.dtype) +
                                     " is no strided element type");
    CHECK(deletes == 1);
  }
  deletes = 0;
  DLManagedTensor gpu = make(kDLFloat, 32, 1);
  gpu.dl_tensor.device.device_type = kDLCUDA;
  auto g = strided::from_dlpack_any(&gpu);
  REQUIRE_FALSE(g);
  CHECK(g.error().kind() == IoErrorKind::unsupported_device);
  CHECK(deletes == 1);
  auto null = strided::from_dlpack_any(nullptr);
  REQUIRE_FALSE(null);
  CHECK(null.error().kind() == IoErrorKind::invalid_argument);
  deletes = 0;
  {
    DLManagedTensor ok = make(kDLFloat, 32, 1);
    auto f = strided::from_dlpack_any(&ok);
    REQUIRE(f);
    CHECK(f->dtype() == DType::f32);
    CHECK(f->as<float>()->to_vector() == std::vector<float>{1, 2, 3, 4});
    CHECK(deletes == 0);
  }
  CHECK(deletes == 1);
}
