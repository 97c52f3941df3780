// Layouts the property tests run over, and helpers to evaluate a layout over its whole domain.
#pragma once

#include <set>
#include <vector>

#include "tessera/core/layout.hpp"
#include "tessera/core/tuple.hpp"

namespace tessera::test {

// Offsets of l(0), l(1), ..., l(size - 1).
template <class L>
std::vector<long long> offsets(L const& l) {
  std::vector<long long> v;
  for (long long i = 0; i < static_cast<long long>(size(l)); ++i) v.push_back(static_cast<long long>(l(int(i))));
  return v;
}

template <class L>
bool is_injective(L const& l) {
  auto v = offsets(l);
  return std::set<long long>(v.begin(), v.end()).size() == v.size();
}

// Injective layouts with static shapes and strides: compact, strided, nested, padded, with
// unit modes.
inline auto injective_layouts() {
  return make_tuple(
      make_layout(Int<1>{}, Int<0>{}),                                                  // 1:0
      make_layout(Int<8>{}, Int<1>{}),                                                  // 8:1
      make_layout(Int<6>{}, Int<3>{}),                                                  // 6:3
      make_layout(make_tuple(Int<4>{}, Int<3>{})),                                      // (4,3):(1,4)
      make_layout_row_major(make_tuple(Int<4>{}, Int<3>{})),                            // (4,3):(3,1)
      make_layout(make_tuple(Int<2>{}, Int<4>{}), make_tuple(Int<12>{}, Int<1>{})),     // (2,4):(12,1)
      make_layout(make_tuple(Int<4>{}, Int<1>{}, Int<2>{}), make_tuple(Int<1>{}, Int<7>{}, Int<4>{})),
      make_layout(make_tuple(make_tuple(Int<2>{}, Int<2>{}), Int<3>{}),
                  make_tuple(make_tuple(Int<1>{}, Int<6>{}), Int<2>{})),                // ((2,2),3):((1,6),2)
      make_layout(make_tuple(Int<2>{}, make_tuple(Int<3>{}, Int<4>{})),
                  make_tuple(Int<1>{}, make_tuple(Int<2>{}, Int<12>{}))),              // (2,(3,4)):(1,(2,12)) padded
      make_layout(make_tuple(Int<8>{}, Int<8>{}), make_tuple(Int<16>{}, Int<1>{})),     // padded rows
      make_layout(make_tuple(Int<3>{}, Int<5>{}, Int<2>{}),
                  make_tuple(Int<10>{}, Int<2>{}, Int<1>{})));                          // (3,5,2):(10,2,1)
}

// Bijections onto [0, size): compact layouts in several orders and nestings.
inline auto compact_layouts() {
  return make_tuple(
      make_layout(Int<12>{}, Int<1>{}),
      make_layout(make_tuple(Int<4>{}, Int<6>{})),
      make_layout_row_major(make_tuple(Int<4>{}, Int<6>{})),
      make_layout(make_tuple(Int<4>{}, Int<2>{}), make_tuple(Int<2>{}, Int<1>{})),
      make_layout(make_tuple(make_tuple(Int<2>{}, Int<4>{}), make_tuple(Int<2>{}, Int<2>{})),
                  make_tuple(make_tuple(Int<1>{}, Int<4>{}), make_tuple(Int<2>{}, Int<16>{}))),
      make_layout(make_tuple(Int<2>{}, Int<3>{}, Int<4>{}), make_tuple(Int<12>{}, Int<1>{}, Int<3>{})),
      make_layout(make_tuple(Int<2>{}, Int<1>{}, Int<8>{}), make_tuple(Int<8>{}, Int<0>{}, Int<1>{})));
}

}  // namespace tessera::test
