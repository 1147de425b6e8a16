// Load a checkpoint whose tensors' dtypes are not known in advance: every tensor comes back as an
// AnyTensor (zero-copy, the dtype read from the file), prints like PyTorch with its dtype, and is
// turned into the Tensor<T> the computation needs by cast() + as<T>().
// Usage: safetensors_unknown_checkpoint [file.safetensors]. Without an argument it first writes
// a small mixed-dtype checkpoint (checkpoint_example.safetensors in the working directory, removed
// at the end). Needs nlohmann_json. docs/dtypes.md shows this file and its output
// (examples/expected/safetensors_unknown_checkpoint.txt, checked by CTest).
#include <cstdio>
#include <iostream>
#include <strided/any_tensor.hpp>
#include <strided/io/safetensors.hpp>
#include <string>
#include <vector>

namespace {

using strided::AnyTensor;
using strided::DType;
using strided::Tensor;

// A checkpoint of mixed dtypes, as training code writes them.
bool write_demo(const std::string& path) {
  const auto weight = Tensor<float>::from_vector({0.5f, -1, 2, 0.25f, 1, -0.5f}, {2, 3}).value();
  const AnyTensor half_weight = AnyTensor(weight).cast(DType::f16).value();
  const auto step = Tensor<std::int64_t>::scalar(1200);
  const auto mask = Tensor<bool>::from_vector({true, false, true}, {3}).value();
  const AnyTensor embed = AnyTensor(Tensor<double>::from_vector({1, 2, 3, 4}, {2, 2}).value())
                              .cast(DType::bf16)
                              .value();
  auto saved = strided::save_safetensors(
      path, {{"layer.weight", half_weight}, {"step", step}, {"mask", mask}, {"embed", embed}});
  if (!saved) std::cerr << saved.error().message() << "\n";
  return saved.has_value();
}

std::string shape_text(const strided::Shape& shape) {
  std::string out = "[";
  for (std::size_t k = 0; k < shape.size(); ++k) out += (k ? ", " : "") + std::to_string(shape[k]);
  return out + "]";
}

}  // namespace

int main(int argc, char** argv) {
  const bool demo = argc < 2;
  const std::string path = demo ? "checkpoint_example.safetensors" : argv[1];
  if (demo && !write_demo(path)) return 1;

  // [load]
  auto file = strided::SafetensorsFile::open(path);
  if (!file) {
    std::cerr << file.error().message() << "\n";
    return 1;
  }
  auto tensors = file->all();  // every tensor, in file order, as AnyTensor
  if (!tensors) {
    std::cerr << tensors.error().message() << "\n";
    return 1;
  }
  double total = 0;
  for (const auto& [name, t] : *tensors) {
    std::cout << name << ": " << t.dtype() << " " << shape_text(t.shape()) << "\n" << t << "\n";
    // Whatever the stored type, compute in f32: cast() converts (exactly as Tensor<T>::cast),
    // as<float>() hands back the typed tensor.
    const Tensor<float> values = t.cast(DType::f32).value().as<float>().value();
    for (float v : values.values()) total += v;
  }
  std::cout << "sum of all values as f32: " << total << "\n";
  // [load]

  // [typed]
  // Typed access checks the dtype: asking for the wrong one is an error naming both.
  auto wrong = (*tensors)[0].second.as<double>();
  if (!wrong) std::cout << wrong.error().message() << "\n";
  // [typed]

  if (!demo) return 0;
  std::remove(path.c_str());
  return total == 1200 + 2.25 + 2 + 10 ? 0 : 1;  // step + weights + mask + embed
}
