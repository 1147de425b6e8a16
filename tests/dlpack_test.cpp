#include <cstdint>
#include <numeric>
#include <strided/interop/dlpack.hpp>
#include <vector>

#include "catch_shim.hpp"

using namespace strided;

namespace {

int buffer_frees = 0;
int producer_deletes = 0;

// A float buffer 0, 1, 2, ... whose release is counted.
Tensor<float> counted_iota(std::size_t n, const Shape& shape) {
  float* raw = new float[n];
  std::iota(raw, raw + n, 0.0f);
  std::shared_ptr<const float> data(raw, [](const float* p) {
    ++buffer_frees;
    delete[] p;
  });
  return Tensor<float>::from_shared(std::move(data), n, Layout::contiguous(shape).value()).value();
}

// A producer-owned DLManagedTensor over `values`, with a counting deleter.
struct Producer {
  std::vector<std::int64_t> shape;
  std::vector<std::int64_t> strides;
  bool null_strides = false;
  DLManagedTensor managed{};

  static DLManagedTensor* make(void* data, DLDataType dtype, std::vector<std::int64_t> shape,
                               std::vector<std::int64_t> strides, bool null_strides = false) {
    auto* p = new Producer{std::move(shape), std::move(strides), null_strides, {}};
    DLTensor& dl = p->managed.dl_tensor;
    dl.data = data;
    dl.device = {kDLCPU, 0};
    dl.ndim = static_cast<int>(p->shape.size());
    dl.dtype = dtype;
    dl.shape = p->shape.data();
    dl.strides = null_strides ? nullptr : p->strides.data();
    dl.byte_offset = 0;
    p->managed.manager_ctx = p;
    p->managed.deleter = [](DLManagedTensor* self) {
      ++producer_deletes;
      delete static_cast<Producer*>(self->manager_ctx);
    };
    return &p->managed;
  }
};

const DLDataType f32{kDLFloat, 32, 1};

}  // namespace

TEST_CASE("dlpack: export folds the offset into data, int64 shape and strides") {
  buffer_frees = 0;
  {
    Tensor<float> base = counted_iota(24, {2, 3, 4});
    Tensor<float> view = base.permute({2, 0, 1}).value().narrow(1, 1, 1).value();
    DLManagedTensor* m = to_dlpack(view);
    REQUIRE(m != nullptr);
    const DLTensor& dl = m->dl_tensor;
    CHECK(dl.device.device_type == kDLCPU);
    CHECK(dl.ndim == 3);
    CHECK(dl.dtype.code == kDLFloat);
    CHECK(dl.dtype.bits == 32);
    CHECK(dl.dtype.lanes == 1);
    CHECK(dl.byte_offset == 0);
    CHECK(std::vector<std::int64_t>(dl.shape, dl.shape + 3) == std::vector<std::int64_t>{4, 1, 3});
    CHECK(std::vector<std::int64_t>(dl.strides, dl.strides + 3) ==
          std::vector<std::int64_t>{1, 12, 4});
    CHECK(static_cast<const float*>(dl.data) == base.storage().get() + 12);
    // The export keeps the buffer alive after every tensor is gone.
    base = Tensor<float>::scalar(0);
    view = base;
    CHECK(buffer_frees == 0);
    CHECK(static_cast<const float*>(dl.data)[1] == 13.0f);
    m->deleter(m);
    CHECK(buffer_frees == 1);
  }
  CHECK(buffer_frees == 1);
}

TEST_CASE("dlpack: element type codes") {
  auto code = [](auto t) {
    DLManagedTensor* m = to_dlpack(t);
    const DLDataType d = m->dl_tensor.dtype;
    m->deleter(m);
    return std::pair<int, int>(d.code, d.bits);
  };
  CHECK(code(Tensor<bool>::scalar(true)) == std::pair<int, int>(dlpack_bool_code, 8));
  CHECK(code(Tensor<f16>::scalar(f16(1.0f))) == std::pair<int, int>(kDLFloat, 16));
  CHECK(code(Tensor<bf16>::scalar(bf16(1.0f))) == std::pair<int, int>(kDLBfloat, 16));
  CHECK(code(Tensor<double>::scalar(1)) == std::pair<int, int>(kDLFloat, 64));
  CHECK(code(Tensor<std::int8_t>::scalar(1)) == std::pair<int, int>(kDLInt, 8));
  CHECK(code(Tensor<std::uint16_t>::scalar(1)) == std::pair<int, int>(kDLUInt, 16));
  CHECK(code(Tensor<std::int64_t>::scalar(1)) == std::pair<int, int>(kDLInt, 64));
}

TEST_CASE("dlpack: round trip is zero-copy and the deleter chain runs once") {
  buffer_frees = 0;
  const float* address = nullptr;
  {
    Tensor<float> base = counted_iota(12, {3, 4});
    Tensor<float> t = base.transpose_2d().value().narrow(0, 1, 2).value();
    address = base.storage().get() + t.offset();
    auto back = from_dlpack<float>(to_dlpack(t));
    REQUIRE(back.has_value());
    CHECK(back->storage().get() + back->offset() == address);
    CHECK(back->shape() == t.shape());
    CHECK(back->strides() == t.strides());
    CHECK(equal(*back, t));
    base = Tensor<float>::scalar(0);
    t = base;
    CHECK(buffer_frees == 0);  // `back` keeps the export, the export keeps the buffer
    auto copy = *back;
    back = Tensor<float>::scalar(0);
    CHECK(buffer_frees == 0);
    CHECK(copy.get({1, 2}) == 10.0f);
  }
  CHECK(buffer_frees == 1);
}

TEST_CASE("dlpack: rank 0, empty and broadcast views") {
  auto s = from_dlpack<double>(to_dlpack(Tensor<double>::scalar(4.5)));
  REQUIRE(s.has_value());
  CHECK(s->rank() == 0);
  CHECK(s->get({}) == 4.5);

  auto e = from_dlpack<float>(to_dlpack(Tensor<float>::zeros({2, 0, 3}).value()));
  REQUIRE(e.has_value());
  CHECK(e->shape() == Shape{2, 0, 3});
  CHECK(e->storage_len() == 0);

  auto b = Tensor<float>::from_vector({1, 2, 3}, {3}).value().broadcast_to({2, 3}).value();
  DLManagedTensor* m = to_dlpack(b);
  CHECK(m->dl_tensor.strides[0] == 0);
  auto back = from_dlpack<float>(m);
  REQUIRE(back.has_value());
  CHECK(back->storage_len() == 3);
  CHECK(back->to_vector() == std::vector<float>{1, 2, 3, 1, 2, 3});
}

TEST_CASE("dlpack: producer tensors: NULL strides, byte_offset, negative strides") {
  producer_deletes = 0;
  std::vector<float> values(12);
  std::iota(values.begin(), values.end(), 0.0f);
  {
    auto t = from_dlpack<float>(Producer::make(values.data(), f32, {3, 4}, {}, true));
    REQUIRE(t.has_value());
    CHECK(t->strides() == Strides{4, 1});
    CHECK(t->storage().get() == values.data());
    CHECK(t->get({2, 3}) == 11.0f);
  }
  CHECK(producer_deletes == 1);
  {
    DLManagedTensor* m = Producer::make(values.data(), f32, {2, 2}, {4, 1});
    m->dl_tensor.byte_offset = 2 * sizeof(float);
    auto t = from_dlpack<float>(m);
    REQUIRE(t.has_value());
    CHECK(t->to_vector() == std::vector<float>{2, 3, 6, 7});
  }
  CHECK(producer_deletes == 2);
  {
    // data at element 11, walking backwards: the reversed matrix.
    auto t = from_dlpack<float>(Producer::make(values.data() + 11, f32, {3, 4}, {-4, -1}));
    REQUIRE(t.has_value());
    CHECK(t->storage().get() == values.data());
    CHECK(t->offset() == 11);
    CHECK(t->to_vector() == std::vector<float>{11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0});
  }
  CHECK(producer_deletes == 3);
}

TEST_CASE("dlpack: import errors consume the tensor and call the deleter once") {
  std::vector<float> values(12, 1.0f);
  struct Case {
    const char* name;
    IoErrorKind kind;
    void (*mutate)(DLTensor&);
  };
  const Case cases[] = {
      {"cuda device", IoErrorKind::unsupported_device,
       [](DLTensor& d) { d.device.device_type = kDLCUDA; }},
      {"wrong dtype", IoErrorKind::dtype_mismatch,
       [](DLTensor& d) {
         d.dtype = {kDLInt, 32, 1};
       }},
      {"wrong bits", IoErrorKind::dtype_mismatch, [](DLTensor& d) { d.dtype.bits = 64; }},
      {"lanes", IoErrorKind::unsupported_dtype, [](DLTensor& d) { d.dtype.lanes = 4; }},
      {"negative size", IoErrorKind::invalid_argument, [](DLTensor& d) { d.shape[0] = -1; }},
      {"ndim 65", IoErrorKind::invalid_argument, [](DLTensor& d) { d.ndim = 65; }},
      {"negative ndim", IoErrorKind::invalid_argument, [](DLTensor& d) { d.ndim = -1; }},
      {"null shape", IoErrorKind::invalid_argument, [](DLTensor& d) { d.shape = nullptr; }},
      {"null data", IoErrorKind::invalid_argument, [](DLTensor& d) { d.data = nullptr; }},
      {"misaligned", IoErrorKind::invalid_argument, [](DLTensor& d) { d.byte_offset = 2; }},
      {"stride overflow", IoErrorKind::shape, [](DLTensor& d) { d.strides[0] = INT64_MAX / 2; }},
      {"reach overflow", IoErrorKind::shape,
       [](DLTensor& d) {
         d.shape[0] = 3;
         d.strides[0] = -(INT64_MAX / 2);
         d.strides[1] = INT64_MAX / 3;
       }},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    producer_deletes = 0;
    DLManagedTensor* m = Producer::make(values.data(), f32, {3, 4}, {4, 1});
    c.mutate(m->dl_tensor);
    auto t = from_dlpack<float>(m);
    REQUIRE_FALSE(t.has_value());
    INFO(t.error().message());
    CHECK(t.error().kind() == c.kind);
    CHECK(t.error().source() == "<dlpack>");
    CHECK(producer_deletes == 1);
  }
  auto null = from_dlpack<float>(nullptr);
  REQUIRE_FALSE(null.has_value());
  CHECK(null.error().kind() == IoErrorKind::invalid_argument);

  // A producer without a deleter (allowed by DLPack) is simply not called back.
  DLManagedTensor* m = Producer::make(values.data(), f32, {12}, {1});
  Producer* owner = static_cast<Producer*>(m->manager_ctx);
  m->deleter = nullptr;
  CHECK(from_dlpack<float>(m).has_value());
  delete owner;
}

TEST_CASE("dlpack: bool, f16 and bf16 round trips keep the bits") {
  auto b = Tensor<bool>::from_vector({true, false, true, true}, {2, 2}).value();
  auto bb = from_dlpack<bool>(to_dlpack(b.transpose_2d().value()));
  REQUIRE(bb.has_value());
  CHECK(bb->to_vector() == std::vector<bool>{true, true, false, true});
  auto h = Tensor<bf16>::full({3}, bf16(-2.5f)).value();
  auto hb = from_dlpack<bf16>(to_dlpack(h));
  REQUIRE(hb.has_value());
  CHECK(equal(*hb, h));
  auto wrong = from_dlpack<f16>(to_dlpack(h));
  REQUIRE_FALSE(wrong.has_value());
  CHECK(wrong.error().kind() == IoErrorKind::dtype_mismatch);
}
