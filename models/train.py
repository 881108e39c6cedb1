"""Train a bundled FNO (neuraloperator's FNO class) on data from generate_data.py, CPU or GPU.

    python models/train.py darcy   --epochs 70  --threads 1
    python models/train.py burgers --epochs 300 --threads 1
    python models/train.py navier_stokes --epochs 50 --threads 2

Writes python/turbofno/zoo/checkpoints/<model>/{model.pt, config.json} and prints the test relative
L2 error against the solver (all test samples, and the first few that tests/python/test_models.py re-checks).
"""
from __future__ import annotations

import argparse
import json
import pathlib
import sys
import time

import numpy as np
import torch

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python"))
from turbofno.zoo.checkpoints import Normalizer, build_model, relative_l2  # noqa: E402
from turbofno.zoo.recipes import RECIPES  # noqa: E402

# neuraloperator FNO constructor arguments per model (everything else: the library's defaults)
FNO_CONFIGS = {
    "darcy": dict(n_modes=[12, 12], in_channels=1, out_channels=1, hidden_channels=32, n_layers=4),
    "burgers": dict(n_modes=[32], in_channels=1, out_channels=1, hidden_channels=64, n_layers=4),
    "navier_stokes": dict(n_modes=[16, 16], in_channels=1, out_channels=1, hidden_channels=32, n_layers=4),
}
CHECK_SAMPLES = 8  # test samples re-checked by the test suite


def rel_l2_loss(pred: torch.Tensor, truth: torch.Tensor) -> torch.Tensor:
    diff = (pred - truth).flatten(1).norm(dim=1)
    return (diff / truth.flatten(1).norm(dim=1)).mean()


def evaluate(model, norm: Normalizer, x: np.ndarray, y: np.ndarray, device: str, batch: int) -> np.ndarray:
    model.eval()
    preds = []
    with torch.no_grad():
        for lo in range(0, len(x), batch):
            xb = torch.from_numpy(norm.encode_input(x[lo:lo + batch])).float().to(device)
            preds.append(norm.decode_output(model(xb)).cpu().numpy())
    return relative_l2(np.concatenate(preds), y)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("model", choices=sorted(FNO_CONFIGS))
    parser.add_argument("--epochs", type=int, required=True)
    parser.add_argument("--batch", type=int, default=20)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--weight-decay", type=float, default=1e-4)
    parser.add_argument("--seed", type=int, default=0, help="torch seed (initialisation and shuffling)")
    parser.add_argument("--threads", type=int, default=0, help="torch CPU threads (0: torch's default)")
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--data", type=pathlib.Path, default=None, help="default: models/data/<model>.npz")
    parser.add_argument("--out", type=pathlib.Path, default=None, help="default: python/turbofno/zoo/checkpoints/<model>")
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    data_path = args.data or ROOT / "models" / "data" / f"{args.model}.npz"
    out_dir = args.out or ROOT / "python" / "turbofno" / "zoo" / "checkpoints" / args.model
    data = np.load(data_path)
    x_train, y_train, x_test, y_test = (data[k] for k in ("x_train", "y_train", "x_test", "y_test"))
    norm_stats = dict(x_mean=float(x_train.mean()), x_std=float(x_train.std()),
                      y_mean=float(y_train.mean()), y_std=float(y_train.std()))
    norm = Normalizer(norm_stats)
    config = dict(name=args.model, fno=FNO_CONFIGS[args.model], recipe=RECIPES[args.model], normalization=norm_stats)
    model = build_model(config).to(args.device)
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=args.weight_decay)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=args.lr, total_steps=args.epochs * -(-len(x_train) // args.batch))
    xt = torch.from_numpy(norm.encode_input(x_train)).float()
    yt = torch.from_numpy(y_train).float()
    y_mean, y_std = norm.y_mean, norm.y_std
    start = time.time()
    for epoch in range(args.epochs):
        model.train()
        perm = torch.randperm(len(xt))
        total = 0.0
        for lo in range(0, len(xt), args.batch):
            idx = perm[lo:lo + args.batch]
            xb, yb = xt[idx].to(args.device), yt[idx].to(args.device)
            loss = rel_l2_loss(model(xb) * y_std + y_mean, yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += loss.item() * len(idx)
        if epoch % 5 == 4 or epoch == args.epochs - 1:
            test = evaluate(model, norm, x_test, y_test, args.device, 50).mean()
            print(f"epoch {epoch + 1}/{args.epochs}: train rel-L2 {total / len(xt):.5f}, test rel-L2 {test:.5f}, "
                  f"{time.time() - start:.0f} s", flush=True)
    model = model.cpu()
    errors = evaluate(model, norm, x_test, y_test, "cpu", 50)
    config["training"] = dict(epochs=args.epochs, batch=args.batch, lr=args.lr, weight_decay=args.weight_decay,
                              optimizer="AdamW + OneCycleLR", loss="relative L2", seed=args.seed,
                              n_train=len(x_train), device=args.device, threads=torch.get_num_threads(), wall_s=round(time.time() - start))
    config["test"] = dict(n=len(errors), rel_l2_mean=float(errors.mean()), rel_l2_max=float(errors.max()),
                          check_n=CHECK_SAMPLES, check_rel_l2_mean=float(errors[:CHECK_SAMPLES].mean()),
                          check_rel_l2=[float(e) for e in errors[:CHECK_SAMPLES]])
    config["parameters"] = int(sum(p.numel() for p in model.parameters()))
    out_dir.mkdir(parents=True, exist_ok=True)
    # fp32 (complex64 for the spectral weights); neuralop's _metadata (classes, not tensors) is dropped
    state = {k: (v.to(torch.complex64) if v.is_complex() else v.float()).contiguous()
             for k, v in model.state_dict().items() if torch.is_tensor(v)}
    torch.save(state, out_dir / "model.pt")
    (out_dir / "config.json").write_text(json.dumps(config, indent=2) + "\n")
    print(f"test rel-L2 over {len(errors)} samples: mean {errors.mean():.5f}, max {errors.max():.5f}; "
          f"first {CHECK_SAMPLES}: {errors[:CHECK_SAMPLES].mean():.5f}")
    print(f"wrote {out_dir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
