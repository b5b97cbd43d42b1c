#!/usr/bin/env bash
# Checks the AMD code objects of a HIP build: every HIP object file (*.hip.o) under BUILD_DIR
# carries a code object for each ARCH; each code object is an amdgcn ELF for that ARCH whose
# kernels all run in wave64; the decode kernels (split_kv_decode, persistent_decode) hold the
# 16x16x16 bf16 and f16 MFMA instructions of mma_tile_mfma.hpp; and on CDNA3 (gfx940-gfx942) the
# split-KV kernels hold the fp8 MFMA of their fp8 score products, which gfx90a has not. Exit 0 when
# all hold, 1 with the reasons otherwise, 2 on usage or missing tools. Nothing runs on a GPU.
#
#   scripts/check-amd-code-objects.sh BUILD_DIR ARCH [ARCH...]
#   scripts/check-amd-code-objects.sh build-gfx942 gfx90a gfx942
#
# Tools: clang-offload-bundler, llvm-objcopy, llvm-objdump, llvm-readelf of LLVM 19 (Debian's
# clang-tools-19, llvm-19), else ROCm's (/opt/rocm/llvm/bin); LLVM_TOOLS_SUFFIX picks other
# versions (for example "-20"). Debian's unsuffixed LLVM 14 tools do not know gfx94x.
# Objects without a .hip_fatbin section hold no device code (host-side HIP only) and are skipped.
set -euo pipefail

if [ "$#" -lt 2 ]; then
  echo "usage: $0 BUILD_DIR ARCH [ARCH...]" >&2
  exit 2
fi
build_dir=$1
shift
archs=("$@")

# The objects whose kernels multiply on the matrix cores (through row_group_attention.hpp).
mfma_objects=(split_kv_decode.hip.o persistent_decode.hip.o)
# The object whose kernels take the fp8 score products where the target has fp8 MFMA (the
# persistent kernel compiles them out: row_group_attention.hpp, kPersistentFp8Products).
fp8_mfma_object=split_kv_decode.hip.o

tool() {
  local name=$1 candidate
  local candidates=("$name-19" "/opt/rocm/llvm/bin/$name")
  if [ -n "${LLVM_TOOLS_SUFFIX-}" ]; then candidates=("$name$LLVM_TOOLS_SUFFIX"); fi
  for candidate in "${candidates[@]}"; do
    if command -v "$candidate" > /dev/null 2>&1; then
      command -v "$candidate"
      return 0
    fi
  done
  echo "check-amd-code-objects: no $name (install clang-tools-19 and llvm-19)" >&2
  exit 2
}
bundler=$(tool clang-offload-bundler)
objcopy=$(tool llvm-objcopy)
objdump=$(tool llvm-objdump)
readelf=$(tool llvm-readelf)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

mapfile -t objects < <(find "$build_dir" -name '*.hip.o' -type f | sort)
if [ "${#objects[@]}" -eq 0 ]; then
  echo "check-amd-code-objects: no *.hip.o under $build_dir (was it built with HIP?)" >&2
  exit 1
fi

failures=0
fail() {
  echo "FAIL $*"
  failures=$((failures + 1))
}

declare -A seen=()  # object names seen
for object in "${objects[@]}"; do
  name=$(basename "$object")
  seen["$name"]=1
  fatbin="$work/$name.fatbin"
  # The device code of a HIP object sits in its .hip_fatbin section as an offload bundle.
  sections=$("$readelf" --section-headers "$object")
  if ! grep -q '\.hip_fatbin' <<< "$sections"; then
    echo "skip $name: no device code"
    continue
  fi
  "$objcopy" --dump-section ".hip_fatbin=$fatbin" "$object" "$work/$name.host"
  bundles=$("$bundler" --list --type=o --input="$fatbin")
  for arch in "${archs[@]}"; do
    bundle="hipv4-amdgcn-amd-amdhsa--$arch"
    if ! grep -qx "$bundle" <<< "$bundles"; then
      fail "$name: no $arch code object (bundles: $(tr '\n' ' ' <<< "$bundles"))"
      continue
    fi
    code="$work/$name.$arch.co"
    "$bundler" --unbundle --type=o --input="$fatbin" --targets="$bundle" --output="$code"
    flags=$("$readelf" --file-header "$code" | awk -F: '/Flags/ {print $2}')
    if ! grep -qw "$arch" <<< "$flags"; then
      fail "$name: the $arch bundle is an ELF for '$flags'"
    fi
    # Kernel metadata (the AMDGPU note): every kernel's wavefront size.
    sizes=$("$readelf" --notes "$code" | awk '/\.wavefront_size:/ {print $2}' | sort -u | tr '\n' ' ')
    if [ -n "$sizes" ] && [ "$sizes" != "64 " ]; then
      fail "$name ($arch): kernels with wavefront sizes $sizes, not only 64"
    fi
    kernels=$("$readelf" --notes "$code" | grep -c '\.wavefront_size:' || true)
    summary="$kernels kernels, wave64"
    for expected in "${mfma_objects[@]}"; do
      [ "$name" = "$expected" ] || continue
      # gfx90a spells them v_mfma_f32_16x16x16bf16_1k / v_mfma_f32_16x16x16f16, gfx94x and later
      # v_mfma_f32_16x16x16_bf16 / v_mfma_f32_16x16x16_f16.
      disassembly=$("$objdump" --disassemble "$code")
      bf16=$(grep -cE 'v_mfma_f32_16x16x16_?bf16' <<< "$disassembly" || true)
      f16=$(grep -cE 'v_mfma_f32_16x16x16_?f16' <<< "$disassembly" || true)
      if [ "$bf16" -eq 0 ] || [ "$f16" -eq 0 ]; then
        fail "$name ($arch): MFMA 16x16x16 instructions bf16 $bf16, f16 $f16; both must be there"
      fi
      summary="$summary, MFMA 16x16x16 bf16 x$bf16, f16 x$f16"
      fp8=$(grep -c 'v_mfma_f32_16x16x32_fp8_fp8' <<< "$disassembly" || true)
      if [ "$name" = "$fp8_mfma_object" ]; then
        case "$arch" in
          gfx940 | gfx941 | gfx942)
            [ "$fp8" -gt 0 ] || fail "$name ($arch): no v_mfma_f32_16x16x32_fp8_fp8 (the fp8 score products)" ;;
          gfx90a)
            [ "$fp8" -eq 0 ] || fail "$name ($arch): $fp8 fp8 MFMA instructions on a target without them" ;;
        esac
      fi
      summary="$summary, fp8 x$fp8"
    done
    echo "ok   $name ($arch): $summary"
  done
done
for expected in "${mfma_objects[@]}"; do
  [ -n "${seen[$expected]-}" ] || fail "$expected: not found under $build_dir"
done

echo "check-amd-code-objects: ${#objects[@]} HIP objects, architectures ${archs[*]}, $failures failures"
[ "$failures" -eq 0 ]
