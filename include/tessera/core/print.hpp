// Printing of integer tuples and layouts for debugging, on the host and in device code.
//
// Static integers print with a leading underscore, run-time ones without:
//   print(make_layout(make_tuple(Int<4>{}, 3)));     // (_4,3):(_1,_4)
//   std::cout << to_string(layout) << "\n";          // host only
#pragma once

#include <cstdio>
#include <string>
#include <type_traits>

#include "tessera/core/config.hpp"
#include "tessera/core/integral.hpp"
#include "tessera/core/layout.hpp"
#include "tessera/core/swizzle.hpp"
#include "tessera/core/tuple.hpp"

namespace tessera {

namespace detail {
// Writes through `out(const char*)`, so that one formatter serves printf and std::string.
template <class Out, class T>
TESSERA_HOST_DEVICE void format_int_tuple(Out& out, T const& t) {
  if constexpr (is_tuple_v<T>) {
    out("(");
    [&]<std::size_t... Is>(std::index_sequence<Is...>) {
      ((out(Is == 0 ? "" : ","), format_int_tuple(out, get<Is>(t))), ...);
    }(std::make_index_sequence<tuple_size_v<T>>{});
    out(")");
  } else {
    char buf[32];
    long long v = static_cast<long long>(t);
    // snprintf is not available in every device runtime: format by hand.
    int n = 0;
    bool neg = v < 0;
    unsigned long long u = neg ? 0ull - static_cast<unsigned long long>(v) : static_cast<unsigned long long>(v);
    char digits[24];
    do {
      digits[n++] = char('0' + u % 10);
      u /= 10;
    } while (u != 0);
    int k = 0;
    if (is_constant_v<T>) buf[k++] = '_';
    if (neg) buf[k++] = '-';
    while (n > 0) buf[k++] = digits[--n];
    buf[k] = '\0';
    out(buf);
  }
}

template <class Out, class S, class D>
TESSERA_HOST_DEVICE void format_layout(Out& out, Layout<S, D> const& l) {
  format_int_tuple(out, l.shape());
  out(":");
  format_int_tuple(out, l.stride());
}

template <class Out, int B, int M, int S, class Inner>
TESSERA_HOST_DEVICE void format_layout(Out& out, SwizzledLayout<Swizzle<B, M, S>, Inner> const& l) {
  char buf[48];
  int k = 0;
  for (const char* p = "Sw<"; *p; ++p) buf[k++] = *p;
  buf[k++] = char('0' + B);
  buf[k++] = ',';
  buf[k++] = char('0' + M);
  buf[k++] = ',';
  buf[k++] = char('0' + S);
  buf[k++] = '>';
  buf[k++] = ' ';
  buf[k++] = 'o';
  buf[k++] = ' ';
  buf[k] = '\0';
  out(buf);
  format_layout(out, l.layout());
}

struct PrintfOut {
  TESSERA_HOST_DEVICE void operator()(const char* s) const { printf("%s", s); }
};
struct StringOut {
  std::string* s;
  TESSERA_HOST_DEVICE void operator()(const char* p) const {
#if !TESSERA_DEVICE_PASS
    s->append(p);  // to_string() is host-only; this keeps the shared formatter device-compatible
#else
    (void)p;
#endif
  }
};
}  // namespace detail

// Prints an integer tuple or a layout with printf (host or device), without a newline.
template <class T>
TESSERA_HOST_DEVICE void print(T const& x) {
  detail::PrintfOut out;
  if constexpr (is_layout_v<T> || requires { x.swizzle(); }) {
    detail::format_layout(out, x);
  } else {
    detail::format_int_tuple(out, x);
  }
}

// The same text as print(), as a std::string (host only).
template <class T>
std::string to_string(T const& x) {
  std::string s;
  detail::StringOut out{&s};
  if constexpr (is_layout_v<T> || requires { x.swizzle(); }) {
    detail::format_layout(out, x);
  } else {
    detail::format_int_tuple(out, x);
  }
  return s;
}

}  // namespace tessera
