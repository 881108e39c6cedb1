"""NumPy emulation of plugins/cuda/pointwise_mlp.cu (pointwiseMlpKernel and its launcher), block by block
with the 256 threads vectorised: the block -> (n, point tile, Cout tile) decode, the x staging (warp w
loads rows w, w+8, .., lane l points 4l..4l+3, zero past P and up to a multiple of 4 rows, vector
loads only where all 4 are in bounds), the resident / re-staged x tile across hidden chunks, the
W1 / W2 blocks ([j][k], [o][j], zero-padded), the 8 x 2 GEMM1 and OM x 4 GEMM2 register tiles (OM = 1:
GEMM2 from the GEMM1 registers, partials reduced through shared memory), the epilogue (b2 + g r,
act) and the stores. Shared memory starts as NaN for each block: every value a thread reads must have been written (stale rows
from an earlier chunk count as written: that is what the kernel sees too), and every output is
written exactly once. Arithmetic is float32 (multiply then add, not fused), so the rel-L2 vs a
float64 reference estimates the kernel's fp32 error against the test's 1e-6 tolerance.
CPU only (no GPU needed), ~1 min:  python3 tests/gpu/emulate_pointwise_mlp.py   (exit 1 on a mismatch)
Keep it in step with pointwise_mlp.cu when the kernel's indexing changes.
"""
import sys

import numpy as np
from scipy.special import erf

kThreads, kTP, kHC, kKX = 256, 128, 32, 64


def om_for(cout):  # the OM that Cout needs (chooseMlpRows may pick a smaller one; tests force each)
    return 1 if cout <= 8 else 2 if cout <= 16 else 4 if cout <= 32 else 8


def act_f64(v, a):
    v = np.asarray(v, dtype=np.float64)
    if a == 1: return 0.5 * v * (1 + erf(v / np.sqrt(2)))
    if a == 2: return 0.5 * v * (1 + np.tanh(np.sqrt(2 / np.pi) * (v + 0.044715 * v ** 3)))
    if a == 3: return np.maximum(v, 0)
    if a == 4: return v / (1 + np.exp(-v))
    if a == 5: return np.tanh(v)
    return v


def act_f32(v, a):
    return act_f64(v, a).astype(np.float32)


def run(x, w1, b1, w2, b2, r, g, hact, act, vec, OM):
    f = np.float32
    N, Cin, P = x.shape
    Ch, Cout = w1.shape[0], w2.shape[0]
    CT = 8 * OM
    kx = min((Cin + 3) // 4 * 4, kKX)
    tilesP, coutTiles = (P + kTP - 1) // kTP, (Cout + CT - 1) // CT
    y = np.full((N, Cout, P), np.nan, np.float32)
    writes = np.zeros((N, Cout, P), np.int64)
    tid = np.arange(kThreads); lane = tid & 31; warp = tid >> 5
    hr = 8 * (warp & 3); hp = 64 * (warp >> 2) + 2 * lane   # GEMM1 tile: hidden rows hr..hr+7, points hp, hp+1
    oXs, oW1s = 0, kx * kTP; oHs = oW1s + kx * kHC; oW2s = oHs + kHC * kTP
    nsmem = oW2s + kHC * CT
    resident = Cin <= kx
    xf = x.reshape(-1); rf = None if r is None else r.reshape(-1); yf = y.reshape(-1); wf = writes.reshape(-1)
    for b0 in range(N * tilesP * coutTiles):
        b = b0; ct = b % coutTiles; b //= coutTiles; tile = b % tilesP; n = b // tilesP
        o0 = ct * CT
        pt = tile * kTP + 4 * lane          # [256]
        left = P - pt
        smem = np.full(nsmem, np.nan, np.float32)
        acc = np.zeros((kThreads, OM, 4), np.float32)
        part = np.zeros((kThreads, CT, 2), np.float32)   # OM = 1: per-thread partial sums [o][2 points]
        xbase = n * Cin * P + pt
        for h0 in range(0, Ch, kHC):
            hacc = np.zeros((kThreads, 8, 2), np.float32)
            for k0 in range(0, Cin, kx):
                kc = min(kx, Cin - k0); kc4 = (kc + 3) & ~3
                if not resident or h0 == 0:
                    for q in range(kKX // 8):
                        row = warp + 8 * q
                        for t in range(kThreads):
                            if row[t] >= kc4: continue
                            base = xbase[t] + (k0 + row[t]) * P
                            if vec and left[t] >= 4 and row[t] < kc:
                                assert base % 4 == 0, "unaligned vector load"
                            v = [xf[base + i] if i < left[t] and row[t] < kc else 0.0 for i in range(4)]
                            smem[oXs + row[t] * kTP + 4 * lane[t]: oXs + row[t] * kTP + 4 * lane[t] + 4] = v
                e = np.arange(kc4 * kHC); k = e % kc4; j = e // kc4
                ok = (h0 + j < Ch) & (k < kc)
                assert len(np.unique(j * kx + k)) == e.size and (k < kx).all()
                smem[oW1s + j * kx + k] = np.where(ok, w1[np.minimum(h0 + j, Ch - 1), np.minimum(k0 + k, Cin - 1)], 0)
                for k in range(0, kc4, 4):
                    assert (oW1s + k) % 4 == 0 and kx % 4 == 0 and (oXs + hp).min() % 2 == 0, "unaligned vector read"
                    rows = hr[:, None] + np.arange(8)                                         # [256, i]
                    w = smem[oW1s + rows[:, :, None] * kx + k + np.arange(4)[None, None, :]]     # [256, i, kk]
                    for kk in range(4):
                        xv = smem[oXs + (k + kk) * kTP + hp[:, None] + np.arange(2)]           # [256, 2]
                        assert not np.isnan(w[:, :, kk]).any() and not np.isnan(xv).any(), "GEMM1 read an unwritten value"
                        hacc = (hacc + (w[:, :, kk, None] * xv[:, None, :]).astype(f)).astype(f)
            jrow = h0 + hr[:, None] + np.arange(8)                                  # [256, 8]
            bias = np.where(jrow < Ch, b1[np.minimum(jrow, Ch - 1)], 0).astype(f) if b1 is not None else np.zeros((kThreads, 8), f)
            hv = act_f32((hacc + bias[:, :, None]).astype(f), hact)
            hc = min(kHC, Ch - h0); hc4 = (hc + 3) & ~3
            if OM == 1:  # GEMM2 from registers: W2s[o][j] for all 32 j, each thread its own 8 rows
                e = np.arange(kHC * CT); j = e % kHC; o = e // kHC
                smem[oW2s + e] = np.where((o0 + o < Cout) & (j < hc), w2[np.minimum(o0 + o, Cout - 1), np.minimum(h0 + j, Ch - 1)], 0)
                for o in range(CT):
                    w = smem[oW2s + o * kHC + hr[:, None] + np.arange(8)]            # [256, 8]
                    assert not np.isnan(w).any() and (oW2s + o * kHC + hr).min() % 4 == 0
                    for i in range(8):
                        part[:, o, :] = (part[:, o, :] + (w[:, i, None] * hv[:, i, :]).astype(f)).astype(f)
                continue
            idx = oHs + (hr[:, None, None] + np.arange(8)[None, :, None]) * kTP + hp[:, None, None] + np.arange(2)[None, None, :]
            assert len(np.unique(idx)) == idx.size == kHC * kTP
            smem[idx] = hv
            e = np.arange(hc4 * CT); j = e % hc4; o = e // hc4
            assert len(np.unique(o * kHC + j)) == e.size
            smem[oW2s + o * kHC + j] = np.where((o0 + o < Cout) & (j < hc), w2[np.minimum(o0 + o, Cout - 1), np.minimum(h0 + j, Ch - 1)], 0)
            for j in range(0, hc4, 4):
                hv = smem[oHs + (j + np.arange(4))[:, None] * kTP + 4 * lane[:, None, None] + np.arange(4)]  # [256, jj, c]
                w = smem[oW2s + (OM * warp[:, None, None] + np.arange(OM)[:, None]) * kHC + j + np.arange(4)]  # [256, i, jj]
                assert not np.isnan(w).any() and not np.isnan(hv).any(), "GEMM2 read an unwritten value"
                for jj in range(4):
                    acc = (acc + (w[:, :, jj, None] * hv[:, jj, None, :]).astype(f)).astype(f)
        if OM == 1:  # the 4 row groups' partials through the Hs area, added in order q = 0..3
            red = np.full(4 * CT * kTP, np.nan, np.float32)
            idx = ((warp & 3)[:, None, None] * CT + np.arange(CT)[None, :, None]) * kTP + hp[:, None, None] + np.arange(2)[None, None, :]
            assert len(np.unique(idx)) == idx.size == red.size
            red[idx] = part
            for q in range(4):
                v = red[(q * CT + warp[:, None]) * kTP + 4 * lane[:, None] + np.arange(4)]   # [256, 4]
                assert not np.isnan(v).any()
                acc[:, 0, :] = (acc[:, 0, :] + v).astype(f)
        for t in range(kThreads):
            if left[t] <= 0: continue
            for i in range(OM):
                o = o0 + OM * warp[t] + i
                if o >= Cout: continue
                base = (n * Cout + o) * P + pt[t]
                if vec and left[t] >= 4:
                    assert base % 4 == 0, "unaligned vector store"
                cnt = min(4, left[t])
                v = acc[t, i, :cnt] + (f(b2[o]) if b2 is not None else f(0))
                if rf is not None:
                    v = v + (f(g[o]) if g is not None else f(1)) * rf[base: base + cnt]
                yf[base: base + cnt] = act_f32(v.astype(f), act)
                wf[base: base + cnt] += 1
    assert (writes == 1).all(), "an output written %d..%d times" % (writes.min(), writes.max())
    return y


def reference(x, w1, b1, w2, b2, r, g, hact, act):
    x, w1, w2 = (a.astype(np.float64) for a in (x, w1, w2))
    h = np.einsum('ji,nis->njs', w1, x) + (0 if b1 is None else b1.astype(np.float64)[None, :, None])
    h = act_f64(h, hact)
    y = np.einsum('oj,njs->nos', w2, h) + (0 if b2 is None else b2.astype(np.float64)[None, :, None])
    if r is not None:
        y = y + (1 if g is None else g.astype(np.float64)[None, :, None]) * r
    return act_f64(y, act)


def case(rng, N, Cin, Ch, Cout, P, hact=1, act=0, opts=(1, 1, 1, 1), vec=None, om=None, tol=1e-6):
    f = np.float32
    x = rng.standard_normal((N, Cin, P)).astype(f)
    w1 = (rng.standard_normal((Ch, Cin)) / np.sqrt(Cin)).astype(f)
    w2 = (rng.standard_normal((Cout, Ch)) / np.sqrt(Ch)).astype(f)
    b1 = (0.5 * rng.standard_normal(Ch)).astype(f) if opts[0] else None
    b2 = (0.5 * rng.standard_normal(Cout)).astype(f) if opts[1] else None
    r = rng.standard_normal((N, Cout, P)).astype(f) if opts[2] else None
    g = rng.standard_normal(Cout).astype(f) if opts[2] and opts[3] else None
    if vec is None: vec = P % 4 == 0
    if om is None: om = om_for(Cout)
    y = run(x, w1, b1, w2, b2, r, g, hact, act, vec, om)
    ref = reference(x, w1, b1, w2, b2, r, g, hact, act)
    rel = np.sqrt(((y - ref) ** 2).sum() / max((ref ** 2).sum(), 1e-300))
    ok = rel <= tol
    print("%s N%d %d/%d/%d P%d act %d/%d opts %s vec %d (OM %d): rel_l2 %.2e" %
          ("ok  " if ok else "FAIL", N, Cin, Ch, Cout, P, hact, act, opts, vec, om, rel))
    return ok


def main():
    rng = np.random.default_rng(7)
    cases = [
        dict(N=1, Cin=1, Ch=1, Cout=1, P=1),
        dict(N=3, Cin=1, Ch=1, Cout=1, P=7, opts=(0, 0, 0, 0)),
        dict(N=2, Cin=5, Ch=7, Cout=3, P=37, hact=1, act=3),
        dict(N=2, Cin=7, Ch=1, Cout=5, P=65, opts=(1, 0, 1, 0)),
        dict(N=1, Cin=3, Ch=128, Cout=64, P=131),
        dict(N=2, Cin=64, Ch=32, Cout=64, P=256),
        dict(N=1, Cin=64, Ch=128, Cout=1, P=260, opts=(1, 1, 0, 0)),
        dict(N=1, Cin=32, Ch=16, Cout=32, P=129, hact=4, act=5),
        dict(N=1, Cin=130, Ch=70, Cout=17, P=127, hact=2),          # chunked Cin, 3 hidden chunks
        dict(N=1, Cin=65, Ch=33, Cout=9, P=131),                    # 2 Cin chunks, OM 2
        dict(N=2, Cin=9, Ch=31, Cout=33, P=1),                      # OM 8 partial tile, P = 1
        dict(N=1, Cin=64, Ch=32, Cout=65, P=260, vec=False),        # scalar path with P % 4 == 0
        dict(N=1, Cin=512, Ch=16, Cout=300, P=131),                 # 8 Cin chunks, 5 Cout tiles
        dict(N=1, Cin=9, Ch=40, Cout=3, P=130, om=8),               # forced OM larger than Cout needs
        dict(N=1, Cin=64, Ch=32, Cout=65, P=256, om=1),             # forced OM 1: 9 Cout tiles
        dict(N=1, Cin=5, Ch=33, Cout=33, P=129, om=2),
        dict(N=1, Cin=3, Ch=128, Cout=64, P=128, om=4),
    ]
    ok = all(case(rng, **c) for c in cases)
    print("emulate_pointwise_mlp: %s" % ("all passed" if ok else "FAILED"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
