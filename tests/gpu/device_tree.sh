#!/usr/bin/env bash
# Makes the working tree lean for a device session, and whole again afterwards.
#   bash tests/gpu/device_tree.sh lean      # before pack_for_device.sh and the device calls
#   bash tests/gpu/device_tree.sh restore   # after the last device call, before any commit
#   bash tests/gpu/device_tree.sh status
# Why: a device call carries the tracked tree inside its 64 MiB, and ~25 MB of that tree is committed evidence the
# device never reads (tests/gpu/logs, bench/results). Moved aside, the tree is ~13 MB, pack_for_device.sh cuts ~50 MB
# parts, and onnxruntime-gpu, our libraries and the neuraloperator wheels travel in two calls instead of four
# (session 27: fewer calls between which a lent machine can be taken back).
# While lean, git sees those files as deleted: commit nothing until `restore` (it refuses to run over files that
# came back some other way). DEVICE_TREE_STASH sets where they wait (default ~/.cache/turbofno-device/lean-tree).
set -euo pipefail
cd "$(dirname "$0")/../.."
FOLDERS=(tests/gpu/logs bench/results)
STASH=${DEVICE_TREE_STASH:-${XDG_CACHE_HOME:-$HOME/.cache}/turbofno-device/lean-tree}

die() { echo "device_tree: $*" >&2; exit 1; }

case "${1:-status}" in
    lean)
        [ ! -e "$STASH" ] || die "$STASH already holds a lean tree's folders: run '$0 restore' first"
        for f in "${FOLDERS[@]}"; do
            [ -d "$f" ] || die "$f is missing (already lean?)"
            # only committed state may leave: what is moved aside must be exactly what git can give back
            [ -z "$(git status --porcelain -- "$f")" ] || die "$f has uncommitted changes: commit or drop them first"
        done
        mkdir -p "$STASH"
        git rev-parse HEAD > "$STASH/HEAD"
        for f in "${FOLDERS[@]}"; do
            mkdir -p "$STASH/$(dirname "$f")"
            mv "$f" "$STASH/$f"
        done
        echo "device_tree: lean (${FOLDERS[*]} moved to $STASH); commit nothing until: bash $0 restore" ;;
    restore)
        [ -d "$STASH" ] || die "no lean tree to restore ($STASH does not exist)"
        for f in "${FOLDERS[@]}"; do
            [ ! -e "$f" ] || die "$f exists again: move it away or delete it, then restore"
        done
        for f in "${FOLDERS[@]}"; do
            mkdir -p "$(dirname "$f")"
            mv "$STASH/$f" "$f"
        done
        rm -rf "$STASH"
        echo "device_tree: restored ${FOLDERS[*]}" ;;
    status)
        if [ -d "$STASH" ]; then
            echo "lean: ${FOLDERS[*]} are in $STASH (moved at $(cut -c1-12 "$STASH/HEAD")); restore before committing"
        else
            echo "whole"
        fi ;;
    *) die "usage: $0 lean|restore|status" ;;
esac
