"""NumPy emulation of the index logic of plugins/cuda/pointwise_mlp_tc.cuh (pointwiseMlpTcKernel), block
by block, thread by thread and lane by lane, against a float64 reference: the global loads (vector and
scalar paths, zero past Cin, Ch, Cout and P), the padded shared-memory tiles (filled with NaN first, so
that any read of an element that was not staged poisons the result), the mma.m16n8k8 fragment layouts
of mma_tf32.cuh (fragments gathered from the lanes into the 16 x 8 / 8 x 8 tiles and the product
scattered back), the warp-uniform skips (warp tiles past Ch / Cout, K halves past Cin), the hidden
chunks, the C tile staged through shared memory, the epilogue (b2, g r, act; in place y == r), and
every output written exactly once. Also checks the fragment reads / stores for bank conflicts. The
products are exact float64 here (the 3xTF32 rounding is the GPU test's job: tests/cpp/test_cuda_mlp.cu).
CPU only:  python3 tests/gpu/emulate_pointwise_mlp_tc.py   (exit code 1 on a mismatch)
Keep it in step with pointwise_mlp_tc.cuh when the kernel's indexing changes.
"""
import itertools
import sys

import numpy as np

kTh, kTP, kM, kK = 256, 64, 64, 16
kWS, kPS, kW2S = kK + 4, kTP + 8, kM + 4
kXsOff = kM * kWS; kHsOff = kXsOff + kK * kPS; kW2Off = kHsOff + kM * kPS; kSmem = kW2Off + kM * kW2S
kQPR = kTP // 4; kRPP = kTh // kQPR; kW1E = kM * kK // kTh; kW2E = kM * kM // kTh; kCQ = kM // kRPP

LANE = np.arange(32); G = LANE // 4; T = LANE % 4


def hact(v):
    return np.tanh(v) + 0.25 * v  # hact(0) = 0 is not assumed by the kernel: rows past Ch are set to 0


def act(v):
    return np.maximum(v, 0.1 * v)


def mma(a, b):
    """a: [32][4], b: [32][2] lane fragments -> d: [32][4] (mma_tf32.cuh layouts)."""
    A = np.full((16, 8), np.nan); B = np.full((8, 8), np.nan)
    for r in range(4):
        A[G + 8 * (r & 1), T + 4 * (r >> 1)] = a[:, r]
    for r in range(2):
        B[T + 4 * r, G] = b[:, r]
    assert not np.isnan(A).any() and not np.isnan(B).any()
    D = A @ B
    return np.stack([D[G + 8 * (r >> 1), 2 * T + (r & 1)] for r in range(4)], axis=1)


def run(x, w1, b1, w2, b2, r, g, y, vec):
    N, cin, P = x.shape; ch = w1.shape[0]; cout = w2.shape[0]
    tilesP = (P + kTP - 1) // kTP; coutTiles = (cout + kM - 1) // kM
    writes = np.zeros(y.shape, dtype=int)
    for blk in range(N * tilesP * coutTiles):
        ct = blk % coutTiles; bb = blk // coutTiles; tile = bb % tilesP; n = bb // tilesP
        o0, p0 = ct * kM, tile * kTP
        sm = np.full(kSmem, np.nan)
        acc = np.zeros((8, 2, 2, 32, 4))  # [warp][mi][ni][lane][r]
        tids = np.arange(kTh)
        qRow = tids // kQPR if vec else tids // kTP
        qCol = 4 * (tids % kQPR) if vec else tids % kTP
        jRow = 0 if vec else kTh // kTP
        qp = p0 + qCol
        wr0, wc0 = tids // kK, tids % kK

        def load(h0, c0):
            xr = np.zeros((kTh, 4)); wr = np.zeros((kTh, kW1E))
            for tid in range(kTh):
                for j in range(4):
                    if vec:
                        c, p = c0 + qRow[tid], qp[tid] + j
                        ok = c < cin and qp[tid] < P
                    else:
                        c, p = c0 + qRow[tid] + jRow * j, qp[tid]
                        ok = c < cin and p < P
                    xr[tid, j] = x[n, c, p] if ok else 0.0
                for rr in range(kW1E):
                    jj, c = h0 + wr0[tid] + (kTh // kK) * rr, c0 + wc0[tid]
                    wr[tid, rr] = w1[jj, c] if (jj < ch and c < cin) else 0.0
            return xr, wr

        def store(xr, wr):
            for tid in range(kTh):
                for j in range(4):
                    if vec:
                        sm[kXsOff + qRow[tid] * kPS + qCol[tid] + j] = xr[tid, j]
                    else:
                        sm[kXsOff + (qRow[tid] + jRow * j) * kPS + qCol[tid]] = xr[tid, j]
                for rr in range(kW1E):
                    sm[(wr0[tid] + (kTh // kK) * rr) * kWS + wc0[tid]] = wr[tid, rr]

        for h0 in range(0, ch, kM):
            hacc = np.zeros((8, 2, 2, 32, 4))
            nxt = load(h0, 0)
            for c0 in range(0, cin, kK):
                store(*nxt)
                if c0 + kK < cin:
                    nxt = load(h0, c0 + kK)
                for warp in range(8):
                    wo, wp = (warp >> 2) * 32, (warp & 3) * 16
                    if not h0 + wo < ch:
                        continue
                    for kk in (0, 8):
                        if c0 + kk >= cin:
                            break
                        af = [np.stack([sm[(wo + 16 * mi + G + 8 * (rr & 1)) * kWS + kk + T + 4 * (rr >> 1)] for rr in range(4)], 1)
                              for mi in range(2)]
                        for ni in range(2):
                            bf = np.stack([sm[kXsOff + (kk + T + 4 * rr) * kPS + wp + 8 * ni + G] for rr in range(2)], 1)
                            for mi in range(2):
                                if h0 + wo + 16 * mi >= ch:
                                    continue
                                hacc[warp, mi, ni] += mma(af[mi], bf)
            for warp in range(8):
                wo, wp = (warp >> 2) * 32, (warp & 3) * 16
                for mi, hh in itertools.product(range(2), range(2)):
                    row = wo + 16 * mi + G + 8 * hh; jj = h0 + row; inr = jj < ch
                    bias = np.where(inr, b1[np.minimum(jj, ch - 1)], 0.0) if b1 is not None else 0.0
                    for ni in range(2):
                        for e in range(2):
                            v = np.where(inr, hact(hacc[warp, mi, ni, :, 2 * hh + e] + bias), 0.0)
                            sm[kHsOff + row * kPS + wp + 8 * ni + 2 * T + e] = v
            hc = min(kM, ch - h0); hc8 = (hc + 7) & ~7
            for tid in range(kTh):
                for rr in range(kW2E):
                    e = tid + kTh * rr; o, jj = e // kM, e % kM
                    sm[kW2Off + o * kW2S + jj] = w2[o0 + o, h0 + jj] if (o0 + o < cout and jj < hc) else 0.0
            for warp in range(8):
                wo, wp = (warp >> 2) * 32, (warp & 3) * 16
                if not o0 + wo < cout:
                    continue
                for k in range(0, hc8, 8):
                    af = [np.stack([sm[kW2Off + (wo + 16 * mi + G + 8 * (rr & 1)) * kW2S + k + T + 4 * (rr >> 1)] for rr in range(4)], 1)
                          for mi in range(2)]
                    for ni in range(2):
                        bf = np.stack([sm[kHsOff + (k + T + 4 * rr) * kPS + wp + 8 * ni + G] for rr in range(2)], 1)
                        for mi in range(2):
                            if o0 + wo + 16 * mi >= cout:
                                continue
                            acc[warp, mi, ni] += mma(af[mi], bf)
        # epilogue
        for warp in range(8):
            wo, wp = (warp >> 2) * 32, (warp & 3) * 16
            for mi, ni, hh in itertools.product(range(2), range(2), range(2)):
                for e in range(2):
                    sm[kHsOff + (wo + 16 * mi + G + 8 * hh) * kPS + wp + 8 * ni + 2 * T + e] = acc[warp, mi, ni, :, 2 * hh + e]
        for tid in range(kTh):
            for q in range(kCQ):
                for j in range(4):
                    if vec:
                        row = qRow[tid] + kRPP * q; col = qCol[tid] + j; p = qp[tid] + j
                        if o0 + row >= cout or qp[tid] >= P:
                            continue
                    else:
                        row = qRow[tid] + jRow * j + kRPP * q; col = qCol[tid]; p = qp[tid]
                        if o0 + row >= cout or p >= P:
                            continue
                    o = o0 + row
                    v = sm[kHsOff + row * kPS + col] + (b2[o] if b2 is not None else 0.0)
                    if r is not None:
                        v = (g[o] if g is not None else 1.0) * r[n, o, p] + v
                    y[n, o, p] = act(v)
                    writes[n, o, p] += 1
    return writes


def reference(x, w1, b1, w2, b2, r, g):
    h = np.einsum('ji,nis->njs', w1, x)
    if b1 is not None:
        h += b1[None, :, None]
    h = hact(h)
    y = np.einsum('oj,njs->nos', w2, h)
    if b2 is not None:
        y += b2[None, :, None]
    if r is not None:
        y += (g if g is not None else np.ones(w2.shape[0]))[None, :, None] * r
    return act(y)


def banks():
    """Bank-conflict check of the fragment reads (one wavefront: 32 distinct banks) and the C / H
    float2 stores (each half warp distinct banks)."""
    ok = True
    for wo, kk in itertools.product((0, 32), (0, 8)):
        for mi, rr in itertools.product(range(2), range(4)):
            for stride in (kWS, kW2S):
                b = ((wo + 16 * mi + G + 8 * (rr & 1)) * stride + kk + T + 4 * (rr >> 1)) % 32
                ok &= len(set(b)) == 32
    for wp, kk, ni, rr in itertools.product((0, 16, 32, 48), (0, 8), range(2), range(2)):
        b = ((kk + T + 4 * rr) * kPS + wp + 8 * ni + G) % 32
        ok &= len(set(b)) == 32
    for wo, wp, mi, ni, hh in itertools.product((0, 32), (0, 16, 32, 48), range(2), range(2), range(2)):
        addr = (wo + 16 * mi + G + 8 * hh) * kPS + wp + 8 * ni + 2 * T
        for half in (LANE < 16, LANE >= 16):
            b = np.concatenate([addr[half] % 32, (addr[half] + 1) % 32])
            ok &= len(set(b)) == 32
    return ok


def main():
    rng = np.random.default_rng(1)
    fails = 0
    cases = [  # N, Cin, Ch, Cout, P, vec, b1, b2, r, g, in place
        (1, 3, 40, 9, 70, False, True, True, True, True, False),
        (2, 5, 7, 3, 64, True, True, False, True, False, True),
        (1, 17, 70, 65, 68, True, True, True, True, True, False),
        (1, 33, 130, 20, 37, False, False, True, False, False, False),
        (1, 8, 64, 64, 128, True, True, True, True, True, True),
        (1, 64, 32, 1, 60, True, True, True, False, False, False),
    ]
    for (N, cin, ch, cout, P, vec, hb1, hb2, hr, hg, inplace) in cases:
        x = rng.standard_normal((N, cin, P)); w1 = rng.standard_normal((ch, cin)) / np.sqrt(cin)
        w2 = rng.standard_normal((cout, ch)) / np.sqrt(ch)
        b1 = rng.standard_normal(ch) if hb1 else None; b2 = rng.standard_normal(cout) if hb2 else None
        r = rng.standard_normal((N, cout, P)) if hr else None; g = rng.standard_normal(cout) if hg else None
        ref = reference(x, w1, b1, w2, b2, r, g)
        y = r.copy() if inplace else np.full((N, cout, P), np.nan)
        writes = run(x, w1, b1, w2, b2, r if not inplace else y, g, y, vec)
        err = np.max(np.abs(y - ref)) if np.isfinite(y).all() else np.inf
        ok = err < 1e-9 and (writes == 1).all()
        fails += not ok
        print(f"{'ok  ' if ok else 'FAIL'} N{N} {cin}/{ch}/{cout} P{P} vec={vec} in_place={inplace}: max err {err:.1e}, "
              f"writes min {writes.min()} max {writes.max()}")
    bk = banks()
    print(f"{'ok  ' if bk else 'FAIL'} bank conflicts: {'none' if bk else 'found'}")
    fails += not bk
    print("PASSED" if fails == 0 else f"FAILED: {fails}")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
