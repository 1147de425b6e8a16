// .npy files: save a strided view, load it back, check the dtype, use in-memory bytes.
// docs/interop.md shows this file. Exits with 1 if a value is not what NumPy would read.
#include <cstdio>
#include <iostream>
#include <random>
#include <strided/io/npy.hpp>
#include <string>
#include <vector>

int main() {
  using strided::Tensor;
  const std::string path =
      "/tmp/strided_example_" + std::to_string(std::random_device{}()) + ".npy";

  // A [2, 3] matrix; save its transpose. The file holds the [3, 2] values in row-major order,
  // exactly what np.save(path, m.T) would write.
  auto m = Tensor<float>::from_vector({1, 2, 3, 4, 5, 6}, {2, 3}).value();
  if (auto saved = strided::save_npy(path, m.transpose_2d().value()); !saved) {
    std::cerr << saved.error().message() << "\n";
    return 1;
  }

  // Load it back: T must match the file's dtype ('<f4' here), or the error says what it holds.
  auto loaded = strided::load_npy<float>(path);
  if (!loaded) {
    std::cerr << loaded.error().message() << "\n";
    return 1;
  }
  std::cout << *loaded << "\n";
  // tensor([[1., 4.],
  //         [2., 5.],
  //         [3., 6.]])

  auto wrong = strided::load_npy<double>(path);
  std::cout << wrong.error().message() << "\n";
  // load_npy: /tmp/...npy: the file holds descr '<f4', not f64 ('<f8')

  // The same bytes in memory (e.g. from a network buffer or a zip member).
  auto bytes = strided::save_npy_bytes(m).value();
  auto header = strided::parse_npy_header(bytes).value();
  std::cout << header.descr << " " << header.shape.size() << "-d, data at byte "
            << header.data_offset << "\n";  // <f4 2-d, data at byte 128
  auto again = strided::load_npy_bytes<float>(bytes).value();

  std::remove(path.c_str());
  const bool ok = loaded->to_vector() == std::vector<float>{1, 4, 2, 5, 3, 6} &&
                  strided::equal(again, m) && !wrong &&
                  wrong.error().kind() == strided::IoErrorKind::dtype_mismatch;
  return ok ? 0 : 1;
}
