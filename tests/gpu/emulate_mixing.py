"""NumPy emulation of the index logic of plugins/cuda/mixing.cuh (spectralMixKernel) and of its launch
plan (plan.cpp: mixBatch, mixIn, mixWarps; layer.cuh: grid), thread by thread, against an einsum.

Checks that every output is written exactly by the right (block, warp, lane), that staged rows map to
the right (batch, channel), that no unstaged shared-memory row is read and no output is left unwritten, for dense and separable
mixing, forward row-split partials, batch chunks, partial mode tiles and 2 / 4 / 8-warp blocks.
CPU only (no GPU needed), ~1 s:  python3 tests/gpu/emulate_mixing.py   (exit code 1 on a mismatch)
Keep it in step with mixing.cuh when the kernel's indexing changes.
"""
import numpy as np, itertools
FORCE=None
rng=np.random.default_rng(1)
def ceil(a,b): return -(-a//b)
def plan(N,Cin,Cout,Kall):
    kMixSmem=64*1024
    mixIn=min(Cin,256); mixBatch=min(N,8,kMixSmem//(mixIn*256)); mixBatch=max(mixBatch,1)
    if mixBatch<min(N,8):
        mixBatch=min(N,8); mixIn=min(max(1,kMixSmem//(mixBatch*256)),Cin)
    mw=FORCE or 8
    while not FORCE and mw>2 and ceil(Kall,32)*ceil(N,mixBatch)*ceil(Cout,2*mw) < 132 and mixBatch*mixIn<=16*(mw//2): mw//=2
    return mixIn,mixBatch,mw
def run(N,Cin,Cout,Kall,split,sep, mixIn=None, mixBatch=None):
    X=rng.standard_normal((split,N,Cin,Kall))+1j*rng.standard_normal((split,N,Cin,Kall))
    if sep: W=rng.standard_normal((Cin,1,Kall))+1j*rng.standard_normal((Cin,1,Kall))
    else: W=rng.standard_normal((Cin,Cout,Kall))+1j*rng.standard_normal((Cin,Cout,Kall))
    mi,mb,nW=plan(N,Cin,Cout,Kall)
    mixIn=mixIn or mi; mixBatch=mixBatch or mb
    Xf=X.reshape(-1); Wf=W.reshape(-1); K=Kall; partStride=N*Cin*K
    Y=np.full(N*Cout*K, np.nan, complex)
    mTiles=ceil(Kall,32); oTiles=ceil(Cout,2*nW); blocks=mTiles*oTiles*ceil(N,mixBatch)
    L=8
    for blk in range(blocks):
        mTile=blk%mTiles; oTile=(blk//mTiles)%oTiles; nBegin=(blk//mTiles//oTiles)*mixBatch; nEnd=min(N,nBegin+mixBatch)
        # threads
        for warp in range(nW):
          o0=(oTile*nW+warp)*2
          for lane in range(32):
            m=mTile*32+lane; mOk=m<Kall
            if sep:
                if not mOk: continue
                for q in range(2):
                    c=o0+q
                    if c>=Cout: break
                    wv=Wf[c*K+m]
                    for n0 in range(nBegin,nEnd,L):
                        xv=[Xf[(min(n0+j,nEnd-1)*Cin+c)*K+m] for j in range(L)]
                        for s in range(1,split):
                            for j in range(L): xv[j]+=Xf[s*partStride+(min(n0+j,nEnd-1)*Cin+c)*K+m]
                        for j in range(L):
                            if n0+j>=nEnd: break
                            Y[((n0+j)*Cout+c)*K+m]=xv[j]*wv
        if sep: continue
        mc_of=lambda lane: min(mTile*32+lane,Kall-1)
        NB=1
        while NB<mixBatch: NB*=2  # the kernel's template argument (launchMixing)
        for n0 in range(nBegin,nEnd,mixBatch):
            nb=nEnd-n0
            acc=np.zeros((nW,32,NB,2),complex)
            for i0 in range(0,Cin,mixIn):
                ni=min(mixIn,Cin-i0); rows=nb*ni
                xs=np.full(mixBatch*mixIn*32, np.nan, complex)
                for warp in range(nW):
                    for lane in range(32):
                        m=mTile*32+lane; mOk=m<Kall; mc=mc_of(lane)
                        if split==1:  # one partial: cp.async copies of the whole chunk (zero-fill for idle lanes)
                            for b in range(nb):
                                for ii in range(warp,ni,nW):
                                    xs[(b*ni+ii)*32+lane]=Xf[((n0+b)*Cin+i0+ii)*K+mc] if mOk else 0
                            continue
                        for r0 in range(warp,rows,L*nW):
                            off=[];v=[]
                            for j in range(L):
                                r=min(r0+j*nW,rows-1); b=r//ni; ii=r-b*ni
                                off.append(((n0+b)*Cin+i0+ii)*K+mc); v.append(Xf[off[-1]])
                            for s in range(1,split):
                                for j in range(L): v[j]+=Xf[s*partStride+off[j]]
                            for j in range(L):
                                r=r0+j*nW
                                if r<rows: xs[r*32+lane]=v[j] if mOk else 0
                for warp in range(nW):
                    o0=(oTile*nW+warp)*2
                    for lane in range(32):
                        m=mTile*32+lane; mOk=m<Kall; mc=mc_of(lane)
                        for ii in range(ni):
                            base=((i0+ii)*Cout+o0)*K+mc
                            w0=Wf[base] if (mOk and o0<Cout) else 0
                            w1=Wf[base+K] if (mOk and o0+1<Cout) else 0
                            for b in range(NB):  # NB accumulators, rows past the chunk clamped to its last item
                                xv=xs[(min(b,nb-1)*ni+ii)*32+lane]
                                assert not np.isnan(xv)
                                acc[warp,lane,b,0]+=xv*w0; acc[warp,lane,b,1]+=xv*w1
            for warp in range(nW):
                o0=(oTile*nW+warp)*2
                for lane in range(32):
                    m=mTile*32+lane
                    if m>=Kall: continue
                    for b in range(nb):
                        for q in range(2):
                            if o0+q<Cout: Y[((n0+b)*Cout+o0+q)*K+m]=acc[warp,lane,b,q]
    Xs=X.sum(0)
    ref=Xs*W[:,0,:][None] if sep else np.einsum('nik,iok->nok',Xs,W)
    Y=Y.reshape(N,Cout,K)
    assert not np.isnan(Y).any(), "unwritten"
    err=np.abs(Y-ref).max(); assert err<1e-9, err
    return nW
for args in [(1,3,5,37,1,False),(2,7,3,70,3,False),(10,5,9,33,2,False),(9,6,6,40,4,True),(3,4,4,31,1,True),(12,20,11,65,3,False)]:
    print(args, 'warps', run(*args))
print(run(10,9,5,45,2,False,mixIn=4,mixBatch=3), 'small chunks ok')
print("emulation OK")
for f in (8,4):
    FORCE=f; print(f, run(10,9,21,45,2,False), run(4,13,13,50,3,True))

FORCE=None
for args in [(17,5,7,33,2,False),(20,6,6,40,3,True),(9,3,4,64,1,False)]:
    print(args, run(*args))
print(run(19,9,5,45,2,False,mixIn=4,mixBatch=3), run(11,6,6,45,2,True,mixBatch=4))
print("emulation 2 OK")
