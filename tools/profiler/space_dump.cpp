// Run by CMake at configure time (try_run): prints the valid configurations of the profiler's
// spaces for NVIDIA GPUs, one per line, so that CMake can write one translation unit per
// configuration: GEMMs as "<name>|<gemm::ConfigSpec initializer>", convolutions as
// "conv|<name>|<conv::ConfigSpec initializer>", attention kernels as
// "attention|<name>|<tuning::AttentionSpec initializer>". Arguments: the GEMM space ("default" or
// "reduced"), the convolutions' and attention's ("reduced", "default" or "wide").
#include <cstdio>
#include <cstring>

#include "tessera/tuning/attention_space.hpp"
#include "tessera/tuning/conv_space.hpp"
#include "tessera/tuning/gemm_space.hpp"

int main(int argc, char** argv) {
  using namespace tessera;
  bool const reduced = argc > 1 && std::strcmp(argv[1], "reduced") == 0;
  auto const space = tuning::gemm_space(reduced ? tuning::SpaceSize::kReduced : tuning::SpaceSize::kDefault);
  for (int i = 0; i < space.size; ++i)
    if (space.items[i].valid() && !space.items[i].spec.amd())  // AMD configurations build with hipcc
      std::printf("%s|%s\n", tuning::name(space.items[i].spec).c_str(), tuning::cpp_initializer(space.items[i].spec).c_str());
  tuning::ConvSpaceSize conv_size = reduced ? tuning::ConvSpaceSize::kReduced : tuning::ConvSpaceSize::kDefault;
  for (auto s : {tuning::ConvSpaceSize::kReduced, tuning::ConvSpaceSize::kDefault, tuning::ConvSpaceSize::kWide})
    if (argc > 2 && std::strcmp(argv[2], tuning::conv_space_name(s)) == 0) conv_size = s;
  auto const conv_space = tuning::conv_space(conv_size);
  for (int i = 0; i < conv_space.size; ++i)
    if (conv_space.items[i].valid())
      std::printf("conv|%s|%s\n", tuning::name(conv_space.items[i].spec).c_str(), tuning::cpp_initializer(conv_space.items[i].spec).c_str());
  tuning::AttentionSpaceSize attention_size = reduced ? tuning::AttentionSpaceSize::kReduced : tuning::AttentionSpaceSize::kDefault;
  for (auto s : {tuning::AttentionSpaceSize::kReduced, tuning::AttentionSpaceSize::kDefault, tuning::AttentionSpaceSize::kWide})
    if (argc > 3 && std::strcmp(argv[3], tuning::attention_space_name(s)) == 0) attention_size = s;
  auto const attention_space = tuning::attention_space(attention_size);
  for (int i = 0; i < attention_space.size; ++i)
    if (attention_space.items[i].valid())
      std::printf("attention|%s|%s\n", tuning::name(attention_space.items[i].spec).c_str(),
                  tuning::cpp_initializer(attention_space.items[i].spec).c_str());
  return 0;
}
