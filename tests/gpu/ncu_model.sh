#!/usr/bin/env bash
# Per-kernel execution time of one exported model's forward in ORT's CUDA EP, each kernel timed alone by
# ncu (no launch gaps, no programmatic-dependent-launch overlap), against the model's CUDA-graph replay
# (kernel_profile_model.py): the difference is what the launches and the gaps between kernels cost.
#   bash tests/gpu/ncu_model.sh MODEL BATCH [RUNS]   (GPU machine; ncu, onnxruntime-gpu on PYTHONPATH)
set -euo pipefail
cd "$(dirname "$0")/../.."
MODEL=$1 BATCH=$2 RUNS=${3:-3}
csv=$(mktemp)
ncu --clock-control none --kernel-name-base demangled -k regex:'turbofno|onnxruntime|FillFunctor' --metrics gpu__time_duration.sum --csv \
  python3 tests/gpu/ort_run_model.py "$MODEL" "$BATCH" --runs "$RUNS" > "$csv" 2>/dev/null || true
python3 - "$csv" "$MODEL" "$BATCH" <<'PY'
import csv, sys, collections
rows = [r for r in csv.reader(l for l in open(sys.argv[1]) if l.startswith('"'))]
hdr, rows = rows[0], rows[1:]
ni, vi, ui = (hdr.index(c) for c in ("Kernel Name", "Metric Value", "Metric Unit"))
us = {"nsecond": 1e-3, "ns": 1e-3, "usecond": 1, "us": 1, "msecond": 1e3, "ms": 1e3}
ks = [(r[ni], float(r[vi].replace(",", "")) * us[r[ui]]) for r in rows]
marks = [i for i, (n, _) in enumerate(ks) if "FillFunctor" in n]
last = ks[marks[-1] + 1:] if marks else ks  # the kernels after the last marker: the last forward
print(f"== {sys.argv[2]} batch {sys.argv[3]}: {len(ks)} kernels profiled, the last forward's {len(last)}: "
      f"{sum(t for _, t in last):.1f} us of execution")
for n, t in last:
    print(f"  {t:7.2f} us  {n[:110]}")
agg = collections.defaultdict(lambda: [0, 0.0])
for n, t in last:
    a = agg[n.split("(")[0]]
    a[0] += 1
    a[1] += t
for n, (c, t) in sorted(agg.items(), key=lambda kv: -kv[1][1]):
    print(f"  sum {t:7.1f} us  x{c}  {n[:100]}")
PY
rm -f "$csv"
