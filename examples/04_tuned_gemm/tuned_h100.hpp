// Written by tessera-profile emit: the fastest verified GEMM configuration per profiled problem,
// measured on NVIDIA H100 80GB HBM3 on 2026-11-21. Dispatch with
//   tessera::gemm::Tuned<tuned_h100::<table>, YourEpilogue>
// which runs each problem with the entry nearest to it (log2 M, N, K). Regenerate rather than edit.
#pragma once

#include "tessera/gemm/tuned.hpp"

namespace tuned_h100 {

// bf16 tn, profiled with epilogue none: 5 problem(s)
inline constexpr tessera::gemm::TunedTable<5> bf16_tn{{
    // sm90_bf16_tn_64x32x64_1wg_coop_s16
    {16, 4096, 4096, {.arch_cc = 90, .layouts_known = true, .a_k_major = true, .b_k_major = true, .a = tessera::gemm::Dtype::kBf16, .b = tessera::gemm::Dtype::kBf16, .d = tessera::gemm::Dtype::kBf16, .acc = tessera::gemm::Dtype::kF32, .bm = 64, .bn = 32, .bk = 64, .warps_m = 0, .warps_n = 0, .consumers = 1, .ping_pong = false, .cluster_m = 1, .cluster_n = 1, .stages = 16}, false, 23.78},
    // sm90_bf16_tn_128x32x64_2wg_coop_s5_swap
    {16, 14336, 4096, {.arch_cc = 90, .layouts_known = true, .a_k_major = true, .b_k_major = true, .a = tessera::gemm::Dtype::kBf16, .b = tessera::gemm::Dtype::kBf16, .d = tessera::gemm::Dtype::kBf16, .acc = tessera::gemm::Dtype::kF32, .bm = 128, .bn = 32, .bk = 64, .warps_m = 0, .warps_n = 0, .consumers = 2, .ping_pong = false, .cluster_m = 1, .cluster_n = 1, .stages = 5}, true, 54.72},
    // sm90_bf16_tn_64x64x64_1wg_coop_s12
    {128, 4096, 4096, {.arch_cc = 90, .layouts_known = true, .a_k_major = true, .b_k_major = true, .a = tessera::gemm::Dtype::kBf16, .b = tessera::gemm::Dtype::kBf16, .d = tessera::gemm::Dtype::kBf16, .acc = tessera::gemm::Dtype::kF32, .bm = 64, .bn = 64, .bk = 64, .warps_m = 0, .warps_n = 0, .consumers = 1, .ping_pong = false, .cluster_m = 1, .cluster_n = 1, .stages = 12}, false, 23.01},
    // sm90_bf16_tn_128x256x64_2wg_coop_s4
    {4096, 4096, 4096, {.arch_cc = 90, .layouts_known = true, .a_k_major = true, .b_k_major = true, .a = tessera::gemm::Dtype::kBf16, .b = tessera::gemm::Dtype::kBf16, .d = tessera::gemm::Dtype::kBf16, .acc = tessera::gemm::Dtype::kF32, .bm = 128, .bn = 256, .bk = 64, .warps_m = 0, .warps_n = 0, .consumers = 2, .ping_pong = false, .cluster_m = 1, .cluster_n = 1, .stages = 4}, false, 180.22},
    // sm90_bf16_tn_128x256x64_2wg_coop_s4
    {4096, 14336, 4096, {.arch_cc = 90, .layouts_known = true, .a_k_major = true, .b_k_major = true, .a = tessera::gemm::Dtype::kBf16, .b = tessera::gemm::Dtype::kBf16, .d = tessera::gemm::Dtype::kBf16, .acc = tessera::gemm::Dtype::kF32, .bm = 128, .bn = 256, .bk = 64, .warps_m = 0, .warps_n = 0, .consumers = 2, .ping_pong = false, .cluster_m = 1, .cluster_n = 1, .stages = 4}, false, 617.76},
}};

}  // namespace tuned_h100
