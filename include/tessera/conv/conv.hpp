// conv::Conv<Config>: a convolution at compile time, as gemm::Gemm is a GEMM: can_implement says
// what is wrong with a problem and how to fix it, and run launches nothing then.
//
//   using Cfg = conv::Config<arch::Sm80, bfloat16_t, bfloat16_t, bfloat16_t, float, conv::Fprop,
//                            gemm::BlockTile<128, 128, 32>, gemm::Warps<2, 2>, gemm::Stages<3>, Epi>;
//   conv::Conv<Cfg>::Arguments args{problem, d_x, d_w, d_y};
//   args.epilogue = Epi::make(d_bias);          // the GEMM's chain; coordinates below
//   if (Status s = conv::Conv<Cfg>{}.run(args, workspace, stream); !s) ...
//
// Tensors are packed: X is N D H W C, W is K T R S (C / groups), Y is N Z P Q K. The chain sees
// each output in the written tensor's coordinates: Fprop Coord{output pixel (n, z, p, q)
// flattened, output channel, 0}, Dgrad Coord{input pixel, input channel, 0}, with every group's
// channels: a per-column Bias or ScaleShift is per channel and a residual of the output's shape
// is a row-major matrix of K (Dgrad: C) columns. Wgrad: Coord{filter within its group, (t, r, s,
// c) flattened, group}.
//
// Kernels: a Warps<M, N> Config runs the sm80 kernel (mma.sync, cp.async gathers; runs on Hopper
// too), all three directions, the channels of a group multiples of 8 (and, for Dgrad, of
// BlockTile K: its k-tile is one tap). A Warpgroups Config runs the Hopper kernel (TMA im2col, wgmma): Fprop,
// unit-stride Dgrad and Wgrad (split_k = 0 picks its K split), 16-bit types with BlockTile K =
// 64. A depthwise Fprop or Dgrad (groups = C = K) runs a direct kernel whichever the Config
// (conv/depthwise.hpp); a dense Fprop of C = 1 to 7 (an RGB stem) of 16-bit types runs a direct
// tensor-core kernel (conv/small_channel.hpp; small_channels below). In progress (issue 32): strided Dgrad on Hopper.
// docs/conv.md. Under hipcc, conv::Conv is conv/gfx9/conv.hpp's: arch::Gfx90a / arch::Gfx940
// Configs on the gfx9 kernel (docs/porting-to-amd.md).
// tessera-header: gpu-runtime
#pragma once

#include "tessera/core/config.hpp"  // TESSERA_HIP
#if defined(TESSERA_HIP)
#  include "tessera/conv/gfx9/conv.hpp"
namespace tessera::conv {
template <class Cfg>
using Conv = gfx9::Conv<Cfg>;
}  // namespace tessera::conv
#else
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>

#include "tessera/conv/config.hpp"
#include "tessera/conv/data_parallel.hpp"
#include "tessera/conv/depthwise.hpp"
#include "tessera/conv/implicit_gemm.hpp"
#include "tessera/conv/pad_channels.hpp"
#include "tessera/conv/problem.hpp"
#include "tessera/conv/small_channel.hpp"
#include "tessera/conv/sm80/im2col_loader.hpp"
#include "tessera/conv/sm90/im2col_loader.hpp"
#include "tessera/core/runtime.hpp"
#include "tessera/core/status.hpp"
#include "tessera/gemm/data_parallel.hpp"
#include "tessera/gemm/gemm.hpp"
#include "tessera/gemm/sm80/kernel.hpp"
#include "tessera/gemm/sm90/launch.hpp"

namespace tessera::conv {

template <class Cfg>
class Conv {
 public:
  using Config = Cfg;
  using GemmCfg = typename Cfg::Gemm;
  using EX = typename Cfg::ElementX;
  using EW = typename Cfg::ElementW;
  using EY = typename Cfg::ElementY;
  static constexpr bool hopper = GemmCfg::warp_specialized;
  static constexpr bool same_types = std::is_same_v<EX, EW> && std::is_same_v<EX, EY>;
  using Loader = sm80::Loader<GemmCfg, typename Cfg::Direction>;
  using Loader90 = sm90::Loader<GemmCfg, typename Cfg::Direction>;

  using Arguments = conv::Arguments<Cfg>;  // conv/config.hpp

  // The slices a run uses: split_k, or the automatic choice for 0 (at most kMaxSplit, each slice
  // at least four k-tiles, none empty).
  static constexpr int kMaxSplit = 32;
  static int split_k_for(Arguments const& a) {
    if (is_depthwise(a.problem) || direct_small(a.problem)) return 1;  // the direct kernels
    int device = 0;
    int const sms = a.split_k != 0 || runtime::current_device(device) != runtime::kSuccess ? 1 : std::max(1, runtime::multiprocessors(device));
    // (The persistent kernel keeps a tile's slices resident at once: no more units than SMs.)
    return conv::split_k_for<GemmCfg>(a.problem, Cfg::direction, a.split_k, sms, hopper, kMaxSplit);
  }

  // Small-channel inputs (an RGB image: C = 1 to 7, dense Fprop), so that the user passes the
  // tensors as they are. 16-bit X and W run the direct kernel (conv/small_channel.hpp: the input
  // patch and the filters in shared memory, no workspace), on either Config. Other types (tf32's
  // floats) on the sm80 kernel, and 16-bit filters too large for that kernel's shared memory, are
  // padded to 8 channels in the workspace (conv/pad_channels.hpp) and the padded problem runs;
  // the Hopper kernel refuses those (its k-tile is 64 channels).
  static constexpr int kPaddedChannels = 8;
  static constexpr bool direct_types = std::is_same_v<EX, EW> && (std::is_same_v<EX, bfloat16_t> || std::is_same_v<EX, half_t>);
  static bool small_channels(Problem const& p) {
    return (!hopper || sizeof(EX) == 2) && Cfg::direction == Direction::kFprop && p.groups == 1 && p.c >= 1 && p.c < kPaddedChannels;
  }
  // The small-channel problems the direct kernel takes (its shared memory is enough).
  static bool direct_small(Problem const& p) {
    if constexpr (direct_types) {
      if (!small_channels(p)) return false;
      int device = 0;  // (K % 8 and y's alignment are can_implement's to report)
      return runtime::current_device(device) == runtime::kSuccess &&
             small_channel_shape<typename Cfg::Epilogue>(p, runtime::max_shared_memory_per_block(device)).smem_bytes > 0;
    }
    return false;
  }
  // The sm80 kernel's padded problem: X (N D H W pixels) and W (K T R S taps) at 8 channels.
  static std::size_t pad_bytes(Problem const& p) {
    return padded_bytes<EX>(std::int64_t(p.n) * p.d * p.h * p.w, kPaddedChannels) +
           padded_bytes<EW>(std::int64_t(p.k) * p.t * p.r * p.s, kPaddedChannels);
  }
  // The padded problem's arguments; x and w in the workspace (or, before there is one, y).
  static Arguments padded(Arguments const& a, void* workspace) {
    Arguments b = a;
    Problem const& p = a.problem;
    b.problem.c = kPaddedChannels;
    char* const base = static_cast<char*>(workspace);
    b.x = base ? reinterpret_cast<EX*>(base) : reinterpret_cast<EX*>(a.y);
    b.w = base ? reinterpret_cast<EW*>(base + padded_bytes<EX>(std::int64_t(p.n) * p.d * p.h * p.w, kPaddedChannels))
               : reinterpret_cast<EW*>(a.y);
    return b;
  }

  static std::size_t workspace_size(Arguments const& a) {
    if (!check(a.problem) || a.split_k < 0 || a.split_k > kMaxSplit) return 0;
    if (small_channels(a.problem)) return hopper || direct_small(a.problem) ? 0 : pad_bytes(a.problem) + workspace_size(padded(a, nullptr));
    int const split = split_k_for(a);
    if (split <= 1) return 0;
    GemmShape const g = gemm_shape(a.problem, Cfg::direction);
    if constexpr (hopper) return gemm::sm90::SplitK<GemmCfg>::workspace_bytes(std::size_t(work_grid(a).padded_tiles()), split);
    return std::size_t(split) * std::size_t(a.problem.groups) * std::size_t(g.m) * std::size_t(g.n) * sizeof(float);
  }

  static Status can_implement(Arguments const& a) {
    TESSERA_RETURN_IF_ERROR(check(a.problem));
    Problem const& p = a.problem;
    auto const s = [](std::int64_t v) { return std::to_string(v); };
    auto const fail = [](std::string m) { return Status::not_supported("conv::Conv: " + m); };
    if (a.x == nullptr || a.w == nullptr || a.y == nullptr)
      return Status::invalid_argument("conv::Conv: x, w and y must be device pointers (one is null)");
    bool const scaled = a.scale_x != nullptr || a.scale_w != nullptr || a.scale_y != nullptr || a.amax != nullptr;
    if (scaled && (!hopper || is_depthwise(p) || small_channels(p)))
      return fail("scale_x, scale_w, scale_y and amax are applied by the Hopper kernel (Warpgroups) only, and not by the depthwise "
                  "or the small-channel kernel; fold the scales into the epilogue chain (epilogue::LinearCombination's alpha)");
    if (is_depthwise(p)) {  // groups = C = K: the direct kernel of conv/depthwise.hpp
      if constexpr (same_types) return depthwise_can_implement<EX>(p, Cfg::direction, a.x, a.w, a.y);
      else return fail("the depthwise kernel (groups = C = K) takes one element type for x, w and y; use one type");
    }
    if (small_channels(p)) {  // x and w are read element by element
      if constexpr (direct_types) {
        if (direct_small(p)) return small_channel_can_implement<EX, EY, typename Cfg::Epilogue>(p, a.x, a.y);
        if constexpr (hopper) {  // the shared memory (or no device)
          Status const st = small_channel_can_implement<EX, EY, typename Cfg::Epilogue>(p, a.x, a.y);
          return st.ok() ? st : Status(st.code(), st.message() + ", or a Warps<M, N> Config (whose kernel pads the channels to 8 in the workspace)");
        }
      } else if constexpr (hopper) {
        return fail("C = " + s(p.c) + " runs the small-channel kernel, which takes x and w of one 16-bit type (bfloat16_t, half_t); convert them");
      }
      return can_implement(padded(a, nullptr));
    }
    // A k-tile of Fprop is BK channels of one tap, of Dgrad BK filters of one tap.
    if (hopper && Cfg::direction == Direction::kFprop && p.c_per_group() % GemmCfg::BK != 0 && !(p.groups == 1 && is_pointwise(p)))
      return fail("C / groups = " + s(p.c_per_group()) + " is not a multiple of BlockTile K = " + s(GemmCfg::BK) +
                  " (a k-tile of the Hopper kernel is one filter tap); pad the channels or use a Warps<M, N> Config (the sm80 "
                  "kernel takes any multiple of 8, and C below 8)");
    if (Cfg::direction == Direction::kDgrad && p.k_per_group() % GemmCfg::BK != 0)
      return fail("K / groups = " + s(p.k_per_group()) + " is not a multiple of BlockTile K = " + s(GemmCfg::BK) +
                  " (a k-tile of Dgrad is one filter tap); use a BlockTile K that divides it, or pad the filters");
    auto const misaligned = [](void const* ptr) { return reinterpret_cast<std::uintptr_t>(ptr) % 16 != 0; };
    // X holds C channels a pixel and Y K (16-byte vectors: 8 of a 16-bit type, 16 of fp8, 4 of float).
    constexpr int cvec = 16 / int(sizeof(EX)), kvec = 16 / int(sizeof(EY));
    if (misaligned(a.x) || misaligned(a.w) || misaligned(a.y) || p.c_per_group() % cvec != 0 || p.k_per_group() % kvec != 0)
      return Status::misaligned("conv::Conv: x, w and y must be 16-byte aligned, C / groups a multiple of " + s(cvec) + " and K / groups of " +
                                s(kvec) + " (16-byte vectors of channels; C / groups = " + s(p.c_per_group()) + ", K / groups = " +
                                s(p.k_per_group()) + "); allocate with cudaMalloc and pad the channels");
    if (a.split_k < 0 || a.split_k > kMaxSplit)
      return Status::invalid_argument("conv::Conv: split_k = " + s(a.split_k) + " must be 0 (automatic) to " + s(kMaxSplit));
    GemmShape const g = gemm_shape(p, Cfg::direction);
    std::int64_t const blocks = ((g.m + GemmCfg::BM - 1) / GemmCfg::BM) * ((g.n + GemmCfg::BN - 1) / GemmCfg::BN) * p.groups * std::max(1, a.split_k);
    if (blocks > 2147483647) return fail("the grid has " + s(blocks) + " blocks, past 2^31 - 1; use a larger BlockTile or split the batch");
    int device = 0, major = 0;
    if (runtime::current_device(device) != runtime::kSuccess || (major = runtime::compute_capability_major(device)) == 0)
      return Status::device_error("conv::Conv: no CUDA device is available; run on a machine with an NVIDIA GPU");
    if (major < 8) return fail("the sm80 kernel needs compute capability 8.0 or newer (this device is " + s(major) + ".x)");
    if constexpr (hopper) {
      if (major != 9) return fail("the Hopper kernel (Warpgroups) runs on compute capability 9.0 only (this device is " + s(major) +
                                  ".x); use a Warps<M, N> Config");
      cudaFuncAttributes attributes{};
      if (cudaFuncGetAttributes(&attributes, gemm::sm90::gemm_kernel<GemmCfg, Loader90>) != cudaSuccess ||
          !gemm::sm90::built_for_sm90a(attributes)) {
        cudaGetLastError();
        return fail("this binary holds no sm_90a code of the Hopper kernel; build with CMAKE_CUDA_ARCHITECTURES=90a");
      }
      typename Loader90::Params probe{};  // the TMA maps' limits (corners, strides, channels)
      TESSERA_RETURN_IF_ERROR(Loader90::make(p, a.x, a.w, a.y, probe));
    }
    if (GemmCfg::smem_bytes > runtime::max_shared_memory_per_block(device))
      return fail("the Config needs " + s(GemmCfg::smem_bytes) + " bytes of shared memory, more than the device allows; use fewer Stages");
    return Status::success();
  }

  Status run(Arguments const& a, void* workspace = nullptr, cudaStream_t stream = nullptr) const {
    TESSERA_RETURN_IF_ERROR(can_implement(a));
    if (small_channels(a.problem)) {
      if constexpr (direct_types) {
        if (direct_small(a.problem)) return run_small_channel(a.problem, a.x, a.w, a.y, a.epilogue, stream);
      }
      if (workspace == nullptr)
        return Status::workspace_too_small("conv::Conv: C = " + std::to_string(a.problem.c) +
                                           " is staged in the workspace (padded to 8 channels): pass workspace_size(args) = " +
                                           std::to_string(workspace_size(a)) + " bytes");
      if (reinterpret_cast<std::uintptr_t>(workspace) % 256 != 0)  // before anything is written to it
        return Status::misaligned("conv::Conv: the workspace must be 256-byte aligned (the staged tensors are read as 16-byte "
                                  "vectors and TMA tiles); allocate it with cudaMalloc or round its offset up to 256");
      Problem const& p = a.problem;
      Arguments const b = padded(a, workspace);
      TESSERA_RETURN_IF_ERROR(pad_channels(a.x, b.x, std::int64_t(p.n) * p.d * p.h * p.w, p.c, kPaddedChannels, stream));
      TESSERA_RETURN_IF_ERROR(pad_channels(a.w, b.w, std::int64_t(p.k) * p.t * p.r * p.s, p.c, kPaddedChannels, stream));
      return run(b, static_cast<char*>(workspace) + pad_bytes(p), stream);
    }
    if (split_k_for(a) > 1 && workspace == nullptr)
      return Status::workspace_too_small("conv::Conv: split_k = " + std::to_string(split_k_for(a)) + " needs workspace_size(args) = " +
                                         std::to_string(workspace_size(a)) + " bytes; pass a workspace of that size");
    if constexpr (same_types) {
      if (is_depthwise(a.problem)) return run_depthwise(a.problem, Cfg::direction, a.x, a.w, a.y, a.epilogue, stream);
    }
    if constexpr (hopper) return run_sm90(a, workspace, stream);
    else return run_sm80(a, workspace, stream);
  }

 private:
  // The Hopper kernel: the GEMM's sm90 Kernel with the im2col loader; groups are batch entries.
  static gemm::sm90::WorkGrid work_grid(Arguments const& a) {
    GemmShape const g = gemm_shape(a.problem, Cfg::direction);
    int const k_tiles = int((g.k + GemmCfg::BK - 1) / GemmCfg::BK), split = split_k_for(a);
    return gemm::sm90::WorkGrid{int((g.m + GemmCfg::BM - 1) / GemmCfg::BM), int((g.n + GemmCfg::BN - 1) / GemmCfg::BN), a.problem.groups,
                                k_tiles, split, (k_tiles + split - 1) / split, 8, GemmCfg::cluster_m, GemmCfg::cluster_n};
  }
  static Status run_sm90(Arguments const& a, void* workspace, cudaStream_t stream) {
    Problem const& pr = a.problem;
    GemmShape const g = gemm_shape(pr, Cfg::direction);
    gemm::sm90::Params<GemmCfg, Loader90> p{};
    TESSERA_RETURN_IF_ERROR(Loader90::make(pr, a.x, a.w, a.y, p.load));
    // The written tensor as the epilogue's D: rows of the direction's GEMM, a group's columns
    // batch_stride_d elements after the previous group's (conv/implicit_gemm.hpp).
    gemm::Arguments<GemmCfg> d;
    d.m = int(g.m);
    d.n = int(g.n);
    d.k = int(g.k);
    d.batch_count = pr.groups;
    std::int64_t const taps = std::int64_t(pr.t) * pr.r * pr.s;
    if constexpr (Cfg::direction == Direction::kFprop) {
      d.d = a.y;
      d.ldd = pr.k;
      d.batch_stride_d = pr.k_per_group();
    } else if constexpr (Cfg::direction == Direction::kDgrad) {
      d.d = a.x;
      d.ldd = pr.c;
      d.batch_stride_d = pr.c_per_group();
    } else {
      d.d = a.w;
      d.ldd = taps * pr.c_per_group();
      d.batch_stride_d = pr.k_per_group() * taps * pr.c_per_group();
    }
    d.epilogue = a.epilogue;
    // The scales of the GEMM's A, B and D: Fprop X, W, Y; Dgrad dY, W, dX; Wgrad dY, X, dW.
    constexpr Direction dir = Cfg::direction;
    d.scale_a = dir == Direction::kFprop ? a.scale_x : a.scale_y;
    d.scale_b = dir == Direction::kWgrad ? a.scale_x : a.scale_w;
    d.scale_d = dir == Direction::kFprop ? a.scale_y : dir == Direction::kDgrad ? a.scale_x : a.scale_w;
    d.amax_d = a.amax;
    TESSERA_RETURN_IF_ERROR(gemm::sm90::Epilogue<GemmCfg>::make(d, true, stream, p.epilogue));
    p.epilogue.batch_columns = batch_columns(pr, Cfg::direction);  // conv/data_parallel.hpp
    p.grid = work_grid(a);
    TESSERA_RETURN_IF_ERROR(
        gemm::sm90::SplitK<GemmCfg>::make(p.grid.k_splits, std::size_t(p.grid.padded_tiles()), workspace, false, stream, p.split));
    return gemm::sm90::launch(p, true, stream);
  }

  static Status run_sm80(Arguments const& a, void* workspace, cudaStream_t stream) {
    Problem const& pr = a.problem;
    GemmShape const g = gemm_shape(pr, Cfg::direction);
    // The direction's tensors as A, B and D (conv/data_parallel.hpp); group g is batch entry g.
    auto const p = data_parallel_params<GemmCfg, typename Cfg::Direction, typename Loader::Params>(pr, a.x, a.w, a.y, a.epilogue, split_k_for(a),
                                                                                                 static_cast<float*>(workspace));
    auto kernel = gemm::sm80::loader_kernel<GemmCfg, Loader>;
    cudaError_t err = cudaSuccess;
    if (GemmCfg::smem_bytes > 48 * 1024) err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, GemmCfg::smem_bytes);
    if (err == cudaSuccess) {
      dim3 const grid(unsigned(p.tiles_m * p.tiles_n * p.batch_count * p.k_splits));
      kernel<<<grid, GemmCfg::threads, GemmCfg::smem_bytes, stream>>>(p);
      err = cudaGetLastError();
    }
    if (err == cudaSuccess && p.k_splits > 1) {
      dim3 const rgrid(unsigned(std::min<std::int64_t>((g.m * g.n + 255) / 256, 65535)), unsigned(pr.groups));
      gemm::reduce_splits<GemmCfg><<<rgrid, 256, 0, stream>>>(static_cast<gemm::DataParallelParams<GemmCfg> const&>(p));
      err = cudaGetLastError();
    }
    if (err != cudaSuccess) return Status::device_error(std::string("conv::Conv: kernel launch failed: ") + cudaGetErrorString(err));
    return Status::success();
  }
};

}  // namespace tessera::conv
#endif  // TESSERA_HIP
