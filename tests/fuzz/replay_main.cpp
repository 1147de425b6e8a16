// Replays fuzz inputs without libFuzzer: `<target>_replay file-or-dir...` runs
// LLVMFuzzerTestOneInput on every file (directories are walked recursively). This is how the
// committed corpus and regression inputs run in every build (gcc, ASan+UBSan, Release), and how
// a finding is reproduced.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

int run_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "replay: cannot open %s\n", path.string().c_str());
    return 1;
  }
  const std::vector<char> bytes((std::istreambuf_iterator<char>(in)),
                                std::istreambuf_iterator<char>());
  // A copy into exactly-sized heap memory, as libFuzzer does, so ASan sees any overread.
  std::vector<std::uint8_t> exact(bytes.begin(), bytes.end());
  LLVMFuzzerTestOneInput(exact.data(), exact.size());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t count = 0;
  int failures = 0;
  for (int i = 1; i < argc; ++i) {
    const std::filesystem::path arg(argv[i]);
    if (std::filesystem::is_directory(arg)) {
      for (const auto& entry : std::filesystem::recursive_directory_iterator(arg)) {
        if (!entry.is_regular_file()) continue;
        failures += run_file(entry.path());
        ++count;
      }
    } else {
      failures += run_file(arg);
      ++count;
    }
  }
  std::printf("replay: %zu inputs, %d unreadable\n", count, failures);
  return failures == 0 && count > 0 ? 0 : 1;
}
