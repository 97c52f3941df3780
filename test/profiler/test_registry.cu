// The type-erased registry entries: their metadata, which epilogues run static kernels, and the
// refusals that need no GPU (a problem of other types names both; null operands reach
// Gemm::can_implement through every epilogue path; run launches nothing when refused).
#include <catch2/catch.hpp>

#include "tessera/tuning/register_gemm.hpp"

using namespace tessera;

namespace {
constexpr auto kSpace = tuning::gemm_space(tuning::SpaceSize::kReduced);
// The reduced space's first sm80 (bf16 128x128, 2x2 warps) and first sm90 (bf16 128x256 cooperative) candidates.
template <std::size_t I>
constexpr gemm::ConfigSpec kSpec = kSpace.items[I].spec;
constexpr std::size_t kSm80 = 0, kSm90 = 4;

tuning::GemmProblem problem(gemm::Dtype t, char const* epilogue) {
  tuning::GemmProblem p;
  p.m = p.n = p.k = 64;
  p.lda = p.ldb = p.ldd = 64;
  p.a_type = p.b_type = p.d_type = t;
  REQUIRE(tuning::parse_epilogue(epilogue, p.epilogue).ok());
  return p;  // null pointers
}
}  // namespace

TEST_CASE("registry entries carry their configuration's metadata", "[profiler][registry]") {
  static_assert(kSpec<kSm80>.arch_cc == 80 && kSpec<kSm90>.arch_cc == 90 && kSpec<kSm90>.consumers == 2);
  tuning::GemmRegistry r;
  tuning::register_gemm<kSpec<kSm80>, 0u>(r);
  tuning::register_gemm<kSpec<kSm90>, tuning::kStaticBias | tuning::kStaticBiasGelu>(r);
  REQUIRE(r.kernels().size() == 2);
  tuning::GemmKernel const& k80 = r.kernels()[0];
  tuning::GemmKernel const& k90 = r.kernels()[1];
  CHECK(k80.name == "sm80_bf16_tn_128x128x32_2x2w_s3");
  CHECK(k90.name == "sm90_bf16_tn_128x256x64_2wg_coop_s4");
  CHECK(r.find(k90.name) == &k90);
  CHECK(r.find("sm90_bf16_tn_96x96x64_1wg_coop_s4") == nullptr);
  CHECK(k80.smem_bytes == gemm::ConfigOf<kSpec<kSm80>>::smem_bytes);
  CHECK(k90.smem_bytes == gemm::ConfigOf<kSpec<kSm90>>::smem_bytes);
  CHECK((k80.threads == 128 && k90.threads == 384));
  CHECK((!k80.can_swap && k90.can_swap));

  tuning::EpilogueStages none, bias_gelu, bias_relu, bias;
  REQUIRE(tuning::parse_epilogue("bias_gelu", bias_gelu).ok());
  REQUIRE(tuning::parse_epilogue("bias_relu", bias_relu).ok());
  REQUIRE(tuning::parse_epilogue("bias", bias).ok());
  CHECK((k90.has_static(none) && k90.has_static(bias_gelu) && k90.has_static(bias) && !k90.has_static(bias_relu)));
  CHECK((k80.has_static(none) && !k80.has_static(bias_gelu)));
}

TEST_CASE("registry entries refuse what they cannot run, and say why", "[profiler][registry]") {
  tuning::GemmRegistry r;
  tuning::register_gemm<kSpec<kSm90>, tuning::kStaticBiasGelu>(r);
  tuning::GemmKernel const& k = r.kernels()[0];

  // Other types: the entry names its own and the problem's, and run launches nothing.
  auto const f16 = problem(gemm::Dtype::kF16, "none");
  for (Status const& s : {k.can_implement(f16, false), k.run(f16, false, nullptr)}) {
    CHECK(s.code() == StatusCode::kNotSupported);
    CHECK_THAT(s.message(), Catch::Contains("computes bf16 x bf16 -> bf16, A row-major, B column-major") &&
                                Catch::Contains("the problem is f16 x f16 -> f16"));
  }
  // Its own types with null operands: the plain, the static and the run-time chain's kernels
  // each reach Gemm::can_implement, which refuses them.
  for (char const* epilogue : {"none", "bias_gelu", "bias_relu", "linear_bias_residual"}) {
    INFO(epilogue);
    Status const s = k.can_implement(problem(gemm::Dtype::kBf16, epilogue), false);
    CHECK(s.code() == StatusCode::kInvalidArgument);
    CHECK_THAT(s.message(), Catch::Contains("a null pointer for A"));
  }
}
