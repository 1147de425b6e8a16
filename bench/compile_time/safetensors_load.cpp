// Compile-time probe and a working program: load a tensor from a safetensors file (mapped,
// zero-copy) and report it. bench/compile_time.py runs it once on a small generated file.
//     safetensors_load batch.safetensors
#include <iostream>
#include <strided/io/safetensors.hpp>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: safetensors_load file.safetensors\n";
    return 2;
  }
  auto file = strided::SafetensorsFile::open(argv[1]);
  if (!file) {
    std::cerr << file.error().message() << "\n";
    return 1;
  }
  auto inputs = file->get<float>("inputs");
  if (!inputs) {
    std::cerr << inputs.error().message() << "\n";
    return 1;
  }
  std::cout << "inputs: " << inputs->shape() << ", first value " << inputs->at({0, 0, 0, 0}).value()
            << "\n";
}
