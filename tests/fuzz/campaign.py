"""The fuzz campaign (nightly-style, bounded time): the ORT op, the TensorRT plugin's creator fields
and serialized state (tests/fuzz/trt_fuzz.cpp, through the harness's TensorRT stand-ins), and the
exporter. Cases run in child processes, so a crash or hang is caught and counted with the case that
caused it; the campaign then continues with the next case.

    python tests/fuzz/campaign.py --ort 12000 --trt 12000 --export 60 --minutes 40 --log tests/fuzz/logs/run.md
    python tests/fuzz/campaign.py --ort 300 --trt 0 --export 2          # a small slice
    python tests/fuzz/campaign.py --ort 0 --trt 0 --trt-mlp 3000 --export 0   # the PointwiseMLP plugin only

Outcomes per case: ok / rejected (clean), WRONG (a wrong number, or a valid input refused),
ACCEPTED (an invalid input accepted), UNCLEAN (an unexpected exception type in the exporter),
CRASH (the process died), HANG (no answer within --case-timeout). Exit status 1 if any case is one
of the upper-case outcomes or the time ran out before every case ran.
Seed: --seed, else TURBOFNO_TEST_SEED, else 20261129. Case i of a part is reproducible on its own:
    python tests/fuzz/campaign.py --only ort:1234 --seed S
"""
from __future__ import annotations

import argparse
import collections
import os
import select
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
BAD = ("WRONG", "ACCEPTED", "UNCLEAN", "CRASH", "HANG")


def _worker(part: str, seed: int, start: int, count: int, lib: str) -> None:
    """Child process: runs cases [start, start + count) of `part`, one @@BEGIN / @@END line pair each."""
    sys.path.insert(0, HERE)
    if part == "ort":
        import fuzz_ort as mod

        def one(i):
            case = mod.make_case(seed, i)
            out, detail = mod.run_case(case, lib)
            return case.kind, out, detail if out in BAD else ""
    else:
        import fuzz_export as mod

        def one(i):
            case = mod.make_case(seed, i)
            out, detail = mod.run_case(case)
            return case[0], out, (detail + " | " + case[3]) if out in BAD else ""
    for i in range(start, start + count):
        print(f"@@BEGIN {i}", flush=True)
        kind, out, detail = one(i)
        print(f"@@END {i} {kind} {out} {detail}".rstrip(), flush=True)


def _command(part: str, seed: int, start: int, count: int, lib: str, trt_fuzz: str) -> list[str]:
    if part in ("trt", "trt-mlp"):
        op = ["--op", "PointwiseMLP"] if part == "trt-mlp" else []
        return [trt_fuzz, "--lib", lib, *op, "--seed", str(seed), "--start", str(start), "--count", str(count)]
    return [sys.executable, os.path.abspath(__file__), "--worker", part, "--seed", str(seed), "--start", str(start),
            "--count", str(count), "--lib", lib]


def run_part(part: str, first: int, total: int, seed: int, lib: str, trt_fuzz: str, deadline: float,
             case_timeout: float, chunk: int, log) -> tuple[collections.Counter, list[str], int]:
    """Runs cases first..total-1 of one part in child processes. Returns (counts, findings, next case)."""
    counts: collections.Counter = collections.Counter()
    findings: list[str] = []
    next_case = first
    while next_case < total and time.time() < deadline:
        count = min(chunk, total - next_case)
        proc = subprocess.Popen(_command(part, seed, next_case, count, lib, trt_fuzz), stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL, cwd=ROOT, text=True, bufsize=1)
        current, last_progress, buf = None, time.time(), ""
        while True:
            ready, _, _ = select.select([proc.stdout], [], [], 1.0)
            if ready:
                line = proc.stdout.readline()
                if not line:
                    break
                if line.startswith("@@BEGIN "):
                    current = int(line.split()[1])
                    last_progress = time.time()
                elif line.startswith("@@END "):
                    fields = line.rstrip("\n").split(" ", 4)
                    index, kind, outcome = int(fields[1]), fields[2], fields[3]
                    counts[(kind, outcome)] += 1
                    if outcome in BAD:
                        findings.append(f"{part}:{index} {kind} {outcome} {fields[4] if len(fields) > 4 else ''}")
                    current, next_case, last_progress = None, index + 1, time.time()
            elif current is not None and time.time() - last_progress > case_timeout:
                proc.kill()
                counts[(part, "HANG")] += 1
                findings.append(f"{part}:{current} HANG (no answer within {case_timeout:.0f} s)")
                next_case = current + 1
                current = None
                break
        proc.wait()
        if current is not None:  # died inside a case
            counts[(part, "CRASH")] += 1
            findings.append(f"{part}:{current} CRASH (exit status {proc.returncode})")
            next_case = current + 1
        elif proc.returncode not in (0, None) and next_case < total and not findings[-1:]:
            findings.append(f"{part}: driver exited with {proc.returncode} between cases")
            counts[(part, "CRASH")] += 1
            next_case += 1
        print(f"[{part}] {next_case}/{total} cases, {sum(counts.values())} outcomes", file=log, flush=True)
    return counts, findings, next_case


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--worker", choices=["ort", "export"], help=argparse.SUPPRESS)
    ap.add_argument("--start", type=int, default=0, help=argparse.SUPPRESS)
    ap.add_argument("--count", type=int, default=0, help=argparse.SUPPRESS)
    ap.add_argument("--ort", type=int, default=300, help="ORT op cases")
    ap.add_argument("--trt", type=int, default=0, help="TensorRT plugin cases (needs --trt-fuzz)")
    ap.add_argument("--trt-mlp", type=int, default=0, help="PointwiseMLP TensorRT plugin cases (needs --trt-fuzz)")
    ap.add_argument("--export", type=int, default=2, help="exporter cases (slow: ~1-3 s each)")
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--lib", default=None, help="libturbofno_ort.so (default: turbofno.get_library_path())")
    ap.add_argument("--trt-lib", default=None, help="libturbofno_trt.so (default: turbofno.get_library_path('trt'))")
    ap.add_argument("--trt-fuzz", default=os.path.join(ROOT, "build", "ci", "tests", "cpp", "trt_fuzz"))
    ap.add_argument("--minutes", type=float, default=30.0, help="time bound of the whole campaign")
    ap.add_argument("--case-timeout", type=float, default=120.0)
    ap.add_argument("--chunk", type=int, default=500, help="cases per child process")
    ap.add_argument("--only", default=None, help="PART:INDEX, one case (reproduce a finding)")
    ap.add_argument("--log", default=None, help="write the summary (Markdown) here too")
    args = ap.parse_args()

    seed = args.seed if args.seed is not None else int(os.environ.get("TURBOFNO_TEST_SEED", "20261129"))
    if args.worker:
        _worker(args.worker, seed, args.start, args.count, args.lib)
        return 0

    import turbofno

    ort_lib = args.lib or turbofno.get_library_path("ort")
    parts = {"ort": args.ort, "trt": args.trt, "trt-mlp": args.trt_mlp, "export": args.export}
    first = {p: 0 for p in parts}
    if args.only:
        part, index = args.only.split(":")
        parts = {part: int(index) + 1}
        first = {part: int(index)}
    trt_lib = None
    if parts.get("trt") or parts.get("trt-mlp"):
        trt_lib = args.trt_lib or turbofno.get_library_path("trt")
        if not os.path.exists(args.trt_fuzz):
            print(f"campaign: {args.trt_fuzz} not found (build tests/cpp with the TensorRT plugin)", file=sys.stderr)
            return 2
    start_time = time.time()
    deadline = start_time + args.minutes * 60
    results = {}
    for part, total in parts.items():
        if total <= 0:
            continue
        lib = trt_lib if part in ("trt", "trt-mlp") else ort_lib
        counts, findings, ran = run_part(part, first[part], total, seed, lib, args.trt_fuzz, deadline,
                                         args.case_timeout, args.chunk if part != "export" else 10, sys.stdout)
        results[part] = (total, ran, counts, findings)

    elapsed = time.time() - start_time
    lines = [f"# Fuzz campaign, seed {seed}", "",
             f"- date: {time.strftime('%Y-%m-%d %H:%M:%S %Z')}, commit {_commit()}, {elapsed:.0f} s "
             f"(bound {args.minutes:g} min)",
             f"- ORT library: {ort_lib}" + (f"; TensorRT library: {trt_lib} (driver {args.trt_fuzz})" if trt_lib else ""),
             "", "| part | cases asked | cases run | outcome counts (kind/outcome: n) |", "|---|---|---|---|"]
    bad = 0
    incomplete = False
    for part, (total, ran, counts, findings) in results.items():
        cells = ", ".join(f"{k}/{o}: {n}" for (k, o), n in sorted(counts.items()))
        lines.append(f"| {part} | {total - first[part]} | {ran - first[part]} | {cells} |")
        bad += sum(n for (_, o), n in counts.items() if o in BAD)
        incomplete |= ran < total
    total_run = sum(sum(c.values()) for _, _, c, _ in results.values())
    crashes = sum(n for _, _, c, _ in results.values() for (_, o), n in c.items() if o in ("CRASH", "HANG"))
    lines += ["", f"total cases: {total_run}; crashes/hangs: {crashes}; wrong/accepted/unclean: {bad - crashes}"]
    if incomplete:
        lines.append("INCOMPLETE: the time bound ran out before every case ran")
    findings = [f for *_, fs in results.values() for f in fs]
    if findings:
        lines += ["", "## Findings", ""] + [f"- {f}" for f in findings[:200]]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.log:
        os.makedirs(os.path.dirname(os.path.abspath(args.log)), exist_ok=True)
        with open(args.log, "w") as f:
            f.write(text)
    return 1 if bad or incomplete else 0


def _commit() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                              cwd=ROOT).stdout.strip() or "?"
    except OSError:
        return "?"


if __name__ == "__main__":
    sys.exit(main())
