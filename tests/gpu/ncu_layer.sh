#!/usr/bin/env bash
# ncu of our layer's kernels at a few shapes (GPU machine; build-gpu/libtfno_capi.so, torch):
#   OUT=dir bash tests/gpu/ncu_layer.sh "B C SxS m [dtype] [path]" ...
# Per shape: every kernel of profile_one.py's two layer calls, each timed alone, with the speed-of-light,
# launch, occupancy, warp-state and memory sections: $OUT/ncu_<shape>.txt, and one summary line per kernel
# (duration, grid, registers, achieved occupancy, memory / DRAM throughput) in $OUT/ncu_summary.txt.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/ncu}
mkdir -p "$OUT"
: > "$OUT/ncu_summary.txt"
for spec in "$@"; do
  tag=$(echo "$spec" | tr ' ' '_')
  ncu --clock-control none -k regex:"spectral|fft|dft|sumPartials|skip" --section SpeedOfLight --section LaunchStats --section Occupancy \
      --section WarpStateStats --section MemoryWorkloadAnalysis python3 tests/gpu/profile_one.py $spec \
      > "$OUT/ncu_$tag.txt" 2>&1
  echo "== $spec" >> "$OUT/ncu_summary.txt"
  python3 - "$OUT/ncu_$tag.txt" >> "$OUT/ncu_summary.txt" <<'PY'
import re, sys
txt = open(sys.argv[1]).read()
blocks = re.split(r"\n  (?=\S.*\(\d+, \d+, \d+\)x\(\d+, \d+, \d+\))", txt)
for b in blocks[1:]:
    name = b.split("(")[0].strip()
    grid = re.search(r"\((\d+, \d+, \d+)\)x\((\d+, \d+, \d+)\)", b)
    def m(key):
        r = re.search(r"\s" + re.escape(key) + r"\s+(\S+)\s+([\d.,]+)", b)
        return (r.group(2) + (" " + r.group(1) if r.group(1) not in ("%", "register/thread") else "")) if r else "?"
    print(f"  {m('Duration'):>12} {name[:70]:70s} grid {grid.group(1) if grid else '?'} x {grid.group(2) if grid else '?'}"
          f" regs {m('Registers Per Thread')} occ {m('Achieved Occupancy')}% mem {m('Memory Throughput')}% dram {m('DRAM Throughput')}%")
PY
done
cat "$OUT/ncu_summary.txt"
