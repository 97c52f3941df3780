// conv::Conv<Config> for AMD Instinct GPUs (arch::Gfx90a, arch::Gfx940 Configs, built with
// hipcc): conv/conv.hpp's API (it names this class conv::Conv under hipcc), run by the gfx9 GEMM
// kernel (gemm/gfx9/kernel.hpp) with the gather loaders of conv/gfx9/im2col_loader.hpp.
//
//   using Cfg = conv::Config<arch::Gfx90a, half_t, half_t, half_t, float, conv::Fprop,
//                            gemm::BlockTile<128, 128, 32>, gemm::Warps<2, 2>, gemm::Stages<2>, Epi>;
//   conv::Conv<Cfg>::Arguments args;            // x: N H W C, w: K R S C, y: N P Q K (packed)
//   args.problem = problem; args.x = x; args.w = w; args.y = y;
//   args.epilogue = Epi::make(bias);
//   if (Status s = conv::Conv<Cfg>{}.run(args, workspace, stream); !s) ...   // a hipStream_t
//
// Fprop, Dgrad (with a stride too: the zero terms are computed, as on sm80) and Wgrad, grouped,
// split-K through the workspace (split_k = 0 picks the split), 16-bit types; the chain sees the
// coordinates conv/conv.hpp describes. Not on this path yet: depthwise (groups = C = K) and
// small-channel (C < 8) layers, which the CUDA build runs with kernels of their own.
// tessera-header: hip-only
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>

#include "tessera/conv/config.hpp"
#include "tessera/conv/data_parallel.hpp"
#include "tessera/conv/gfx9/im2col_loader.hpp"
#include "tessera/conv/implicit_gemm.hpp"
#include "tessera/conv/problem.hpp"
#include "tessera/core/runtime.hpp"
#include "tessera/core/status.hpp"
#include "tessera/gemm/data_parallel.hpp"
#include "tessera/gemm/gfx9/device.hpp"
#include "tessera/gemm/gfx9/kernel.hpp"

namespace tessera::conv::gfx9 {

template <class Cfg>
class Conv {
  static_assert(!Cfg::Gemm::valid || Cfg::Gemm::amd, "conv::Conv: arch::Sm80 / arch::Sm90 Configs build with a CUDA compiler (nvcc); "
                                                     "under hipcc use arch::Gfx90a or arch::Gfx940");

 public:
  using Config = Cfg;
  using GemmCfg = typename Cfg::Gemm;
  using EX = typename Cfg::ElementX;
  using EW = typename Cfg::ElementW;
  using EY = typename Cfg::ElementY;
  using Loader = gfx9::Loader<GemmCfg, typename Cfg::Direction>;

  using Arguments = conv::Arguments<Cfg>;  // conv/config.hpp

  static constexpr int kMaxSplit = 32;
  static int split_k_for(Arguments const& a) {
    int device = 0;
    int const sms = a.split_k != 0 || runtime::current_device(device) != runtime::kSuccess ? 1 : std::max(1, runtime::multiprocessors(device));
    return conv::split_k_for<GemmCfg>(a.problem, Cfg::direction, a.split_k, sms, false, kMaxSplit);
  }

  // Bytes of workspace `run` needs: every K slice's partial sums (floats, M x N per group).
  static std::size_t workspace_size(Arguments const& a) {
    if (!check(a.problem) || a.split_k < 0 || a.split_k > kMaxSplit) return 0;
    int const split = split_k_for(a);
    if (split <= 1) return 0;
    GemmShape const g = gemm_shape(a.problem, Cfg::direction);
    return std::size_t(split) * std::size_t(a.problem.groups) * std::size_t(g.m) * std::size_t(g.n) * sizeof(float);
  }

  static Status can_implement(Arguments const& a) {
    Problem const& p = a.problem;
    TESSERA_RETURN_IF_ERROR(check_gather_arguments<GemmCfg>(p, Cfg::direction, a.x, a.w, a.y, a.split_k, kMaxSplit, "hipMalloc"));
    if (a.scale_x != nullptr || a.scale_w != nullptr || a.scale_y != nullptr || a.amax != nullptr)
      return Status::not_supported("conv::Conv: scale_x, scale_w, scale_y and amax are applied by the Hopper kernel (Warpgroups) only; "
                                   "fold the scales into the epilogue chain (epilogue::LinearCombination's alpha)");
    TESSERA_RETURN_IF_ERROR(gfx9::can_implement(p, int(sizeof(EX))));
    if (Status const s = gemm::gfx9::check_device<GemmCfg>(); !s) return Status(s.code(), "conv::Conv: " + s.detail());
    return Status::success();
  }

  Status run(Arguments const& a, void* workspace = nullptr, runtime::Stream stream = nullptr) const {
    TESSERA_RETURN_IF_ERROR(can_implement(a));
    int const split = split_k_for(a);
    if (split > 1 && workspace == nullptr)
      return Status::workspace_too_small("conv::Conv: split_k = " + std::to_string(split) + " needs workspace_size(args) = " +
                                         std::to_string(workspace_size(a)) + " bytes; pass a workspace of that size");
    auto const p = data_parallel_params<GemmCfg, typename Cfg::Direction, typename Loader::Params>(
        a.problem, a.x, a.w, a.y, a.epilogue, split, static_cast<float*>(workspace));
    gemm::gfx9::loader_kernel<GemmCfg, Loader><<<dim3(unsigned(p.tiles_m * p.tiles_n * p.batch_count * p.k_splits)), GemmCfg::threads, 0, stream>>>(p);
    runtime::Error err = runtime::last_error();
    if (err == runtime::kSuccess && p.k_splits > 1) {
      dim3 const rgrid(unsigned(std::min<std::int64_t>((std::int64_t(p.m) * p.n + 255) / 256, 65535)), unsigned(p.batch_count));
      gemm::reduce_splits<GemmCfg><<<rgrid, 256, 0, stream>>>(static_cast<gemm::DataParallelParams<GemmCfg> const&>(p));
      err = runtime::last_error();
    }
    if (err != runtime::kSuccess) return Status::device_error(std::string("conv::Conv: kernel launch failed: ") + runtime::error_string(err));
    return Status::success();
  }
};

}  // namespace tessera::conv::gfx9
