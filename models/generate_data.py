"""Generate a model's training and test data with the repo's solvers (numpy/scipy, CPU).

    python models/generate_data.py darcy     # -> models/data/darcy.npz
    python models/generate_data.py burgers   # -> models/data/burgers.npz
"""
from __future__ import annotations

import argparse
import pathlib
import sys
import time

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "python"))
from turbofno.zoo.recipes import RECIPES, TEST, TRAIN, make_samples  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("model", choices=sorted(RECIPES))
    parser.add_argument("--out", type=pathlib.Path, default=pathlib.Path(__file__).parent / "data")
    parser.add_argument("--chunk", type=int, default=100, help="samples per progress line")
    args = parser.parse_args()
    recipe = RECIPES[args.model]
    arrays = {}
    for split, name, count in ((TRAIN, "train", recipe["n_train"]), (TEST, "test", recipe["n_test"])):
        xs, ys = [], []
        start = time.time()
        for lo in range(0, count, args.chunk):
            x, y = make_samples(recipe, split, range(lo, min(count, lo + args.chunk)))
            xs.append(x)
            ys.append(y)
            print(f"{args.model} {name}: {lo + len(x)}/{count} samples, {time.time() - start:.1f} s", flush=True)
        arrays[f"x_{name}"] = np.concatenate(xs).astype(np.float32)
        arrays[f"y_{name}"] = np.concatenate(ys).astype(np.float32)
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / f"{args.model}.npz"
    np.savez(path, **arrays)
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
