#!/usr/bin/env python3
"""Compile time of a first program: strided beside Eigen and xtensor, measured in one run.

Each translation unit builds a small tensor and prints it (what a newcomer's first program does).
They are compiled in turns (A B C ... A B C ...) so that a change in machine load hits every one
alike; each compile's CPU time (user + sys of the compiler and its children) is recorded, and the
median of --reps compiles is reported with its ratio to Eigen's Matrix, the reference point.

    python3 bench/compile_time.py [--cxx g++] [--flags "-O2"] [--reps 5]

Needs Eigen (libeigen3-dev) and xtensor (xtensor-dev); a peer that is missing is skipped and
named. The "all public headers" TU includes every header under include/strided/ whose dependency
(fmt, nlohmann_json, dlpack) is installed.
"""
import argparse
import os
import pathlib
import resource
import statistics
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
INCLUDE = ROOT / "include"

PRINT_STRIDED = """
int main() {
  const auto t = strided::Tensor<float>::from_vector({1, 2, 3, 4, 5, 6}, {2, 3}).value();
  std::cout << t << "\\n";
}
"""

UNITS = {
    "strided tensor.hpp": ("#include <strided/tensor.hpp>\n#include <iostream>\n" + PRINT_STRIDED,
                           []),
    "Eigen Matrix": ("""#include <Eigen/Dense>
#include <iostream>
int main() {
  Eigen::MatrixXf m(2, 3);
  m << 1, 2, 3, 4, 5, 6;
  std::cout << m << "\\n";
}
""", ["/usr/include/eigen3"]),
    "Eigen Tensor": ("""#include <unsupported/Eigen/CXX11/Tensor>
#include <iostream>
int main() {
  Eigen::Tensor<float, 2> t(2, 3);
  t.setValues({{1, 2, 3}, {4, 5, 6}});
  std::cout << t << "\\n";
}
""", ["/usr/include/eigen3"]),
    "xtensor": ("""#include <xtensor/xarray.hpp>
#include <xtensor/xio.hpp>
#include <iostream>
int main() {
  xt::xarray<float> a = {{1, 2, 3}, {4, 5, 6}};
  std::cout << a << "\\n";
}
""", []),
}


def public_headers():
    """Every public header whose third-party dependency is installed here."""
    optional = {"format.hpp": "/usr/include/fmt/format.h",
                "safetensors.hpp": "/usr/include/nlohmann/json.hpp",
                "dlpack.hpp": "/usr/include/dlpack/dlpack.h"}
    headers = []
    for path in sorted(INCLUDE.glob("strided/**/*.hpp")):
        rel = path.relative_to(INCLUDE).as_posix()
        if "/detail/" in rel:
            continue
        need = optional.get(path.name)
        if need is None or os.path.exists(need):
            headers.append(rel)
    return headers


def available(unit_name, include_dirs):
    probe = {"Eigen Matrix": "Eigen/Dense", "Eigen Tensor": "unsupported/Eigen/CXX11/Tensor",
             "xtensor": "xtensor/xarray.hpp"}.get(unit_name)
    if probe is None:
        return True
    return any(pathlib.Path(d, probe).exists() for d in include_dirs + ["/usr/include"])


def cpu_seconds_of(cmd):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cxx", default="g++")
    parser.add_argument("--flags", default="-O2")
    parser.add_argument("--reps", type=int, default=5)
    args = parser.parse_args()

    units = dict(UNITS)
    includes = "".join(f"#include <{h}>\n" for h in public_headers())
    units["strided, all public headers"] = (includes + "#include <iostream>\n" + PRINT_STRIDED, [])

    with tempfile.TemporaryDirectory() as tmp:
        commands = {}
        for name, (source, dirs) in units.items():
            if not available(name, dirs):
                print(f"skipped: {name} (not installed)")
                continue
            path = pathlib.Path(tmp, name.replace(" ", "_").replace(",", "") + ".cpp")
            path.write_text(source)
            commands[name] = ([args.cxx, "-std=c++20", *args.flags.split(), f"-I{INCLUDE}"] +
                              [f"-I{d}" for d in dirs] +
                              ["-c", str(path), "-o", os.devnull])
        times = {name: [] for name in commands}
        for _ in range(args.reps):
            for name, cmd in commands.items():
                times[name].append(cpu_seconds_of(cmd))

    reference = statistics.median(times["Eigen Matrix"]) if "Eigen Matrix" in times else None
    print(f"{args.cxx} {args.flags}, CPU seconds per compile, median of {args.reps}:")
    for name, samples in times.items():
        median = statistics.median(samples)
        ratio = f"  {median / reference:.2f}x Eigen Matrix" if reference else ""
        spread = f"[{min(samples):.2f}-{max(samples):.2f}]"
        print(f"  {name:30s} {median:6.2f} s {spread:>13s}{ratio}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
