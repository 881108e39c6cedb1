"""NumPy emulation of the index logic of plugins/cuda/skip_gemm_tc.cuh (skipGemmTcKernel), thread by
thread and lane by lane, against an einsum: the global loads (vector and scalar, zero-filled past Cin,
Cout and P), the padded shared-memory tiles, the mma.m16n8k8 fragment layouts of mma_tf32.cuh (each
fragment element must come from a staged, finite tile element and every matrix element must be
loaded), the C tile staged back through shared memory, and every output written exactly once. Also
checks that the fragment loads and C stores are bank-conflict free. The products are exact float64
here (the 3xTF32 rounding is the GPU check's job: tests/gpu/skip_tc_check.sh).
CPU only (no GPU needed), both tiles (128 and 32 points), ~5 s:  python3 tests/gpu/emulate_skip_gemm.py   (exit code 1 on a mismatch)
Keep it in step with skip_gemm_tc.cuh when the kernel's indexing changes.
"""
import itertools
import sys

import numpy as np

kTh, kM = 256, 64


def set_tile(np_):
    """The kernel's Tile<NP> constants (NP = 128 or 32 points per block) as module globals."""
    global kN, kK, kWS, kXS, kQPR, kRPP, kXQ, kWE, kCQ, SM, kWarpsP, kMI, kNI
    kN, kK = np_, (16 if np_ == 128 else 32)
    kWarpsP = 4 if np_ == 128 else 2
    kMI, kNI = kM * kWarpsP // 8 // 16, np_ // kWarpsP // 8
    kWS, kXS = kK + 4, kN + 8
    kQPR = kN // 4; kRPP = kTh // kQPR; kXQ = kK // kRPP; kWE = kM * kK // kTh; kCQ = kM // kRPP
    SM = max(kM * kWS + kK * kXS, kM * kXS)


def warp_tile(warp):
    return (warp // kWarpsP) * 16 * kMI, (warp % kWarpsP) * 8 * kNI


set_tile(128)

def thread_map(tid, vec):
    """(qRow, qCol, jRow, jCol): element (q, j) of a thread's x / C tile share is at row
    qRow + kRPP q + jRow j, column qCol + jCol j."""
    return (tid // kQPR, 4 * (tid % kQPR), 0, 1) if vec else (tid // kN, tid % kN, kTh // kN, 0)


def run(x, w, vec):
    N, Cin, P = x.shape; Cout = w.shape[0]
    y = np.full((N, Cout, P), np.nan)
    for n, by, bx in itertools.product(range(N), range((Cout + kM - 1) // kM), range((P + kN - 1) // kN)):
        p0, o0 = bx * kN, by * kM
        smem = np.full(SM, np.nan); Ws = 0; Xs = kM * kWS
        acc = np.zeros((kTh, kMI, kNI, 4))
        def load(c0):
            xr = np.zeros((kTh, kXQ, 4)); wr = np.zeros((kTh, kWE))
            for tid in range(kTh):
                qRow, qCol, jRow, jCol = thread_map(tid, vec); qp = p0 + qCol
                for q in range(kXQ):
                    for j in range(4):
                        c = c0 + qRow + kRPP * q + jRow * j
                        ok = c < Cin and qp < P
                        assert not (ok and vec and qp + 3 >= P), "vector access past P"
                        xr[tid, q, j] = x[n, c, qp + jCol * j] if ok else 0
                wo0, wc0 = o0 + tid // kK, tid % kK
                for r in range(kWE):
                    ok = c0 + wc0 < Cin and wo0 + (kTh // kK) * r < Cout
                    wr[tid, r] = w[wo0 + (kTh // kK) * r, c0 + wc0] if ok else 0
            return xr, wr
        xr, wr = load(0)
        for c0 in range(0, Cin, kK):
            for tid in range(kTh):
                qRow, qCol, jRow, jCol = thread_map(tid, vec)
                for q in range(kXQ):
                    for j in range(4):
                        smem[Xs + (qRow + kRPP * q + jRow * j) * kXS + qCol + jCol * j] = xr[tid, q, j]
                for r in range(kWE):
                    e = tid + kTh * r
                    smem[Ws + (e // kK) * kWS + e % kK] = wr[tid, r]
            if c0 + kK < Cin: xr, wr = load(c0 + kK)
            for kk in range(0, kK, 8):
                for warp in range(8):
                    wo, wp = warp_tile(warp)
                    A = np.zeros((kMI, 16, 8)); B = np.zeros((kNI, 8, 8)); seenA = np.zeros((kMI, 16, 8), bool); seenB = np.zeros((kNI, 8, 8), bool)
                    for lane in range(32):
                        g, t = lane // 4, lane % 4
                        for mi in range(kMI):
                            for r in range(4):
                                v = smem[Ws + (wo + 16 * mi + g + 8 * (r & 1)) * kWS + kk + t + 4 * (r >> 1)]
                                A[mi, g + 8 * (r & 1), t + 4 * (r >> 1)] = v; seenA[mi, g + 8 * (r & 1), t + 4 * (r >> 1)] = True
                        for ni in range(kNI):
                            for r in range(2):
                                v = smem[Xs + (kk + t + 4 * r) * kXS + wp + 8 * ni + g]
                                B[ni, t + 4 * r, g] = v; seenB[ni, t + 4 * r, g] = True
                    assert seenA.all() and seenB.all()
                    assert not np.isnan(A).any() and not np.isnan(B).any()
                    for lane in range(32):
                        g, t = lane // 4, lane % 4
                        for mi in range(kMI):
                            for ni in range(kNI):
                                D = A[mi] @ B[ni]
                                for r in range(4):
                                    acc[warp * 32 + lane, mi, ni, r] += D[g + 8 * (r >> 1), 2 * t + (r & 1)]
        smem[:] = np.nan
        for tid in range(kTh):
            warp, lane = tid // 32, tid % 32; g, t = lane // 4, lane % 4
            wo, wp = warp_tile(warp)
            for mi in range(kMI):
                for ni in range(kNI):
                    for h in range(2):
                        a = (wo + 16 * mi + g + 8 * h) * kXS + wp + 8 * ni + 2 * t
                        smem[a] = acc[tid, mi, ni, 2 * h]; smem[a + 1] = acc[tid, mi, ni, 2 * h + 1]
        for tid in range(kTh):
            qRow, qCol, jRow, jCol = thread_map(tid, vec); qp = p0 + qCol
            for q in range(kCQ):
                for j in range(4):
                    row = qRow + kRPP * q + jRow * j; o = o0 + row
                    if o < Cout and qp < P:
                        assert np.isnan(y[n, o, qp + jCol * j]), "output written twice"
                        y[n, o, qp + jCol * j] = smem[row * kXS + qCol + jCol * j]
    return y

def banks():
    # A / B fragment loads and C float2 stores: distinct banks per instruction
    for r in range(4):
        b = [((g + 8 * (r & 1)) * kWS + t + 4 * (r >> 1)) % 32 for g in range(8) for t in range(4)]
        assert len(set(b)) == 32, ("A", r)
    for r in range(2):
        b = [((t + 4 * r) * kXS + g) % 32 for g in range(8) for t in range(4)]
        assert len(set(b)) == 32, ("B", r)
    for half in range(2):
        b = []
        for lane in range(16 * half, 16 * half + 16):
            g, t = lane // 4, lane % 4
            b += [(g * kXS + 2 * t) % 32, (g * kXS + 2 * t + 1) % 32]
        assert len(set(b)) == 32, ("C", half)
    for vec in (True, False):  # each tile element belongs to exactly one (thread, q, j)
        for rows, nq in ((kK, kXQ), (kM, kCQ)):
            seen = np.zeros((rows, kN), int)
            for tid in range(kTh):
                qRow, qCol, jRow, jCol = thread_map(tid, vec)
                for q in range(nq):
                    for j in range(4):
                        seen[qRow + kRPP * q + jRow * j, qCol + jCol * j] += 1
            assert (seen == 1).all(), ("tile cover", vec, rows)
    print("banks ok, tile cover ok")

def main():
    bad = 0
    for tile in (128, 32):
        set_tile(tile)
        print(f"-- {tile}-point tiles")
        bad += check()
    return 1 if bad else 0


def check():
    banks()
    rng = np.random.default_rng(1)
    bad = 0
    # (N, Cin, Cout, P, vec): channel counts across the 16-channel steps and 64-channel tiles, P across
    # the 128-point tiles, scalar (any P) and vector (P % 4 == 0) paths
    for (N, Cin, Cout, P, vec) in [(1, 3, 3, 37, False), (2, 17, 5, 130, False), (1, 33, 70, 256, True),
                                   (1, 96, 96, 140, True), (1, 16, 64, 128, True), (1, 5, 3, 132, False)]:
        x = rng.standard_normal((N, Cin, P))
        w = rng.standard_normal((Cout, Cin))
        y = run(x, w, vec)
        err = float(np.abs(y - np.einsum("oc,ncp->nop", w, x)).max())
        ok = not np.isnan(y).any() and err < 1e-12
        bad += not ok
        print(f"{'ok  ' if ok else 'FAIL'} N{N} C{Cin}->{Cout} P{P} vec={vec} max abs err {err:.1e}")
    return bad


if __name__ == "__main__":
    sys.exit(main())
