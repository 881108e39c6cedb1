"""Rounds of bench/fused_layer_bench.py (CPU), alternating libraries round by round, in one table.

On a shared machine one run says little: this runs `--rounds` rounds, each library once per round
(TURBOFNO_LIB_DIR), and writes rounds.md (chain / fused per shape and round, then the median over the
rounds) plus each round's JSON. `--avx2-host` runs every round through bench/avx2_host/run.sh: the
whole process (our kernels, ONNX Runtime's MLAS, numpy) sees a CPU without AVX-512.

    python bench/fused_layer_rounds.py --lib before=/tmp/old/build --lib after=build --rounds 5 \\
        --avx2-host --out bench/results/fused-layer-cpu-DATE-COMMIT-avx2host-t1
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def parse_lib(text: str) -> tuple[str, Path]:
    label, sep, path = text.partition("=")
    if not sep or not label or not path:
        raise argparse.ArgumentTypeError(f"--lib wants LABEL=DIR, got {text!r}")
    return label, Path(path)


def run_round(label: str, lib: Path, args: argparse.Namespace, out: Path) -> dict:
    cmd = [sys.executable, str(ROOT / "bench" / "fused_layer_bench.py"), "--device", "cpu", "--threads",
           str(args.threads), "--out", str(out)]
    if args.reps:
        cmd += ["--reps", str(args.reps)]
    if args.avx2_host:
        cmd = ["bash", str(ROOT / "bench" / "avx2_host" / "run.sh")] + cmd
    env = dict(os.environ, TURBOFNO_LIB_DIR=str(lib), CPUID_AVX2_QUIET="1")
    subprocess.run(cmd, check=True, env=env, stdout=subprocess.DEVNULL)
    data = json.loads((out / "fused_layer.json").read_text())
    data["meta"]["library"] = label
    return data


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lib", type=parse_lib, action="append", required=True,
                        help="LABEL=DIR: a build folder holding libturbofno_ort.so (repeatable)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--reps", type=int, default=None)
    parser.add_argument("--avx2-host", action="store_true", help="hide AVX-512 from every round's process")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)

    rounds = []
    for r in range(args.rounds):
        for label, lib in args.lib:
            start = time.strftime("%H:%M:%S", time.gmtime())
            data = run_round(label, lib, args, args.out / f"round{r + 1}-{label}")
            data["meta"]["started"] = start
            rounds.append(data)
            ratios = " ".join(f"{row['speedup']:.2f}x" for row in data["rows"])
            print(f"round {r + 1}/{args.rounds} {label:>10}: chain / fused {ratios}", flush=True)

    shapes = [row["shape"] for row in rounds[0]["rows"]]
    meta = rounds[0]["meta"]
    lines = [f"# Fused layer vs the unfused chain, {args.rounds} rounds, threads {args.threads}", "",
             f"{meta['machine']}; onnxruntime {meta['onnxruntime']}; "
             + ("**run as an AVX2-only host** (bench/avx2_host: AVX-512 hidden from the whole process, ORT's MLAS "
                "included)" if args.avx2_host else "the CPU's own instruction sets") + ".",
             "Libraries: " + ", ".join(f"{label} = `{lib}`" for label, lib in args.lib)
             + ". chain / fused of the medians (of the minimums); the fused ms is the median.", "",
             "| time (UTC) | library | " + " | ".join(shapes) + " |",
             "|---|---|" + "---:|" * len(shapes)]
    for data in rounds:
        cells = [f"{row['speedup']:.2f}x ({row['speedup_min']:.2f}x), {row['fused_ms']:.3f} ms" for row in data["rows"]]
        lines.append(f"| {data['meta']['started']} | {data['meta']['library']} | " + " | ".join(cells) + " |")
    lines += ["", "Median over the rounds (chain / fused; fused ms):", "", "| library | " + " | ".join(shapes) + " |",
              "|---|" + "---:|" * len(shapes)]
    for label, _ in args.lib:
        mine = [d for d in rounds if d["meta"]["library"] == label]
        cells = []
        for i in range(len(shapes)):
            ratio = statistics.median(d["rows"][i]["speedup"] for d in mine)
            ms = statistics.median(d["rows"][i]["fused_ms"] for d in mine)
            low = min(d["rows"][i]["speedup"] for d in mine)
            cells.append(f"{ratio:.2f}x (lowest {low:.2f}x), {ms:.3f} ms")
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    (args.out / "rounds.md").write_text("\n".join(lines) + "\n")
    print(f"wrote {args.out / 'rounds.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
