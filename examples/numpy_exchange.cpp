// Exchanging arrays with NumPy through .npy files (strided/io/npy.hpp, no dependency).
//   numpy_exchange [dir]   (dir defaults to the working directory)
// Writes <dir>/from_cpp.npy (a transposed int32 view, saved row-major) and reads it back; if
// <dir>/from_python.npy exists (numpy_exchange.py writes it: a Fortran-order float64 array), loads
// and prints it. numpy_exchange.py runs this program and loads from_cpp.npy with NumPy; CTest runs
// both. docs/examples.md shows this file. Exits with 1 on a wrong value.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <iostream>
#include <strided/io/npy.hpp>
#include <string>

int main(int argc, char** argv) {
  using strided::Tensor;
  const std::filesystem::path dir = argc > 1 ? argv[1] : ".";

  // [save]
  // 0 1 2 / 3 4 5 as int32, seen transposed: save_npy writes the view's logical (row-major)
  // order, so NumPy loads [[0, 3], [1, 4], [2, 5]] with C order.
  const auto a = Tensor<std::int32_t>::from_vector({0, 1, 2, 3, 4, 5}, {2, 3}).value();
  const Tensor<std::int32_t> at = a.transpose_2d().value();
  const std::string out = (dir / "from_cpp.npy").string();
  if (auto saved = strided::save_npy(out, at); !saved) {
    std::cerr << saved.error().message() << "\n";
    return 1;
  }
  // [save]
  // load_npy<T> checks the dtype exactly: the file holds '<i4', so T is std::int32_t.
  const auto back = strided::load_npy<std::int32_t>(out).value();
  std::cout << "from_cpp.npy read back: " << back << "\n";
  if (!strided::equal(back, at)) return 1;
  std::cout << strided::load_npy<float>(out).error().what() << "\n";

  const std::filesystem::path py = dir / "from_python.npy";
  if (!std::filesystem::exists(py)) return 0;
  // [load]
  // A Fortran-order file loads as a zero-copy transposed view of the file's data.
  const auto b = strided::load_npy<double>(py.string()).value();
  std::cout << "from_python.npy:\n" << b << "\n" << strided::to_debug_string(b) << "\n";
  // [load]
  for (std::size_t i = 0; i < 2; ++i)
    for (std::size_t j = 0; j < 3; ++j)
      if (*b.get({i, j}) != static_cast<double>(3 * i + j) / 2) return 1;
  return 0;
}
