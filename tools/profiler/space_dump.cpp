// Run by CMake at configure time (try_run): prints the valid configurations of the profiler's
// space for NVIDIA GPUs, one per line as "<name>|<ConfigSpec initializer>", so that CMake can write one
// translation unit per configuration. Argument: "default" or "reduced".
#include <cstdio>
#include <cstring>

#include "tessera/tuning/gemm_space.hpp"

int main(int argc, char** argv) {
  using namespace tessera;
  bool const reduced = argc > 1 && std::strcmp(argv[1], "reduced") == 0;
  auto const space = tuning::gemm_space(reduced ? tuning::SpaceSize::kReduced : tuning::SpaceSize::kDefault);
  for (int i = 0; i < space.size; ++i)
    if (space.items[i].valid() && !space.items[i].spec.amd())  // AMD configurations build with hipcc
      std::printf("%s|%s\n", tuning::name(space.items[i].spec).c_str(), tuning::cpp_initializer(space.items[i].spec).c_str());
  return 0;
}
