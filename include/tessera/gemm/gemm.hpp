// The device-level GEMM: D = epilogue(A * B), batched, with split-K.
//
//   using Cfg = gemm::Config<arch::Sm80, bfloat16, RowMajor, bfloat16, ColumnMajor, bfloat16, float,
//                            gemm::BlockTile<128, 128, 32>, gemm::Warps<2, 2>, gemm::Stages<4>>;
//   gemm::Gemm<Cfg> op;
//   gemm::Arguments<Cfg> args{.m = m, .n = n, .k = k, .a = a, .lda = k, .b = b, .ldb = k, .d = d, .ldd = n};
//   if (Status s = op.can_implement(args); !s) { ... s.message() says what is wrong and how to fix it ... }
//   op.run(args, workspace, stream);   // launches nothing when can_implement fails
//
// A is M x K (RowMajor: A(m, k) at m * lda + k), B is K x N (ColumnMajor: B(k, n) at n * ldb + k),
// D is M x N in the order `d_order` with leading dimension ldd.
//
// The same source builds with nvcc for NVIDIA Configs (arch::Sm80, arch::Sm90) and with hipcc for
// AMD Configs (arch::Gfx90a, arch::Gfx940, the gfx9 kernel): the arguments, their checks and
// messages, split-K and the epilogue are shared; the kernels and the device checks differ.
// tessera-header: gpu-runtime
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <string>

#include "tessera/core/matrix_layout.hpp"
#include "tessera/core/runtime.hpp"
#include "tessera/core/status.hpp"
#include "tessera/gemm/config.hpp"
#include "tessera/gemm/data_parallel.hpp"
#include "tessera/gemm/l2_hint.hpp"
#include "tessera/gemm/storage_order.hpp"
#if defined(TESSERA_HIP)
#  include "tessera/gemm/gfx9/device.hpp"
#  include "tessera/gemm/gfx9/kernel.hpp"
#else
#  include "tessera/arch/sm90/cluster.hpp"
#  include "tessera/arch/sm90/tensor_map.hpp"
#  include "tessera/gemm/sm80/kernel.hpp"
#  include "tessera/gemm/sm90/launch.hpp"
#endif

namespace tessera::gemm {

// The arguments of a GEMM. They depend on the Config only through its element types and epilogue
// (Arguments<Cfg> below), so that Configs of one problem (gemm::Tuned's table) share them.
template <class EA, class EB, class ED, class Epilogue>
struct ProblemArguments {
  int m = 0, n = 0, k = 0;
  EA const* a = nullptr;
  std::int64_t lda = 0;
  EB const* b = nullptr;
  std::int64_t ldb = 0;
  ED* d = nullptr;
  std::int64_t ldd = 0;
  StorageOrder d_order = StorageOrder::kRowMajor;
  int batch_count = 1;
  std::int64_t batch_stride_a = 0, batch_stride_b = 0, batch_stride_d = 0;
  // K is split into this many slices, summed in a float workspace (workspace_size()). 0: chosen
  // by Gemm::split_k_for: more slices when the output tiles cannot fill the GPU and K is long
  // (decode shapes such as M = 16, N = K = 4096).
  int split_k = 1;
  Epilogue epilogue{};
  // Per-tensor scales (device pointers to one float each; null: 1) and the absolute maximum of D
  // (sm90 kernel): D = convert(scale_d * epilogue(scale_a * scale_b * (A * B))), and *amax_d (when
  // not null) receives the largest |epilogue(...)| over D before scale_d, as cuBLASLt's fp8 GEMMs
  // define them. `run` zeroes *amax_d first.
  float const* scale_a = nullptr;
  float const* scale_b = nullptr;
  float const* scale_d = nullptr;
  float* amax_d = nullptr;
  // sm90 kernel: compute D^T = B^T A^T, the Config's BlockTile M running over N and its N over M.
  // For decode shapes (M of 1 to 64, N in the thousands) with a narrow tile (BlockTile<128, 32, 64>):
  // the wide side of the MMA then reads B (the weights) and the narrow one the few rows of A, so
  // that little of each stage is padding. Needs both operands K-major or both MN-major, of one
  // type. The epilogue still sees D's own coordinates.
  bool swap_ab = false;
  // The L2 priorities of A's and B's loads (sm90 kernel; gemm/l2_hint.hpp). kAuto: evict-first for
  // an operand read once (a decode GEMM's weights), no hint otherwise.
  L2Hint l2_hint_a = L2Hint::kAuto, l2_hint_b = L2Hint::kAuto;
  // The sm90 kernel's split-K counters in `workspace` are zero already, so `run` skips the memset
  // that otherwise precedes each split launch (a decode-shape GEMM notices it). True is right when
  // the workspace was zero-filled once (cudaMemset) and used since only by runs of this Gemm with
  // the same M, N, batch count and split (where the counters lie depends on them); each run leaves
  // its counters zero. When in doubt, leave it false.
  bool workspace_zeroed = false;
  // The order of the output tiles: groups of this many tile rows, each walked column by column,
  // so that the blocks running at once share A's rows and B's columns in L2 (with swap_ab, tile
  // rows of D^T). 0: automatic (sm80: 8; sm90: as many rows as columns of D in the tiles that run
  // at once, gemm::sm90::auto_raster_group).
  int raster_group = 0;
};

template <class Cfg>
using Arguments = ProblemArguments<typename Cfg::ElementA, typename Cfg::ElementB, typename Cfg::ElementD, typename Cfg::Epilogue>;

template <class Cfg>
class Gemm {
#if defined(TESSERA_HIP)
  static_assert(!Cfg::valid || Cfg::amd, "gemm::Gemm: arch::Sm80 / arch::Sm90 Configs build with a CUDA compiler (nvcc); "
                                         "under hipcc use arch::Gfx90a or arch::Gfx940");
#else
  static_assert(!Cfg::amd, "gemm::Gemm: arch::Gfx90a / arch::Gfx940 Configs build with hipcc (HIP); under nvcc use "
                           "arch::Sm80 or arch::Sm90");
#endif

 public:
  using Config = Cfg;
  using Args = Arguments<Cfg>;
  using EA = typename Cfg::ElementA;
  using EB = typename Cfg::ElementB;

  // The number of K slices `run` uses: args.split_k, or for 0 the automatic choice: when the
  // output tiles fill less than one wave of the GPU's multiprocessors, enough slices to fill it
  // (the sm90 kernel, persistent: as many as fit in one wave), each at least 4 k-tiles long, at
  // most 16; then trimmed so that no slice is empty. Measured on the H100 (docs/performance.md,
  // "M = 128 decode: splits and clusters", 128 x 64 tiles, us): at K = 14336 the rule's split of 2
  // runs in 56.2 against 60.5 unsplit, and at K = 4096 its split of 2 in 23.6 against 21.8: the
  // partial sums cost more than 68 idle multiprocessors save when a slice has 32 k-tiles or fewer
  // at M = 128. So the rule is a default, not a verdict: a profiled table (gemm::Tuned) carries the
  // split each of its entries won with.
  static int split_k_for(Args const& given) {
    Args const args = kernel_view(given);
    int device = 0;
    int const sms = args.split_k != 0 || runtime::current_device(device) != runtime::kSuccess ? 1 : std::max(1, runtime::multiprocessors(device));
    std::int64_t const out_tiles = std::int64_t(tiles(args.m, Cfg::BM)) * tiles(args.n, Cfg::BN) * args.batch_count;
    return split_k_rule(args.split_k, sms, out_tiles, tiles(args.k, Cfg::BK), Cfg::warp_specialized, 16);
  }

  // Bytes of workspace `run` needs: split-K partial sums, else none. The sm80 kernel keeps every
  // slice's M x N floats; the sm90 kernel a BM x BN slot per tile for each slice but the last,
  // and a counter per tile and consumer part (which `run` zeroes).
  static std::size_t workspace_size(Args const& args) {
    if (args.split_k < 0 || args.m < 1 || args.n < 1 || args.k < 1 || args.batch_count < 1) return 0;
    int const split = split_k_for(args);
    if (split <= 1) return 0;
#if !defined(TESSERA_HIP)
    if constexpr (Cfg::warp_specialized) return sm90::SplitK<Cfg>::workspace_bytes(sm90_padded_tiles(kernel_view(args)), split);
#endif
    return std::size_t(split) * std::size_t(args.batch_count) * std::size_t(args.m) * std::size_t(args.n) * sizeof(float);
  }

  // Ok, or what is wrong with the arguments and how to fix it. Checks the current device too.
  static Status can_implement(Args const& args) {
    if constexpr (!Cfg::valid) {
      return Status::not_supported("gemm::Gemm: the Config is invalid (see the compiler's message)");
    } else {
      auto const s = [](std::int64_t v) { return std::to_string(v); };
      if (args.m < 1 || args.n < 1 || args.k < 1)
        return Status::invalid_argument("M, N and K must be at least 1; got M = " + s(args.m) + ", N = " + s(args.n) +
                                        ", K = " + s(args.k));
      if (args.batch_count < 1)
        return Status::invalid_argument("batch_count = " + s(args.batch_count) + " must be at least 1");
      if (args.raster_group < 0)
        return Status::invalid_argument("raster_group = " + s(args.raster_group) + " must be 0 (automatic) or a number of tile rows");
      if (!args.a || !args.b || !args.d)
        return Status::invalid_argument(std::string("a null pointer for ") + (!args.a ? "A" : !args.b ? "B" : "D") +
                                        "; pass device pointers to the operands");
      std::int64_t const a_min = Cfg::a_k_major ? args.k : args.m;
      std::int64_t const b_min = Cfg::b_k_major ? args.k : args.n;
      std::int64_t const d_min = args.d_order == StorageOrder::kRowMajor ? args.n : args.m;
      if (args.lda < a_min)
        return Status::invalid_argument("lda = " + s(args.lda) + " is smaller than " + (Cfg::a_k_major ? "K" : "M") +
                                        " = " + s(a_min) + " for a " + (Cfg::a_k_major ? "row" : "column") +
                                        "-major A; pass lda >= " + s(a_min));
      if (args.ldb < b_min)
        return Status::invalid_argument("ldb = " + s(args.ldb) + " is smaller than " + (Cfg::b_k_major ? "K" : "N") +
                                        " = " + s(b_min) + " for a " + (Cfg::b_k_major ? "column" : "row") +
                                        "-major B; pass ldb >= " + s(b_min));
      if (args.ldd < d_min)
        return Status::invalid_argument("ldd = " + s(args.ldd) + " is smaller than " +
                                        (args.d_order == StorageOrder::kRowMajor ? "N" : "M") + " = " + s(d_min) +
                                        "; pass ldd >= " + s(d_min));
      int const k_tiles = (args.k + Cfg::BK - 1) / Cfg::BK;
      if (args.split_k < 0 || args.split_k > k_tiles)
        return Status::invalid_argument("split_k = " + s(args.split_k) + " must be between 1 and the number of K tiles (" +
                                        s(k_tiles) + " for K = " + s(args.k) + " and BlockTile K = " + s(Cfg::BK) +
                                        "), or 0 to let the GEMM choose");
      if (std::int64_t(args.m) * args.n > (std::int64_t(1) << 31) * 64)
        return Status::invalid_argument("M x N = " + s(std::int64_t(args.m) * args.n) + " is too large for one launch");
      if (args.swap_ab && !Cfg::warp_specialized)
        return Status::not_supported("swap_ab is an option of the sm90 kernel (Warpgroups); for a Warps<M, N> Config pass "
                                     "the transposed problem (B^T as A, A^T as B, D in the other order) yourself");
      if (args.swap_ab && (Cfg::a_k_major != Cfg::b_k_major || !std::is_same_v<EA, EB>))
        return Status::not_supported("swap_ab exchanges A and B in the kernel, so they must be of one type and both K-major "
                                     "(row-major A, column-major B) or both MN-major; use such a Config, or swap_ab = false");
      Args const kv = kernel_view(args);
      if (std::int64_t(tiles(kv.m, Cfg::BM)) * tiles(kv.n, Cfg::BN) * args.batch_count * split_k_for(args) > 0x7FFFFFFF)
        return Status::invalid_argument("too many output tiles (times batch and K slices) for one launch; split the "
                                        "problem in batches");
      if (args.batch_count > 65535)
        return Status::invalid_argument("batch_count = " + s(args.batch_count) + " exceeds 65535; launch in parts");
      if constexpr (Cfg::warp_specialized) {
        // TMA reads A and B: 16-byte aligned base addresses, leading dimensions and batch strides.
        if (Status t = tma_operand("A", args.a, args.lda, args.batch_stride_a, args.batch_count); !t) return t;
        if (Status t = tma_operand("B", args.b, args.ldb, args.batch_stride_b, args.batch_count); !t) return t;
      }
      if constexpr (Cfg::amd) {
        if (Status t = buffer_reach<EA>("A", args.lda, Cfg::a_k_major ? Cfg::BM : Cfg::BK); !t) return t;
        if (Status t = buffer_reach<EB>("B", args.ldb, Cfg::b_k_major ? Cfg::BN : Cfg::BK); !t) return t;
      }
      if (!Cfg::warp_specialized && (args.scale_a || args.scale_b || args.scale_d || args.amax_d))
        return Status::not_supported("scale_a, scale_b, scale_d and amax_d are applied by the sm90 kernel (Warpgroups) only; "
                                     "fold the scales into alpha of epilogue::LinearCombination for a Warps<M, N> Config");
      return device_checks();
    }
  }

  Status run(Args const& args, void* workspace = nullptr, runtime::Stream stream = nullptr) const {
    TESSERA_RETURN_IF_ERROR(can_implement(args));
    int const split = split_k_for(args);
    if (workspace_size(args) > 0 && workspace == nullptr)
      return Status::workspace_too_small("split_k = " + std::to_string(args.split_k) +
                                         (args.split_k == 0 ? " (automatic: " + std::to_string(split) + " slices)" : "") +
                                         " needs " + std::to_string(workspace_size(args)) +
                                         " bytes of workspace (workspace_size()); pass a device buffer of that size");
    if constexpr (!Cfg::valid) {
      return Status::success();  // not reached: can_implement failed
#if !defined(TESSERA_HIP)
    } else if constexpr (Cfg::warp_specialized) {
      return run_sm90(kernel_view(args), split, workspace, stream);
#endif
    } else {
      return run_data_parallel(args, split, workspace, stream);
    }
  }

#if !defined(TESSERA_HIP)
  // The attributes of the kernel `run` launches (for the sm80 kernel, the form with 16-byte operand
  // loads) as the current device has it: its registers, local memory (spills), static shared
  // memory. not_supported where this binary holds no code of it for the device.
  static Status kernel_attributes(cudaFuncAttributes& out) {
    cudaError_t e;
    if constexpr (Cfg::warp_specialized) e = cudaFuncGetAttributes(&out, sm90::gemm_kernel<Cfg>);
    else e = cudaFuncGetAttributes(&out, sm80::gemm_kernel<Cfg, 16, 16>);
    if (e == cudaSuccess) return Status::success();
    cudaGetLastError();  // clear the error the query left
    return Status::not_supported(std::string("no code of the kernel for this device: ") + cudaGetErrorString(e));
  }
#endif

 private:
  // What the current device must offer the Config.
  static Status device_checks() {
#if defined(TESSERA_HIP)
    return gfx9::check_device<Cfg>();
#else
    auto const s = [](std::int64_t v) { return std::to_string(v); };
    int device = 0, major = 0;
    if (runtime::current_device(device) != runtime::kSuccess || (major = runtime::compute_capability_major(device)) == 0)
      return Status::device_error("no CUDA device is available; run on a machine with an NVIDIA GPU");
    if (major < 8)
      return Status::not_supported("the sm80 GEMM needs compute capability 8.0 or newer (this device is " + s(major) +
                                   ".x); use a newer GPU");
    if (Cfg::warp_specialized && major != 9)
      return Status::not_supported("the sm90 GEMM (Warpgroups) runs on compute capability 9.0 (Hopper) only; this "
                                   "device is " + s(major) + ".x: use a Warps<M, N> Config there");
    int const optin = runtime::max_shared_memory_per_block(device);
    if (Cfg::smem_bytes > optin)
      return Status::not_supported("the Config needs " + s(Cfg::smem_bytes) + " bytes of shared memory, the device allows " +
                                   s(optin) + "; use fewer Stages or a smaller BlockTile");
    return kernel_image_once(device, major);
#endif
  }

#if !defined(TESSERA_HIP)
  // The binary holds code of the kernel `run` launches for this device, built for its
  // architecture: for the sm90 kernel, sm_90a (sm_90's code, or PTX the driver compiles, has no
  // wgmma). Checked once per device (the attributes query costs a microsecond or so).
  static Status kernel_image_once(int device, int major) {
    static std::atomic<std::uint64_t> done{0};  // a bit per device, for devices 0 to 63
    std::uint64_t const bit = device < 64 ? std::uint64_t(1) << device : 0;
    if (bit != 0 && (done.load(std::memory_order_acquire) & bit) != 0) return Status::success();
    cudaFuncAttributes attributes{};
    cudaError_t e;
    if constexpr (Cfg::warp_specialized) e = cudaFuncGetAttributes(&attributes, sm90::gemm_kernel<Cfg>);
    else e = cudaFuncGetAttributes(&attributes, sm80::gemm_kernel<Cfg, 16, 16>);
    std::string const fix = Cfg::warp_specialized ? "CMAKE_CUDA_ARCHITECTURES=90a (nvcc -gencode arch=compute_90a,code=sm_90a)"
                                                  : "CMAKE_CUDA_ARCHITECTURES=80 or the device's own (" + std::to_string(major) + "0)";
    if (e == cudaErrorInvalidDeviceFunction || e == cudaErrorNoKernelImageForDevice || e == cudaErrorInvalidPtx ||
        e == cudaErrorUnsupportedPtxVersion) {
      cudaGetLastError();  // clear the error the query left
      return Status::not_supported("this binary holds no code of the GEMM for this GPU (compute capability " +
                                   std::to_string(major) + ".x; " + cudaGetErrorString(e) + "); build for it: " + fix);
    }
    if (e != cudaSuccess)  // another error (one left by an earlier kernel that faulted, say)
      return Status::device_error(std::string("querying the GEMM kernel failed: ") + cudaGetErrorString(e));
    if constexpr (Cfg::warp_specialized) {
      if (!sm90::built_for_sm90a(attributes))
        return Status::not_supported("the sm90 GEMM (Warpgroups) was built without sm_90a's instructions (wgmma, setmaxnreg): "
                                     "this binary's code for the GPU is sm_90 or PTX; build for sm_90a: " + fix);
    }
    if (bit != 0) done.fetch_or(bit, std::memory_order_release);
    return Status::success();
  }
#endif

  // The sm80 and gfx9 kernels: one block per output tile x batch entry x K slice, and for split-K
  // the reduction of the slices.
  Status run_data_parallel(Args const& args, int split, void* workspace, runtime::Stream stream) const {
    DataParallelParams<Cfg> p{};
    fill_common(p, args);
    p.a = args.a;
    p.lda = args.lda;
    p.batch_stride_a = args.batch_stride_a;
    p.b = args.b;
    p.ldb = args.ldb;
    p.batch_stride_b = args.batch_stride_b;
    int const k_tiles = tiles(args.k, Cfg::BK);
    p.k_splits = split;
    p.k_tiles_per_split = tiles(k_tiles, split);
    p.partials = static_cast<float*>(workspace);
    // One block per work item: output tile x batch entry x K slice (can_implement bounds the count).
    dim3 const grid(unsigned(p.tiles_m * p.tiles_n * args.batch_count * split));
    runtime::Error err;
#if defined(TESSERA_HIP)
    // Whole 16-byte vectors where the pointers and strides allow them (the kernel checks each
    // vector against the extents), else element by element.
    if (aligned16<EA>(args.a, args.lda, args.batch_stride_a, 0) && aligned16<EB>(args.b, args.ldb, args.batch_stride_b, 0)) {
      gfx9::gemm_kernel<Cfg, true><<<grid, Cfg::threads, 0, stream>>>(p);
    } else {
      gfx9::gemm_kernel<Cfg, false><<<grid, Cfg::threads, 0, stream>>>(p);
    }
    err = runtime::last_error();
#else
    // The 16-byte path: aligned pointers and strides, and contiguous extents (K for a K-major
    // operand, M or N otherwise) that are whole vectors, so that a vector is wholly in or out.
    if (aligned16<EA>(args.a, args.lda, args.batch_stride_a, Cfg::a_k_major ? args.k : args.m) &&
        aligned16<EB>(args.b, args.ldb, args.batch_stride_b, Cfg::b_k_major ? args.k : args.n)) {
      err = launch<16, 16>(grid, p, stream);
    } else {
      // Narrower path: the widest access every address allows.
      err = launch<narrow<EA>(), narrow<EB>()>(grid, p, stream);
    }
#endif
    if (err == runtime::kSuccess && split > 1) {
      dim3 const rgrid(unsigned(std::min<std::int64_t>((std::int64_t(args.m) * args.n + 255) / 256, 65535)),
                       unsigned(args.batch_count));
      reduce_splits<Cfg><<<rgrid, 256, 0, stream>>>(p);
      err = runtime::last_error();
    }
    if (err != runtime::kSuccess)
      return Status::device_error(std::string("kernel launch failed: ") + runtime::error_string(err));
    return Status::success();
  }

  static int tiles(std::int64_t extent, int tile) { return int((extent + tile - 1) / tile); }

  // The problem the kernel computes: with swap_ab, D^T = B^T A^T (N x M; A and B exchanged with
  // their leading dimensions and batch strides, D in the other order), else args itself.
  static Args kernel_view(Args const& args) {
    Args v = args;
    if constexpr (std::is_same_v<EA, EB>) {
      if (args.swap_ab) {
        v.m = args.n;
        v.n = args.m;
        v.a = args.b;
        v.b = args.a;
        v.lda = args.ldb;
        v.ldb = args.lda;
        v.batch_stride_a = args.batch_stride_b;
        v.batch_stride_b = args.batch_stride_a;
        v.l2_hint_a = args.l2_hint_b;
        v.l2_hint_b = args.l2_hint_a;
        v.d_order = args.d_order == StorageOrder::kRowMajor ? StorageOrder::kColumnMajor : StorageOrder::kRowMajor;
      }
    }
    return v;
  }

  // The kernel parameters both kernels share: sizes, D, the tile grid and raster, the epilogue.
  template <class P>
  static void fill_common(P& p, Args const& args) {
    p.m = args.m;
    p.n = args.n;
    p.k = args.k;
    p.d = args.d;
    p.d_row_stride = args.d_order == StorageOrder::kRowMajor ? args.ldd : 1;
    p.d_col_stride = args.d_order == StorageOrder::kRowMajor ? 1 : args.ldd;
    p.batch_stride_d = args.batch_stride_d;
    p.tiles_m = tiles(args.m, Cfg::BM);
    p.tiles_n = tiles(args.n, Cfg::BN);
    p.batch_count = args.batch_count;
    p.raster_group = args.raster_group > 0 ? args.raster_group : 8;  // 8: A100/H100, 4096^3 bf16 (docs/performance.md)
    p.epilogue = args.epilogue;
  }

  // The sm90 kernel's requirements on an operand that TMA reads.
  template <class T>
  static Status tma_operand(char const* name, T const* p, std::int64_t ld, std::int64_t batch_stride, int batch_count) {
    constexpr std::int64_t E = 16 / sizeof(T);
    std::string const n = name;
    if (reinterpret_cast<std::uintptr_t>(p) % 16 != 0)
      return Status::misaligned("the sm90 GEMM loads " + n + " with TMA, which needs a 16-byte aligned address; align " + n +
                                " (or use a Warps<M, N> Config, which reads any alignment)");
    if (ld % E != 0)
      return Status::misaligned("ld" + std::string(1, char(n[0] + 32)) + " = " + std::to_string(ld) + ": TMA needs the rows of " +
                                n + " 16 bytes apart (a multiple of " + std::to_string(E) + " elements); pad the leading dimension");
    if (batch_count > 1 && batch_stride % E != 0)
      return Status::misaligned("batch_stride_" + std::string(1, char(n[0] + 32)) + " = " + std::to_string(batch_stride) +
                                ": TMA needs batch entries 16 bytes apart (a multiple of " + std::to_string(E) + " elements)");
    return Status::success();
  }

  // The gfx9 kernel reads each k-tile of an operand through a buffer resource made at the tile,
  // whose offsets reach 2^31 bytes: the tile's `rows` rows, ld elements apart, must fit.
  template <class T>
  static Status buffer_reach(char const* name, std::int64_t ld, int rows) {
    if (std::int64_t(rows) * ld * std::int64_t(sizeof(T)) < (std::int64_t(1) << 31)) return Status::success();
    char const l = char(name[0] + 32);
    return Status::invalid_argument(std::string("ld") + l + " = " + std::to_string(ld) + ": a k-tile of " + name + " spans " +
                                    std::to_string(rows) + " rows of ld" + l + " elements, past the 2 GiB that AMD buffer loads "
                                    "reach; copy " + name + " to a compact layout (a smaller leading dimension)");
  }

#if !defined(TESSERA_HIP)
  // The sm90 kernel's tiles: the tile grid padded to whole clusters, times the batch entries.
  static std::size_t sm90_padded_tiles(Args const& args) {
    sm90::WorkGrid const g{tiles(args.m, Cfg::BM), tiles(args.n, Cfg::BN), args.batch_count, 0, 1, 0, 8, Cfg::cluster_m,
                           Cfg::cluster_n};
    return std::size_t(g.padded_tiles());
  }

  Status run_sm90(Args const& args, int split, void* workspace, cudaStream_t stream) const {
    // Each piece's parameters through the piece: the loader's TMA maps and L2 hints, the epilogue's
    // tile store (D through TMA where it can), chain and scales, split-K's workspace, the work grid.
    sm90::Params<Cfg> p{};
    TESSERA_RETURN_IF_ERROR(sm90::TiledLoader<Cfg>::make(args, p.load));
    TESSERA_RETURN_IF_ERROR(sm90::Epilogue<Cfg>::make(args, args.d_order == StorageOrder::kRowMajor, stream, p.epilogue));
    int const k_tiles = tiles(args.k, Cfg::BK);
    p.grid = sm90::WorkGrid{tiles(args.m, Cfg::BM), tiles(args.n, Cfg::BN), args.batch_count, k_tiles, split, tiles(k_tiles, split),
                            args.raster_group > 0 ? args.raster_group : 8, Cfg::cluster_m, Cfg::cluster_n};
    TESSERA_RETURN_IF_ERROR(
        sm90::SplitK<Cfg>::make(split, std::size_t(p.grid.padded_tiles()), workspace, args.workspace_zeroed, stream, p.split));
    return sm90::launch(p, args.raster_group == 0, stream);
  }
#endif

  template <class T>
  static bool aligned16(T const* p, std::int64_t ld, std::int64_t batch_stride, std::int64_t contiguous_extent) {
    constexpr std::int64_t E = 16 / sizeof(T);
    return reinterpret_cast<std::uintptr_t>(p) % 16 == 0 && ld % E == 0 && batch_stride % E == 0 &&
           contiguous_extent % E == 0;
  }

#if !defined(TESSERA_HIP)
  // The vector width of the narrow path: one element (a 4-byte cp.async for tf32, plain loads
  // for 16- and 8-bit types, whose single elements are below cp.async's smallest copy).
  template <class T>
  static constexpr int narrow() {
    return int(sizeof(T));
  }

  template <int VecA, int VecB>
  static cudaError_t launch(dim3 grid, sm80::Params<Cfg> const& p, cudaStream_t stream) {
    auto kernel = sm80::gemm_kernel<Cfg, VecA, VecB>;
    if (Cfg::smem_bytes > 48 * 1024) {
      cudaError_t const e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, Cfg::smem_bytes);
      if (e != cudaSuccess) return e;
    }
    kernel<<<grid, Cfg::threads, Cfg::smem_bytes, stream>>>(p);
    return cudaGetLastError();
  }
#endif
};

}  // namespace tessera::gemm
