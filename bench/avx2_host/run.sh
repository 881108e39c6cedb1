#!/usr/bin/env bash
# Runs a command as on an AVX2-only host: every library in the process (our kernels, ONNX Runtime's
# MLAS, numpy, torch) sees a CPU without AVX-512 / AMX (cpuid_avx2.c; needs the cpuid_fault CPU flag).
#
#   bash bench/avx2_host/run.sh python bench/fused_layer_bench.py --device cpu --threads 1 --out OUT
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
if ! grep -qw cpuid_fault /proc/cpuinfo; then
  echo "avx2_host: this CPU / kernel has no cpuid_fault flag: cannot hide AVX-512 from a process" >&2
  exit 3
fi
LIB=${TMPDIR:-/tmp}/turbofno-cpuid_avx2.so
if [ ! -f "$LIB" ] || [ "$HERE/cpuid_avx2.c" -nt "$LIB" ]; then
  ${CC:-cc} -O2 -Wall -shared -fPIC -o "$LIB" "$HERE/cpuid_avx2.c" -ldl
fi
LD_PRELOAD="$LIB${LD_PRELOAD:+:$LD_PRELOAD}" exec "$@"
