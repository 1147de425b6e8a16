// The shared library tests/interop/test_interop.py loads (ctypes.PyDLL, so the GIL is held in
// every call) to exercise strided's DLPack, .npy and safetensors doors against real PyTorch and
// NumPy.
//
// It speaks Python's C API without <Python.h> (python3-dev is not needed): the few capsule
// functions below are resolved from the running interpreter when the library is loaded.
#include <cstdint>
#include <cstring>
#include <map>
#include <strided/interop/dlpack.hpp>
#include <strided/io/npy.hpp>
#include <string>
#include <type_traits>
#include <vector>
#if defined(STRIDED_INTEROP_SAFETENSORS)
#include <strided/io/safetensors.hpp>
#endif

using namespace strided;

extern "C" {
struct StridedPyObject;  // opaque PyObject
using PyObject = StridedPyObject;
PyObject* PyCapsule_New(void* pointer, const char* name, void (*destructor)(PyObject*));
void* PyCapsule_GetPointer(PyObject* capsule, const char* name);
int PyCapsule_IsValid(PyObject* capsule, const char* name);
int PyCapsule_SetName(PyObject* capsule, const char* name);
void PyErr_Clear();
}

namespace {

// ----- counters the Python test reads -------------------------------------------------------
long long g_buffer_frees = 0;      // element buffers made here and released
long long g_export_deletes = 0;    // deleters of our exports that ran
long long g_import_deletes = 0;    // producer deleters (PyTorch's) that ran after an import
std::uintptr_t g_last_export = 0;  // address of element [0..0] of the last export
std::string g_last_error;

template <class T>
T value_of(std::size_t i) {
  const auto s = static_cast<std::int64_t>(i);
  if constexpr (std::is_same_v<T, bool>)
    return i % 2 == 1;
  else if constexpr (std::is_same_v<T, f16> || std::is_same_v<T, bf16>)
    return T(static_cast<float>(s - 5));
  else if constexpr (std::is_signed_v<T>)
    return static_cast<T>(s - 5);
  else
    return static_cast<T>(s);
}

// A counted buffer holding value_of(0 .. n-1), seen as `shape`.
template <class T>
Tensor<T> counted(std::size_t n, const Shape& shape, std::size_t first = 0) {
  T* raw = new T[n];
  for (std::size_t i = 0; i < n; ++i) raw[i] = value_of<T>(first + i);
  std::shared_ptr<const T> data(raw, [](const T* p) {
    ++g_buffer_frees;
    delete[] p;
  });
  return Tensor<T>::from_shared(std::move(data), n, Layout::contiguous(shape).value()).value();
}

// The views the Python side recomputes with NumPy (see test_interop.py: VIEWS).
template <class T>
Result<Tensor<T>> make_view(const std::string& view) {
  if (view == "scalar") return counted<T>(1, {}, 12);
  Tensor<T> base = counted<T>(24, {2, 3, 4});
  if (view == "base") return base;
  if (view == "transpose") return base.transpose(0, 2);
  if (view == "permute") return base.permute({2, 0, 1});
  if (view == "narrow") return base.narrow(1, 1, 2);
  if (view == "broadcast") return base.narrow(0, 1, 1).value().broadcast_to({5, 3, 4});
  if (view == "empty") return base.narrow(1, 3, 0);
  if (view == "row") return base.narrow(0, 1, 1).value().narrow(1, 2, 1).value().reshape({4});
  return ShapeError::invalid_argument("make_view", "unknown view");
}

// Calls f(T{}) for the element type named like element_traits<T>::name (the dtype registry).
template <class F>
bool with_dtype(const std::string& name, F&& f) {
  const auto dtype = dtype_from_name(name);
  if (!dtype) {
    g_last_error = "unknown dtype " + name;
    return false;
  }
  visit_dtype(*dtype, [&]<class T>(std::type_identity<T>) { f(T{}); });
  return true;
}

// ----- export: our deleter, counted ----------------------------------------------------------
std::map<DLManagedTensor*, void (*)(DLManagedTensor*)> g_export_deleters;

void counting_export_deleter(DLManagedTensor* m) {
  ++g_export_deletes;
  auto it = g_export_deleters.find(m);
  auto original = it->second;
  g_export_deleters.erase(it);
  original(m);
}

// The DLPack Python protocol: a capsule still named "dltensor" when it dies was never consumed,
// so its owner must run the deleter; a consumer renames it "used_dltensor" and owns it.
void capsule_destructor(PyObject* capsule) {
  if (PyCapsule_IsValid(capsule, "dltensor") == 0) return;
  auto* m = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule, "dltensor"));
  if (m != nullptr && m->deleter != nullptr) m->deleter(m);
}

// ----- import: the producer's deleter, counted -----------------------------------------------
struct ImportWrap {
  DLManagedTensor wrapper;
  DLManagedTensor* producer;
};

void counting_import_deleter(DLManagedTensor* m) {
  auto* wrap = static_cast<ImportWrap*>(m->manager_ctx);
  ++g_import_deletes;
  if (wrap->producer->deleter != nullptr) wrap->producer->deleter(wrap->producer);
  delete wrap;
}

struct Imported {
  std::shared_ptr<const void> keep;
  std::uintptr_t address = 0;
  std::vector<std::int64_t> shape, strides;
  std::vector<double> values;
  std::string dtype;  // the element type's name
};
std::map<long long, Imported> g_imports;
long long g_next_import = 1;

// Records an imported tensor for the getters below; returns its handle.
template <class T>
long long record_import(const Tensor<T>& t) {
  Imported imp;
  imp.keep = t.storage();
  imp.address = reinterpret_cast<std::uintptr_t>(t.storage().get() + t.offset());
  for (std::size_t k = 0; k < t.rank(); ++k) {
    imp.shape.push_back(static_cast<std::int64_t>(t.shape()[k]));
    imp.strides.push_back(static_cast<std::int64_t>(t.strides()[k]));
  }
  for (T v : t.to_vector()) imp.values.push_back(static_cast<double>(v));
  imp.dtype = element_traits<T>::name;
  const long long id = g_next_import++;
  g_imports.emplace(id, std::move(imp));
  return id;
}

}  // namespace

extern "C" {

const char* strided_last_error() { return g_last_error.c_str(); }
long long strided_buffer_frees() { return g_buffer_frees; }
long long strided_export_deletes() { return g_export_deletes; }
long long strided_import_deletes() { return g_import_deletes; }
unsigned long long strided_last_export_address() { return g_last_export; }

/// A "dltensor" capsule over view `view` of a fresh counted tensor of `dtype`, exported by the
/// typed to_dlpack or (through_any) by to_dlpack(const AnyTensor&); NULL on error.
static PyObject* export_capsule(const char* dtype, const char* view, bool through_any) {
  DLManagedTensor* m = nullptr;
  const bool known = with_dtype(dtype, [&](auto tag) {
    using T = decltype(tag);
    auto t = make_view<T>(view);
    if (!t) {
      g_last_error = t.error().message();
      return;
    }
    m = through_any ? to_dlpack(AnyTensor(*t)) : to_dlpack(*t);
    g_last_export = reinterpret_cast<std::uintptr_t>(m->dl_tensor.data);
  });
  if (!known || m == nullptr) return nullptr;
  g_export_deleters[m] = m->deleter;
  m->deleter = &counting_export_deleter;
  return PyCapsule_New(m, "dltensor", &capsule_destructor);
}

PyObject* strided_export(const char* dtype, const char* view) {
  return export_capsule(dtype, view, false);
}
PyObject* strided_export_any(const char* dtype, const char* view) {
  return export_capsule(dtype, view, true);
}

/// Imports a "dltensor" capsule (renaming it "used_dltensor", as consumers do) as a tensor of
/// `dtype` ("any": whatever the capsule holds, through from_dlpack_any). `fake_device` != 0
/// pretends the producer said kDLCUDA. Returns a handle > 0, or
/// -(IoErrorKind) with strided_last_error() set.
long long strided_import(PyObject* capsule, const char* dtype, int fake_device) {
  if (PyCapsule_IsValid(capsule, "dltensor") == 0) {
    g_last_error = "not an unconsumed \"dltensor\" capsule";
    return -static_cast<long long>(IoErrorKind::invalid_argument);
  }
  auto* producer = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule, "dltensor"));
  PyCapsule_SetName(capsule, "used_dltensor");
  auto* wrap = new ImportWrap{};
  wrap->producer = producer;
  wrap->wrapper = DLManagedTensor{producer->dl_tensor, wrap, &counting_import_deleter};
  if (fake_device != 0) wrap->wrapper.dl_tensor.device.device_type = kDLCUDA;
  if (std::string(dtype) == "any") {  // the dtype read from the capsule: from_dlpack_any
    auto t = from_dlpack_any(&wrap->wrapper);
    if (!t) {
      g_last_error = t.error().message();
      return -static_cast<long long>(t.error().kind());
    }
    return t->visit([](const auto& typed) { return record_import(typed); });
  }
  long long result = 0;
  const bool known = with_dtype(dtype, [&](auto tag) {
    using T = decltype(tag);
    auto t = from_dlpack<T>(&wrap->wrapper);
    if (!t) {
      g_last_error = t.error().message();
      result = -static_cast<long long>(t.error().kind());
      return;
    }
    result = record_import(*t);
  });
  if (!known) {
    counting_import_deleter(&wrap->wrapper);
    return -static_cast<long long>(IoErrorKind::invalid_argument);
  }
  return result;
}

int strided_imported_rank(long long id) { return static_cast<int>(g_imports.at(id).shape.size()); }
long long strided_imported_dim(long long id, int k) {
  return g_imports.at(id).shape.at(static_cast<std::size_t>(k));
}
long long strided_imported_stride(long long id, int k) {
  return g_imports.at(id).strides.at(static_cast<std::size_t>(k));
}
unsigned long long strided_imported_address(long long id) { return g_imports.at(id).address; }
long long strided_imported_numel(long long id) {
  return static_cast<long long>(g_imports.at(id).values.size());
}
double strided_imported_value(long long id, long long i) {
  return g_imports.at(id).values.at(static_cast<std::size_t>(i));
}
/// The element type name of an imported tensor ("f32").
const char* strided_imported_dtype(long long id) { return g_imports.at(id).dtype.c_str(); }
/// Drops the imported tensor: the producer's deleter runs now.
void strided_release(long long id) { g_imports.erase(id); }

/// Writes view `view` of a `dtype` tensor to `path` as .npy format `version` (0 = default).
/// Returns 0, or -(IoErrorKind) with strided_last_error() set.
int strided_save_npy(const char* path, const char* dtype, const char* view, int version) {
  int rc = 0;
  const bool known = with_dtype(dtype, [&](auto tag) {
    using T = decltype(tag);
    auto t = make_view<T>(view);
    if (!t) {
      g_last_error = t.error().message();
      rc = -static_cast<int>(IoErrorKind::shape);
      return;
    }
    auto saved = save_npy(path, *t, {version});
    if (!saved) {
      g_last_error = saved.error().message();
      rc = -static_cast<int>(saved.error().kind());
    }
  });
  return known ? rc : -static_cast<int>(IoErrorKind::invalid_argument);
}

#if defined(STRIDED_INTEROP_SAFETENSORS)
/// Writes, with save_safetensors, the view `view` of every element type as "<dtype>" plus
/// metadata {"writer": "strided"}. Returns 0, or -(IoErrorKind) with strided_last_error() set.
int strided_save_safetensors(const char* path, const char* view) {
  std::vector<SafetensorsEntry> entries;
  for (const char* name :
       {"bool", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "f16", "bf16", "f32", "f64"})
    with_dtype(name, [&](auto tag) {
      using T = decltype(tag);
      entries.emplace_back(name, make_view<T>(view).value());
    });
  auto saved = save_safetensors(path, entries, {{"writer", "strided"}});
  if (!saved) {
    g_last_error = saved.error().message();
    return -static_cast<int>(saved.error().kind());
  }
  return 0;
}
#endif

}  // extern "C"
