// Uses the package as an application would: the umbrella header, a layout and a conversion.
#include <tessera/tessera.hpp>

#include <cstdio>

int main() {
  using namespace tessera;
  auto tile = make_layout(make_tuple(Int<4>{}, Int<8>{}));
  auto tiles = zipped_divide(make_layout(make_tuple(16, 32)), make_tuple(Int<4>{}, Int<8>{}));
  bool ok = size(tile) == 32 && tiles(33) == 5 && float(bfloat16_t(1.5f)) == 1.5f;
  std::printf("consumer: %s %s\n", to_string(tiles).c_str(), ok ? "ok" : "WRONG");
  return ok ? 0 : 1;
}
