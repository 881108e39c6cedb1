"""The ORT CPU op runs on the session's intra-op pool (KernelContext_ParallelFor), not on a pool of
its own: with intra_op_num_threads=1 it starts no thread; results are bitwise equal for every
intra_op_num_threads; several sessions run at once with equal results. Throughput of concurrent
sessions: bench/ort_cpu_sessions.py (bench/results/cpu-sessions-*.md)."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest

pytest.importorskip("onnxruntime")
pytest.importorskip("onnx")

from ortutil import session  # noqa: E402
from turbofno.reference import make_model, random_case  # noqa: E402

LOW, HIGH, SPATIAL = [5, 6], [4, 0], (24, 20)

_CHILD = textwrap.dedent("""
    import os, sys
    import numpy as np
    sys.path.insert(0, sys.argv[2])
    from ortutil import session
    from turbofno.reference import make_model, random_case

    def threads():
        return len(os.listdir("/proc/self/task"))

    x, w, b = random_case(np.random.default_rng(int(sys.argv[3])), (24, 20), [5, 6], [4, 0], batch=4, cin=8, cout=8)
    sess = session(make_model(w, b, modes_low=[5, 6], modes_high=[4, 0]), sys.argv[1], threads=1)
    before = threads()
    for _ in range(3):
        sess.run(None, {"x": x})
    print(before, threads())
""")


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="needs Linux /proc/self/task to count threads")
def test_single_thread_session_starts_no_thread(ort_lib, test_seed):
    """intra_op_num_threads=1: the op runs on the calling thread. TURBOFNO_NUM_THREADS=4 in the child,
    so a kernel that used its own pool would start 3 threads here."""
    env = dict(os.environ, TURBOFNO_NUM_THREADS="4")
    here = os.path.dirname(os.path.abspath(__file__))
    out = subprocess.run([sys.executable, "-c", _CHILD, ort_lib, here, str(test_seed)], env=env,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    before, after = (int(v) for v in out.stdout.split()[-2:])
    assert after == before, f"the op started {after - before} thread(s) in a single-threaded session"


def test_results_equal_for_every_intra_op_thread_count(ort_lib, rng):
    x, w, b = random_case(rng, SPATIAL, LOW, HIGH, batch=5, cin=6, cout=7)
    model = make_model(w, b, modes_low=LOW, modes_high=HIGH)
    ys = [session(model, ort_lib, threads=t).run(None, {"x": x})[0] for t in (1, 2, 3)]
    for y in ys[1:]:
        assert np.array_equal(y, ys[0])


def test_concurrent_sessions_equal_sequential(ort_lib, rng):
    """Two sessions x 3 threads each, mixed shapes (dynamic N and S): every result bitwise equal to the
    same run made alone."""
    x0, w, b = random_case(rng, SPATIAL, LOW, HIGH, batch=2, cin=6, cout=7)
    model = make_model(w, b, modes_low=LOW, modes_high=HIGH)
    sessions = [session(model, ort_lib, threads=t) for t in (1, 2)]
    shapes = [(1, 6, 24, 20), (3, 6, 16, 14), (2, 6, 30, 11), (4, 6, 12, 12)]
    inputs = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    expected = [sessions[0].run(None, {"x": x})[0] for x in inputs]
    failures = []

    def work(sess, offset):
        for k in range(8):
            i = (k + offset) % len(inputs)
            y = sess.run(None, {"x": inputs[i]})[0]
            if not np.array_equal(y, expected[i]):
                failures.append((offset, i))

    threads = [threading.Thread(target=work, args=(sessions[t % 2], t)) for t in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures, f"results differ from the sequential run: {failures}"
