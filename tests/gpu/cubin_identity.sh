#!/usr/bin/env bash
# Does a change alter any GPU machine code? No GPU needed: compiles the CUDA translation units (plugins/cuda/*.cu)
# to sm_90 cubins at BASE and in the working tree, with the library's flags, and compares them. Byte-identical
# cubins cannot change the kernels' speed or results, so a refactor that keeps them needs no GPU re-measurement.
# Where they differ it names the kernels whose SASS differs, with their registers (needs cuobjdump).
#
#   bash tests/gpu/cubin_identity.sh [BASE] [TU...]        BASE: a git revision (default HEAD); TU: inst_f32 ...
#   bash tests/gpu/cubin_identity.sh main inst_f32 dft_c2c
#
# nvcc from CUDA_HOME (default /usr/local/cuda); cuobjdump from CUOBJDUMP, PATH or $CUDA_HOME/bin (the PyPI wheel
# nvidia-cuda-cuobjdump has one). About 1.5 to 2 minutes per translation unit and side on 2 cores; JOBS (default 2)
# compiles run at a time. Exit status: 0 identical, 1 some cubin differs, 2 a compile failed.
# ptxas is not deterministic for every kernel: with CUDA 13.0, pointwise_mlp.cu's small-grid kernels came out of
# the same preprocessed source with 102 or 106 registers (pointwiseMlpSmallKernel<__half, 16>) or a different
# schedule (<float, 64>), in parallel and in sequential compiles. REPEAT=1 compiles BASE a second time and sets
# aside the kernels that differ between those two compiles (reported as "not reproducible"); a kernel reported
# different once may need a rerun.
set -uo pipefail
cd "$(dirname "$0")/../.."
BASE=${1:-HEAD}
shift $(( $# > 0 ? 1 : 0 ))
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
NVCC=$CUDA_HOME/bin/nvcc
CUOBJDUMP=${CUOBJDUMP:-$(command -v cuobjdump || echo "$CUDA_HOME/bin/cuobjdump")}
JOBS=${JOBS:-2}
TUS=("$@")
[ ${#TUS[@]} -gt 0 ] || TUS=($(cd plugins/cuda && ls *.cu | sed 's/\.cu$//'))
# the flags of plugins/CMakeLists.txt's Release build for sm_90
FLAGS=(-O3 -DNDEBUG -DTURBOFNO_WITH_CUDA=1 -arch=sm_90 -cubin -std=c++17 -w -Iplugins/include -Iplugins/src)

T=$(mktemp -d)
cleanup() { git worktree remove --force "$T/base" > /dev/null 2>&1; rm -rf "$T"; }
trap cleanup EXIT
git worktree add --detach -q "$T/base" "$BASE" || { echo "cannot check out $BASE"; exit 2; }
echo "cubins of $BASE ($(git -C "$T/base" rev-parse --short HEAD)) vs the working tree: ${TUS[*]}"

compile() {  # compile SIDE_DIR TU OUT
    (cd "$1" && "$NVCC" "${FLAGS[@]}" "plugins/cuda/$2.cu" -o "$3") > "$3.log" 2>&1 || echo "$1 $2" >> "$T/failed"
}
n=0
in_turn() {  # in_turn COMMAND...: in the background, at most JOBS at a time
    "$@" &
    n=$((n + 1))
    if [ $((n % JOBS)) -eq 0 ]; then wait; fi
}
for tu in "${TUS[@]}"; do
    [ -f "plugins/cuda/$tu.cu" ] || { echo "no plugins/cuda/$tu.cu"; exit 2; }
    in_turn compile "$T/base" "$tu" "$T/$tu.base.cubin"
    in_turn compile "$PWD" "$tu" "$T/$tu.tree.cubin"
    if [ "${REPEAT:-0}" = 1 ]; then in_turn compile "$T/base" "$tu" "$T/$tu.again.cubin"; fi
done
wait
if [ -f "$T/failed" ]; then
    echo "compile failed:"; cat "$T/failed"
    for f in "$T"/*.log; do [ -s "$f" ] && tail -5 "$f"; done
    exit 2
fi

# kernels CUBIN DIR: "name checksum" per kernel, sorted (its SASS with the addresses and encodings stripped)
kernels() {
    mkdir -p "$2"
    "$CUOBJDUMP" -sass "$1" | sed -E 's@/\*[0-9a-f]{4}\*/@@; s@/\* 0x[0-9a-f]+ \*/@@' |
        awk -v d="$2" '/Function : /{if (f) close(f); n++; f = d "/" n; print $3 > (f ".name"); close(f ".name"); next} f{print > f}'
    for nf in "$2"/*.name; do
        [ -e "$nf" ] || continue
        echo "$(cat "$nf") $(cat "${nf%.name}" 2> /dev/null | md5sum | cut -c1-32)"
    done | sort
}
regs() { "$CUOBJDUMP" -res-usage "$1" 2>/dev/null | awk '/Function /{f=$2; sub(":$", "", f)} /REG:/{split($1, r, ":"); print f, r[2]}'; }

status=0
for tu in "${TUS[@]}"; do
    if cmp -s "$T/$tu.base.cubin" "$T/$tu.tree.cubin"; then
        echo "$tu: identical"
        continue
    fi
    if [ ! -x "$CUOBJDUMP" ]; then
        echo "$tu: DIFFERS (no cuobjdump for the kernel list)"
        status=1
        continue
    fi
    kernels "$T/$tu.base.cubin" "$T/$tu.base.sass" > "$T/$tu.base.k"
    kernels "$T/$tu.tree.cubin" "$T/$tu.tree.sass" > "$T/$tu.tree.k"
    regs "$T/$tu.base.cubin" | sort > "$T/$tu.base.r"
    regs "$T/$tu.tree.cubin" | sort > "$T/$tu.tree.r"
    changed=$(join -a1 -a2 -e none -o 0,1.2,2.2 "$T/$tu.base.k" "$T/$tu.tree.k" | awk '$2 != $3 {print $1}')
    if [ -f "$T/$tu.again.cubin" ]; then  # kernels that differ between two compiles of BASE
        kernels "$T/$tu.again.cubin" "$T/$tu.again.sass" > "$T/$tu.again.k"
        noisy=$(join -a1 -a2 -e none -o 0,1.2,2.2 "$T/$tu.base.k" "$T/$tu.again.k" | awk '$2 != $3 {print $1}')
        for k in $noisy; do echo "$tu: not reproducible (differs between two compiles of $BASE): $k"; done
        changed=$(comm -23 <(echo "$changed" | sort) <(echo "$noisy" | sort))
        if [ -z "$changed" ]; then
            echo "$tu: identical apart from the kernels above"
            continue
        fi
    fi
    status=1
    echo "$tu: DIFFERS in $(echo "$changed" | grep -c .) kernel(s) (registers before -> after):"
    for k in $changed; do
        echo "  $k $(awk -v k="$k" '$1 == k {print $2}' "$T/$tu.base.r" | head -1) -> $(awk -v k="$k" '$1 == k {print $2}' "$T/$tu.tree.r" | head -1)" |
            sed 's/  \(.\{150\}\).*\( [0-9]* -> .*\)/  \1...\2/'
    done
done
exit $status
