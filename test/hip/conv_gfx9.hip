// conv::Conv<Config> with the AMD tags (the gfx9 kernel with the gather loaders of conv/gfx9), in
// two modes:
//   conv_gfx9 errors   the argument checks and their messages, which need no device: they run in
//                      CI and end with the device check, which must say that there is no device;
//   conv_gfx9 device   Fprop, Dgrad and Wgrad in f16 and bf16 with a bias + ReLU chain on an AMD
//                      device, against a direct convolution on the host in double precision: 1-D,
//                      2-D and 3-D problems, padding, strides 1 to 3 (strided Dgrad), dilation,
//                      groups, residues in every GEMM extent, split-K (given and automatic);
//                      outputs poisoned before each run. Without a device it says so and exits 77,
//                      which ctest reports as skipped, not passed.
#include <hip/hip_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "../support/conv_problem.hpp"
#include "tessera/conv/conv.hpp"
#include "tessera/core/rounding.hpp"
#include "tessera/epilogue/activations.hpp"
#include "tessera/epilogue/tensor_stages.hpp"

using namespace tessera;
using tessera::test::problem2d;

namespace {

int failures = 0;

void expect(bool ok, std::string const& what) {
  std::printf("%-80s %s\n", what.c_str(), ok ? "passed" : "FAILED");
  failures += !ok;
}

using BiasRelu = epilogue::Chain<epilogue::Bias<epilogue::PerColumn>, epilogue::Relu>;
template <class Arch, class E, class Dir, int BK = 32>
using Cfg = conv::Config<Arch, E, E, E, float, Dir, gemm::BlockTile<128, 128, BK>, gemm::Warps<2, 2>, gemm::Stages<2>, BiasRelu>;

// ---- errors -------------------------------------------------------------------------------------

template <class Dir>
void run_errors_of(char const* dir) {
  using C = Cfg<arch::Gfx90a, half_t, Dir>;
  alignas(16) static half_t x[64], w[64], y[64];
  typename conv::Conv<C>::Arguments good;
  good.problem = problem2d(1, 8, 8, 64, 64, 3, 3, 1, 1, 1);
  good.x = x, good.w = w, good.y = y;
  auto check = [&](typename conv::Conv<C>::Arguments const& args, StatusCode code, char const* needle, std::string const& what) {
    Status const s = conv::Conv<C>::can_implement(args);
    bool const ok = s.code() == code && s.message().find(needle) != std::string::npos;
    if (!ok) std::printf("  got: %s\n", s.message().c_str());
    expect(ok, std::string(dir) + ": " + what);
  };
  auto with = [&](auto change) {
    auto a = good;
    change(a);
    return a;
  };
  check(with([](auto& a) { a.problem.stride = {1, 0, 1}; }), StatusCode::kInvalidArgument, "stride and dilation must be at least 1",
        "a stride of 0 is refused (conv::check)");
  check(with([](auto& a) { a.w = nullptr; }), StatusCode::kInvalidArgument, "one is null", "a null w is refused");
  check(with([](auto& a) { a.problem.c = 12; }), StatusCode::kMisaligned, "C / groups = 12", "C = 12 (not a multiple of 8) is refused");
  check(with([](auto& a) { a.x = x + 1; }), StatusCode::kMisaligned, "16-byte aligned", "a misaligned x is refused");
  check(with([](auto& a) { a.split_k = 33; }), StatusCode::kInvalidArgument, "split_k = 33", "split_k = 33 is refused");
  static float scale = 1.0f;
  check(with([](auto& a) { a.scale_x = &scale; }), StatusCode::kNotSupported, "applied by the Hopper kernel",
        "a per-tensor scale (an sm90 option) is refused");
  check(with([](auto& a) { a.problem = problem2d(40, 256, 256, 512, 64, 1, 1, 0, 0, 1); }), StatusCode::kNotSupported,
        "past the 2 GiB that AMD buffer loads reach", "a tensor past 2 GiB is refused");
  if constexpr (std::is_same_v<Dir, conv::Dgrad>)
    check(with([](auto& a) { a.problem.k = 40; }), StatusCode::kNotSupported, "K / groups = 40 is not a multiple of BlockTile K = 32",
          "K = 40 (a k-tile is one tap of 32 filters) is refused");
  int devices = 0;
  if (hipGetDeviceCount(&devices) != hipSuccess || devices == 0)
    check(good, StatusCode::kDeviceError, "no HIP device", "valid arguments without a device: no HIP device");
  else
    expect(conv::Conv<C>::can_implement(good).code() != StatusCode::kInvalidArgument, std::string(dir) + ": valid arguments pass");
  // run() launches nothing and says what can_implement says.
  Status const r = conv::Conv<C>{}.run(with([](auto& a) { a.y = nullptr; }));
  expect(r.code() == StatusCode::kInvalidArgument, std::string(dir) + ": run() with a null y returns can_implement's error");
}

int run_errors() {
  run_errors_of<conv::Fprop>("Fprop");
  run_errors_of<conv::Dgrad>("Dgrad");
  run_errors_of<conv::Wgrad>("Wgrad");
  return failures == 0 ? 0 : 1;
}

// ---- device -------------------------------------------------------------------------------------

template <class T>
struct Buffer {
  T* p = nullptr;
  explicit Buffer(std::size_t n) { (void)hipMalloc(&p, n * sizeof(T) + 64); }
  ~Buffer() { (void)hipFree(p); }
  void put(std::vector<T> const& h) { (void)hipMemcpy(p, h.data(), h.size() * sizeof(T), hipMemcpyHostToDevice); }
  std::vector<T> get(std::size_t n) const {
    std::vector<T> h(n);
    (void)hipMemcpy(h.data(), p, n * sizeof(T), hipMemcpyDeviceToHost);
    return h;
  }
};

// The written tensor of a direction by its definition (conv/problem.hpp), element by element in
// double: each output's sum over its terms, and the sum of their magnitudes (for the tolerance).
struct Reference {
  std::vector<double> want, mag;
};
Reference direct(conv::Problem const& p, conv::Direction dir, std::vector<double> const& x, std::vector<double> const& w,
                 std::vector<double> const& dy) {
  int const cg = p.c_per_group(), kg = p.k_per_group();
  auto const x_at = [&](int n, int d, int h, int wi, int c) { return x[std::size_t((((std::int64_t(n) * p.d + d) * p.h + h) * p.w + wi) * p.c + c)]; };
  auto const w_at = [&](int k, int t, int r, int s, int c) { return w[std::size_t((((std::int64_t(k) * p.t + t) * p.r + r) * p.s + s) * cg + c)]; };
  auto const y_at = [&](int n, int z, int q0, int q1, int k) {
    return dy[std::size_t((((std::int64_t(n) * p.z() + z) * p.p() + q0) * p.q() + q1) * p.k + k)];
  };
  // The input coordinate of output coordinate o through filter position f (may lie in the padding).
  auto const in = [&](int dim, int o, int f) { return o * p.stride[dim] - p.pad_before[dim] + f * p.dilation[dim]; };
  auto const inside = [&](int d, int h, int wi) { return d >= 0 && d < p.d && h >= 0 && h < p.h && wi >= 0 && wi < p.w; };
  Reference r;
  auto const add = [&](double& sum, double& mag, double a, double b) {
    sum += a * b;
    mag += std::fabs(a * b);
  };
  if (dir == conv::Direction::kFprop) {  // Y[n, z, p, q, k] = sum over t, r, s, c of X W
    for (int n = 0; n < p.n; ++n)
      for (int z = 0; z < p.z(); ++z)
        for (int q0 = 0; q0 < p.p(); ++q0)
          for (int q1 = 0; q1 < p.q(); ++q1)
            for (int k = 0; k < p.k; ++k) {
              double sum = 0, mag = 0;
              for (int t = 0; t < p.t; ++t)
                for (int rr = 0; rr < p.r; ++rr)
                  for (int s = 0; s < p.s; ++s)
                    if (inside(in(0, z, t), in(1, q0, rr), in(2, q1, s)))
                      for (int c = 0; c < cg; ++c)
                        add(sum, mag, x_at(n, in(0, z, t), in(1, q0, rr), in(2, q1, s), k / kg * cg + c), w_at(k, t, rr, s, c));
              r.want.push_back(sum), r.mag.push_back(mag);
            }
  } else if (dir == conv::Direction::kDgrad) {  // dX[n, d, h, w, c] = sum over the taps and filters that read it
    // The output coordinate that reads input coordinate i through filter position f, or -1 where
    // none does (the stride does not divide, or it falls outside the output).
    auto const out = [&](int dim, int i, int f) {
      int const v = i + p.pad_before[dim] - f * p.dilation[dim];
      return v >= 0 && v % p.stride[dim] == 0 && v / p.stride[dim] < p.output_extent(dim) ? v / p.stride[dim] : -1;
    };
    for (int n = 0; n < p.n; ++n)
      for (int d = 0; d < p.d; ++d)
        for (int h = 0; h < p.h; ++h)
          for (int wi = 0; wi < p.w; ++wi)
            for (int c = 0; c < p.c; ++c) {
              double sum = 0, mag = 0;
              for (int t = 0; t < p.t; ++t)
                for (int rr = 0; rr < p.r; ++rr)
                  for (int s = 0; s < p.s; ++s)
                    if (out(0, d, t) >= 0 && out(1, h, rr) >= 0 && out(2, wi, s) >= 0)
                      for (int k = c / cg * kg; k < (c / cg + 1) * kg; ++k)
                        add(sum, mag, y_at(n, out(0, d, t), out(1, h, rr), out(2, wi, s), k), w_at(k, t, rr, s, c % cg));
              r.want.push_back(sum), r.mag.push_back(mag);
            }
  } else {  // dW[k, t, r, s, c] = sum over n, z, p, q of dY X
    for (int k = 0; k < p.k; ++k)
      for (int t = 0; t < p.t; ++t)
        for (int rr = 0; rr < p.r; ++rr)
          for (int s = 0; s < p.s; ++s)
            for (int c = 0; c < cg; ++c) {
              double sum = 0, mag = 0;
              for (int n = 0; n < p.n; ++n)
                for (int z = 0; z < p.z(); ++z)
                  for (int q0 = 0; q0 < p.p(); ++q0)
                    for (int q1 = 0; q1 < p.q(); ++q1)
                      if (inside(in(0, z, t), in(1, q0, rr), in(2, q1, s)))
                        add(sum, mag, y_at(n, z, q0, q1, k), x_at(n, in(0, z, t), in(1, q0, rr), in(2, q1, s), k / kg * cg + c));
              r.want.push_back(sum), r.mag.push_back(mag);
            }
  }
  return r;
}

// Runs conv::Conv<C> (bias + ReLU) on problem p against the reference.
template <class C>
void run_case(char const* name, conv::Problem const& p, int split_k = 1) {
  using E = typename C::ElementX;
  constexpr conv::Direction dir = C::direction;
  std::mt19937 rng(std::uint32_t(p.n * 131 + p.h * 17 + p.c + p.k * 7 + p.r + int(dir)));
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  // Random inputs, rounded to E (the reference reads the rounded values).
  auto values = [&](std::int64_t count, std::vector<E>& v, std::vector<double>& exact) {
    v.resize(std::size_t(count));
    exact.resize(std::size_t(count));
    for (std::size_t i = 0; i < v.size(); ++i) {
      float const f = uniform(rng);
      v[i] = E(f == 0.0f ? 0.5f : f);
      exact[i] = double(v[i].to_float());
    }
  };
  std::vector<E> x, w, dy;
  std::vector<double> xd, wd, dyd;
  values(p.input_elements(), x, xd);
  values(p.filter_elements(), w, wd);
  values(p.output_elements(), dy, dyd);
  // The written tensor's size and the bias's (the chain's columns: Fprop K, Dgrad C, Wgrad T R S C / g).
  std::int64_t const out = dir == conv::Direction::kFprop ? p.output_elements() : dir == conv::Direction::kDgrad ? p.input_elements() : p.filter_elements();
  int const columns = dir == conv::Direction::kFprop ? p.k : dir == conv::Direction::kDgrad ? p.c : p.t * p.r * p.s * p.c_per_group();
  std::vector<float> bias(static_cast<std::size_t>(columns));
  for (auto& b : bias) b = 0.25f * uniform(rng);

  Buffer<E> bx(x.size()), bw(w.size()), by(dy.size());
  Buffer<float> bbias(bias.size());
  bx.put(x), bw.put(w), by.put(dy), bbias.put(bias);
  E* const written = dir == conv::Direction::kFprop ? by.p : dir == conv::Direction::kDgrad ? bx.p : bw.p;
  (void)hipMemset(written, 0x7B, std::size_t(out) * sizeof(E));  // poison

  typename conv::Conv<C>::Arguments args;
  args.problem = p;
  args.x = bx.p, args.w = bw.p, args.y = by.p;
  args.epilogue = {epilogue::Bias<epilogue::PerColumn>{bbias.p}, epilogue::Relu{}};
  args.split_k = split_k;
  std::size_t const bytes = conv::Conv<C>::workspace_size(args);
  Buffer<char> workspace(bytes + 1);
  std::string const what = std::string(name) + " N" + std::to_string(p.n) + " " + std::to_string(p.d) + "x" + std::to_string(p.h) + "x" +
                           std::to_string(p.w) + " C" + std::to_string(p.c) + " K" + std::to_string(p.k) + " " + std::to_string(p.t) + "x" +
                           std::to_string(p.r) + "x" + std::to_string(p.s) + " stride " + std::to_string(p.stride[2]) +
                           (p.groups > 1 ? " groups " + std::to_string(p.groups) : "") +
                           (split_k != 1 ? " split " + std::to_string(conv::Conv<C>::split_k_for(args)) : "");
  if (bytes > 0) {  // a split run needs its workspace
    Status const none = conv::Conv<C>{}.run(args, nullptr);
    expect(none.code() == StatusCode::kWorkspaceTooSmall, what + ": no workspace is refused");
  }
  Status const s = conv::Conv<C>{}.run(args, workspace.p);
  hipError_t const e = hipDeviceSynchronize();
  if (!s || e != hipSuccess) {
    std::printf("  %s\n", s ? hipGetErrorString(e) : s.message().c_str());
    expect(false, what);
    return;
  }
  std::vector<E> const got = (dir == conv::Direction::kFprop ? by : dir == conv::Direction::kDgrad ? bx : bw).get(std::size_t(out));
  Reference const ref = direct(p, dir, xd, wd, dyd);
  // Error bound: exact operands; float accumulation over the GEMM's K (2^-23 per term, twice for
  // the order), the bias add, then the output's rounding; ReLU does not widen it.
  double const u_acc = std::ldexp(1.0, -23) * 2 * double(conv::gemm_shape(p, dir).k), u = unit_roundoff<E>();
  int bad = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    double const want = std::max(0.0, ref.want[i] + double(bias[i % std::size_t(columns)]));
    double const have = double(got[i].to_float());
    double const tol = u_acc * ref.mag[i] + u * std::fabs(want) + 1e-5;
    if (!(std::fabs(have - want) <= tol)) {
      if (bad < 3) std::printf("  element %zu: got %.8g, want %.8g\n", i, have, want);
      ++bad;
    }
  }
  expect(bad == 0, what);
}

template <class Arch, class E>
void run_type(char const* type) {
  std::string const f = std::string(type) + " Fprop", d = std::string(type) + " Dgrad", g = std::string(type) + " Wgrad";
  conv::Problem d3 = problem2d(2, 5, 6, 32, 32, 3, 3, 1, 1, 1);  // 3-D: 4 x 5 x 6, 3 x 3 x 3, asymmetric padding, stride 2 in depth
  d3.d = 4, d3.t = 3, d3.pad_before = {1, 1, 0}, d3.pad_after = {0, 1, 2}, d3.stride = {2, 1, 1};
  conv::Problem d1 = problem2d(3, 1, 37, 32, 64, 1, 5, 2, 2, 1, 2);  // 1-D, dilation 2
  d1.h = 1, d1.r = 1, d1.pad_before = d1.pad_after = {0, 0, 4};
  for (conv::Problem const& p : {problem2d(2, 9, 9, 64, 64, 3, 3, 1, 1, 1),         // 3 x 3: M = 162 (residue), 18 k-tiles
                                 problem2d(1, 15, 13, 32, 64, 3, 3, 1, 1, 2),        // stride 2 (Dgrad: the zero terms)
                                 problem2d(1, 11, 10, 32, 32, 3, 3, 2, 2, 3, 2),     // stride 3, dilation 2, padding 2
                                 problem2d(3, 7, 7, 64, 96, 1, 1, 0, 0, 1),          // 1 x 1: N = 96 (residue)
                                 problem2d(2, 8, 8, 64, 64, 3, 3, 1, 1, 1, 1, 2),    // 2 groups of 32
                                 problem2d(1, 6, 6, 40, 160, 3, 3, 1, 1, 1, 1, 5),   // 5 groups of 8 (Fprop's vectors of 8)
                                 d3, d1}) {
    run_case<Cfg<Arch, E, conv::Fprop>>(f.c_str(), p);
    if (p.k_per_group() % 32 == 0) run_case<Cfg<Arch, E, conv::Dgrad>>(d.c_str(), p);
    run_case<Cfg<Arch, E, conv::Wgrad>>(g.c_str(), p);
  }
  conv::Problem const big = problem2d(4, 14, 14, 64, 64, 3, 3, 1, 1, 1);
  run_case<Cfg<Arch, E, conv::Fprop>>(f.c_str(), big, 3);
  run_case<Cfg<Arch, E, conv::Dgrad>>(d.c_str(), big, 2);
  run_case<Cfg<Arch, E, conv::Wgrad>>(g.c_str(), big, 0);  // automatic split: K = N P Q = 784 pixels
  run_case<Cfg<Arch, E, conv::Wgrad>>(g.c_str(), big, 5);
  run_case<Cfg<Arch, E, conv::Fprop, 64>>((f + " BlockTile K 64").c_str(), problem2d(2, 7, 7, 64, 64, 3, 3, 1, 1, 1));
}

template <class Arch>
void run_device() {
  run_type<Arch, half_t>("f16");
  run_type<Arch, bfloat16_t>("bf16");
}

}  // namespace

int main(int argc, char** argv) {
  std::string const mode = argc > 1 ? argv[1] : "device";
  if (mode == "errors") return run_errors();
  int devices = 0;
  if (hipGetDeviceCount(&devices) != hipSuccess || devices == 0) {
    std::printf("skipped: no AMD device (the argument checks run in `conv_gfx9 errors`)\n");
    return 77;
  }
  hipDeviceProp_t prop;
  (void)hipGetDeviceProperties(&prop, 0);
  std::string const arch = prop.gcnArchName;
  if (arch.rfind("gfx94", 0) == 0) run_device<arch::Gfx940>();
  else if (arch.rfind("gfx90a", 0) == 0) run_device<arch::Gfx90a>();
  else {
    std::printf("skipped: %s is neither gfx90a nor gfx94x\n", arch.c_str());
    return 77;
  }
  std::printf("%d failures\n", failures);
  return failures == 0 ? 0 : 1;
}
