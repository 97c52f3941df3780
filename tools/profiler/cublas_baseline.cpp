#include "cublas_baseline.hpp"

#include <cublasLt.h>

#include <cstdint>

namespace tessera::profiler {

namespace {

std::string lt_message(cublasStatus_t s) { return std::string("cuBLASLt: ") + cublasLtGetStatusString(s); }

#define TESSERA_LT(expr)                                                          \
  do {                                                                            \
    cublasStatus_t const _s = (expr);                                             \
    if (_s != CUBLAS_STATUS_SUCCESS) return Status::device_error(lt_message(_s)); \
  } while (0)

cudaDataType_t cuda_type(gemm::Dtype t) {
  switch (t) {
    case gemm::Dtype::kBf16: return CUDA_R_16BF;
    case gemm::Dtype::kF16: return CUDA_R_16F;
    case gemm::Dtype::kF32: return CUDA_R_32F;
    case gemm::Dtype::kInt8: return CUDA_R_8I;
    case gemm::Dtype::kInt32: return CUDA_R_32I;
    case gemm::Dtype::kE4m3: return CUDA_R_8F_E4M3;
    default: return CUDA_R_32F;
  }
}

}  // namespace

// cuBLASLt's matrices are column-major: D (M x N, row-major) is Dᵀ (N x M, column-major) =
// op(B) op(A), with our B as its first operand and our A as its second.
struct CublasBaseline::Plan {
  cublasLtHandle_t handle = nullptr;
  cublasLtMatmulDesc_t op = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr, d = nullptr;
  cublasLtMatmulAlgo_t algo{};
  void* workspace = nullptr;
  std::size_t workspace_bytes = std::size_t(32) << 20;  // what cuBLAS asks for on Hopper
  tuning::GemmProblem problem{};
  float alpha_f = 1, beta_f = 0;
  std::int32_t alpha_i = 1, beta_i = 0;
  bool integer = false, ready = false;

  void release() {
    if (op) cublasLtMatmulDescDestroy(op);
    for (auto* l : {a, b, c, d})
      if (l) cublasLtMatrixLayoutDestroy(l);
    op = nullptr;
    a = b = c = d = nullptr;
    ready = false;
  }
};

CublasBaseline::CublasBaseline() : plan_(new Plan) {}

CublasBaseline::~CublasBaseline() {
  plan_->release();
  if (plan_->handle) cublasLtDestroy(plan_->handle);
  cudaFree(plan_->workspace);
  delete plan_;
}

Status CublasBaseline::plan(tuning::GemmProblem const& p) {
  Plan& P = *plan_;
  P.release();
  tuning::EpilogueStages const& e = p.epilogue;
  using epilogue::Activation;
  std::string missing;
  if (e.scale_shift) missing = "scale-and-shift";
  else if (e.residual) missing = "residual add";
  else if (e.activation != Activation::kIdentity && e.activation != Activation::kRelu && e.activation != Activation::kGeluTanh)
    missing = tuning::epilogue_name(tuning::EpilogueStages{.activation = e.activation});
  if (!missing.empty()) return Status::not_supported("cuBLASLt has no fused " + missing + " epilogue");
  if ((e.activation != Activation::kIdentity || e.bias) && p.d_type == gemm::Dtype::kInt32)
    return Status::not_supported("cuBLASLt has no fused epilogue for int8 GEMMs with int32 output");
  if (!P.handle) TESSERA_LT(cublasLtCreate(&P.handle));
  if (!P.workspace)
    if (cudaMalloc(&P.workspace, P.workspace_bytes) != cudaSuccess) return Status::device_error("allocating cuBLASLt's workspace failed");

  P.integer = p.a_type == gemm::Dtype::kInt8;
  cublasComputeType_t const compute = P.integer                       ? CUBLAS_COMPUTE_32I
                                      : p.a_type == gemm::Dtype::kF32 ? CUBLAS_COMPUTE_32F_FAST_TF32
                                                                      : CUBLAS_COMPUTE_32F;
  TESSERA_LT(cublasLtMatmulDescCreate(&P.op, compute, P.integer ? CUDA_R_32I : CUDA_R_32F));
  // Our B is cuBLASLt's A: K-major (column-major K x N) needs a transpose to N x K.
  cublasOperation_t const op_b = p.b_k_major ? CUBLAS_OP_T : CUBLAS_OP_N, op_a = p.a_k_major ? CUBLAS_OP_N : CUBLAS_OP_T;
  TESSERA_LT(cublasLtMatmulDescSetAttribute(P.op, CUBLASLT_MATMUL_DESC_TRANSA, &op_b, sizeof op_b));
  TESSERA_LT(cublasLtMatmulDescSetAttribute(P.op, CUBLASLT_MATMUL_DESC_TRANSB, &op_a, sizeof op_a));
  cublasLtEpilogue_t const epi = e.activation == Activation::kRelu     ? (e.bias ? CUBLASLT_EPILOGUE_RELU_BIAS : CUBLASLT_EPILOGUE_RELU)
                                 : e.activation == Activation::kGeluTanh ? (e.bias ? CUBLASLT_EPILOGUE_GELU_BIAS : CUBLASLT_EPILOGUE_GELU)
                                 : e.bias                                ? CUBLASLT_EPILOGUE_BIAS
                                                                         : CUBLASLT_EPILOGUE_DEFAULT;
  TESSERA_LT(cublasLtMatmulDescSetAttribute(P.op, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, sizeof epi));
  if (e.bias) {
    void const* bias = p.operands.bias;
    std::int64_t const zero = 0;  // one bias vector for every batch entry
    TESSERA_LT(cublasLtMatmulDescSetAttribute(P.op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof bias));
    TESSERA_LT(cublasLtMatmulDescSetAttribute(P.op, CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE, &zero, sizeof zero));
  }
  auto layout = [&](cublasLtMatrixLayout_t& l, gemm::Dtype t, std::uint64_t rows, std::uint64_t cols, std::int64_t ld,
                    std::int64_t batch_stride) -> Status {
    TESSERA_LT(cublasLtMatrixLayoutCreate(&l, cuda_type(t), rows, cols, ld));
    if (p.batch_count > 1) {
      std::int32_t const count = p.batch_count;
      TESSERA_LT(cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof count));
      TESSERA_LT(cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &batch_stride, sizeof batch_stride));
    }
    return Status::success();
  };
  auto const m = std::uint64_t(p.m), n = std::uint64_t(p.n), k = std::uint64_t(p.k);
  TESSERA_RETURN_IF_ERROR(layout(P.a, p.b_type, p.b_k_major ? k : n, p.b_k_major ? n : k, p.ldb, p.batch_stride_b));
  TESSERA_RETURN_IF_ERROR(layout(P.b, p.a_type, p.a_k_major ? k : m, p.a_k_major ? m : k, p.lda, p.batch_stride_a));
  // Dᵀ is N x M column-major where D is row-major (and M x N row-major, the transposed view,
  // where D is column-major).
  bool const d_rows = p.d_order == gemm::StorageOrder::kRowMajor;
  if (!d_rows) return Status::not_supported("the cuBLASLt comparison takes a row-major D");
  TESSERA_RETURN_IF_ERROR(layout(P.d, p.d_type, n, m, p.ldd, p.batch_stride_d));
  TESSERA_RETURN_IF_ERROR(layout(P.c, p.d_type, n, m, e.linear ? p.operands.ldc : p.ldd, p.batch_stride_d));
  if (P.integer) {
    P.alpha_i = 1;
    P.beta_i = 0;
    if (e.linear) return Status::not_supported("the cuBLASLt comparison takes no alpha / beta for int8 GEMMs");
  } else {
    P.alpha_f = e.linear ? p.operands.alpha : 1.0f;
    P.beta_f = e.linear ? p.operands.beta : 0.0f;
  }

  cublasLtMatmulPreference_t pref = nullptr;
  TESSERA_LT(cublasLtMatmulPreferenceCreate(&pref));
  cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &P.workspace_bytes, sizeof P.workspace_bytes);
  cublasLtMatmulHeuristicResult_t best{};
  int found = 0;
  cublasStatus_t const h = cublasLtMatmulAlgoGetHeuristic(P.handle, P.op, P.a, P.b, P.c, P.d, pref, 1, &best, &found);
  cublasLtMatmulPreferenceDestroy(pref);
  if (h != CUBLAS_STATUS_SUCCESS || found == 0)
    return Status::not_supported("cuBLASLt has no algorithm for this problem (" + lt_message(h) + ")");
  P.algo = best.algo;
  P.problem = p;
  P.ready = true;
  return Status::success();
}

Status CublasBaseline::run(cudaStream_t stream) const {
  Plan const& P = *plan_;
  if (!P.ready) return Status::invalid_argument("CublasBaseline::run before a successful plan");
  tuning::GemmProblem const& p = P.problem;
  void const* alpha = P.integer ? static_cast<void const*>(&P.alpha_i) : &P.alpha_f;
  void const* beta = P.integer ? static_cast<void const*>(&P.beta_i) : &P.beta_f;
  void const* c = p.epilogue.linear ? p.operands.c : p.d;
  TESSERA_LT(cublasLtMatmul(P.handle, P.op, alpha, p.b, P.a, p.a, P.b, beta, c, P.c, p.d, P.d, &P.algo, P.workspace,
                            P.workspace_bytes, stream));
  return Status::success();
}

}  // namespace tessera::profiler
