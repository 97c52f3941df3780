#!/bin/bash
# Checks a HIP test program's AMD code without a GPU:
#   1. the code object of every target, extracted from the executable (roc-obj) and disassembled
#      (llvm-objdump), holds the MFMA (and buffer load) instructions expected of that program on
#      that target;
#   2. in the --save-temps assembly, every kernel that issues an MFMA has ScratchSize 0 (no spills,
#      no private arrays);
#   3. conv, attention: no buffer load of an MFMA kernel sits in a waterfall loop (an s_and_saveexec_b64 just
#      before it: the compiler could not keep the buffer resource in scalar registers and loops
#      over the lanes' resources; arch::gfx9::wave_uniform says why).
# usage: check_mfma_code.sh <executable> <save-temps dir> <llvm-objdump> <roc-obj> mfma|gemm|conv|attention
#   mfma: the atom test, every instruction of the target; gemm: the GEMM test, the 32x32 forms its
#   kernels use and the buffer loads that feed them; conv: the convolution test, its f16 and bf16
#   forms and the 16-byte buffer loads of its gathers; attention: the attention test, the same.
set -euo pipefail
exe=$1 temps=$2 objdump=$3 rocobj=$4 program=${5:-mfma}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The instructions each target must show, as llvm-objdump 15 spells them (CDNA3 renames the
# bf16_1k forms _bf16).
declare -A want
if [[ $program == mfma ]]; then
  want=(
    [gfx908]="v_mfma_f32_32x32x8f16 v_mfma_f32_16x16x16f16 v_mfma_f32_32x32x2f32 v_mfma_i32_32x32x8i8"
    [gfx90a]="v_mfma_f32_32x32x8f16 v_mfma_f32_16x16x16f16 v_mfma_f32_32x32x2f32 v_mfma_i32_32x32x8i8 v_mfma_f32_32x32x8bf16_1k v_mfma_f32_16x16x16bf16_1k"
    [gfx940]="v_mfma_f32_32x32x8f16 v_mfma_f32_16x16x16f16 v_mfma_f32_32x32x2f32 v_mfma_f32_32x32x8_bf16 v_mfma_f32_16x16x16_bf16 v_mfma_i32_32x32x16_i8 v_mfma_f32_32x32x4_xf32 v_mfma_f32_32x32x16_fp8_fp8 v_mfma_f32_32x32x16_bf8_bf8"
  )
elif [[ $program == conv || $program == attention ]]; then
  want=(
    [gfx90a]="v_mfma_f32_32x32x8f16 v_mfma_f32_32x32x8bf16_1k buffer_load_dwordx4"
    [gfx940]="v_mfma_f32_32x32x8f16 v_mfma_f32_32x32x8_bf16 buffer_load_dwordx4"
  )
else
  # and the buffer loads of the k-tile copies: 16-byte vectors, and the element loads of the
  # unaligned path (32-, 16- and 8-bit types)
  loads="buffer_load_dwordx4 buffer_load_dword buffer_load_ushort buffer_load_ubyte"
  want=(
    [gfx90a]="v_mfma_f32_32x32x8f16 v_mfma_f32_32x32x8bf16_1k v_mfma_f32_32x32x2f32 v_mfma_i32_32x32x8i8 $loads"
    [gfx940]="v_mfma_f32_32x32x8f16 v_mfma_f32_32x32x8_bf16 v_mfma_f32_32x32x2f32 v_mfma_i32_32x32x16_i8 v_mfma_f32_32x32x16_fp8_fp8 v_mfma_f32_32x32x16_bf8_bf8 $loads"
  )
fi
# (roc-obj 5.2 exits 1 after extracting: the files it writes are what counts)
"$rocobj" -o "$work" "$exe" > /dev/null 2>&1 || true
status=0
checked=0
for co in "$work"/*amdgcn-amd-amdhsa--gfx*; do
  [[ $co == *.s ]] && continue
  arch=${co##*--}
  arch=${arch%%:*}
  [[ -n ${want[$arch]:-} ]] || { echo "no expectations for $arch"; status=1; continue; }
  "$objdump" -d --mcpu="$arch" "$co" > "$work/$arch.dis"
  for insn in ${want[$arch]}; do
    if grep -qE "^\s+$insn\s" "$work/$arch.dis"; then
      echo "$arch: $insn found"
    else
      echo "$arch: $insn MISSING from the disassembly"
      status=1
    fi
  done
  checked=$((checked + 1))
done
[[ $checked -gt 0 ]] || { echo "no AMD code object in $exe"; exit 1; }
for s in "$temps"/*-hip-amdgcn-amd-amdhsa-gfx*.s; do
  # Per function: does it issue an MFMA, its ScratchSize, and (conv) its buffer loads in waterfall
  # loops.
  awk -v file="$(basename "$s")" -v waterfalls=$([[ $program == conv || $program == attention ]] && echo 1 || echo 0) '
    /^[A-Za-z_][A-Za-z0-9_.]*:/ { fn = $1; mfma = 0; looped = 0; since = 99 }
    /^[ \t]+[a-z_0-9]+/ { since++ }
    /^[ \t]+s_and_saveexec_b64/ { since = 0 }
    /^[ \t]+buffer_load/ { if (since <= 3) looped++ }
    /^[ \t]+v_mfma/ { mfma = 1 }
    /; ScratchSize:/ { if (mfma) { n++; if ($3 != 0) { print file ": " fn " uses " $3 " bytes of scratch"; bad = 1 }
                                   if (waterfalls && looped) { print file ": " fn " has " looped " buffer loads in waterfall loops"; bad = 1 } } }
    END { if (n == 0) { print file ": no MFMA kernel"; bad = 1 }
          else if (!bad) print file ": " n " MFMA kernels, no scratch" (waterfalls ? ", no buffer load in a waterfall loop" : "")
          exit bad }
  ' "$s" || status=1
done
exit $status
