"""auto_LiRPA side of `benchmarks/verify.py --lirpa-python`: runs in an environment that has auto_LiRPA
(installed with --no-deps; it does not import nonlin).

    lirpa/bin/python benchmarks/verify_lirpa_worker.py IN.pt OUT.json

IN holds, per model, the layer list and state dict, the test inputs, labels and eps, and the intervals for
the relaxation-tightness table; OUT gets, per model and method, the mean output-bound width, the mean margin
lower bound, the number of verified inputs and the median time of three runs, or the error auto_LiRPA raised.
"""

import itertools
import json
import statistics
import sys
import time
import warnings

import torch
from torch import nn

warnings.filterwarnings("ignore")
from auto_LiRPA import BoundedModule, BoundedTensor, PerturbationLpNorm  # noqa: E402

ACTS = {"relu": nn.ReLU, "tanh": nn.Tanh, "sigmoid": nn.Sigmoid, "silu": nn.SiLU, "gelu": nn.GELU}
ACTS.update({"softplus": nn.Softplus, "elu": nn.ELU})
METHODS = {"ibp": "IBP", "crown": "CROWN", "alpha-crown": "alpha-CROWN"}


def build(act: str, sizes):
    layers = []
    for i, (a, b) in enumerate(itertools.pairwise(sizes)):
        layers.append(nn.Linear(a, b))
        if i < len(sizes) - 2:
            layers.append(ACTS[act]())
    return nn.Sequential(*layers)


def timed(fn):
    out, ts = None, []
    for _ in range(3):
        t = time.perf_counter()
        out = fn()
        ts.append(time.perf_counter() - t)
    return out, statistics.median(ts)


def run_model(spec, x, y, eps):
    net = build(spec["act"], spec["sizes"])  # float32: auto_LiRPA's own dtype (float64 fails in 0.7.1)
    net.load_state_dict(spec["state"])
    net.eval()
    res = {}
    try:
        bm = BoundedModule(net, torch.zeros_like(x), device="cpu", verbose=0)
    except Exception as err:  # report what auto_LiRPA says
        return {m: {"error": f"{type(err).__name__}: {err}"[:160]} for m in METHODS}
    K = spec["sizes"][-1]
    eye = torch.eye(K)
    C = eye[y][:, None, :] - eye[None]  # [B, K, K]
    keep = torch.ones(len(y), K, dtype=torch.bool)
    keep[torch.arange(len(y)), y] = False
    C = C[keep].reshape(len(y), K - 1, K)
    for name, method in METHODS.items():
        bx = BoundedTensor(x, PerturbationLpNorm(norm=float("inf"), eps=eps))
        try:
            (lb, ub), t_bounds = timed(lambda bx=bx, method=method: bm.compute_bounds(x=(bx,), method=method))
            (mlb, _), t_margin = timed(lambda bx=bx, method=method: bm.compute_bounds(x=(bx,), C=C, method=method))
            pred = net(x).argmax(1)
            verified = int(((mlb > 0).all(1) & (pred == y)).sum())
            res[name] = {
                "width": float((ub - lb).mean()),
                "margin": float(mlb.mean()),  # mean lower bound of logit[y] - logit[j], j != y
                "verified": verified,
                "time_bounds": t_bounds,
                "time_margin": t_margin,
            }
        except Exception as err:
            res[name] = {"error": f"{type(err).__name__}: {err}"[:160]}
    return res


def relaxation_gaps(act: str, lo: torch.Tensor, hi: torch.Tensor):
    """Mean gap over each [lo, hi] of auto_LiRPA's CROWN relaxation of the activation alone."""
    net = nn.Sequential(ACTS[act]())
    lo, hi = lo.float(), hi.float()
    try:
        bm = BoundedModule(net, torch.zeros(1, len(lo)), device="cpu", verbose=0)
        bx = BoundedTensor(lo[None].clone(), PerturbationLpNorm(norm=float("inf"), x_L=lo[None], x_U=hi[None]))
        need = {bm.output_name[0]: [bm.input_name[0]]}
        _, _, A = bm.compute_bounds(x=(bx,), method="CROWN", return_A=True, needed_A_dict=need)
        a = A[bm.output_name[0]][bm.input_name[0]]
        la, ua = a["lA"][0].diagonal(), a["uA"][0].diagonal()
        lb, ub = a["lbias"][0], a["ubias"][0]
        mid = (lo.double() + hi.double()) / 2
        return {"gap": ((ua - la).double() * mid + (ub - lb).double()).tolist()}
    except Exception as err:
        return {"error": f"{type(err).__name__}: {err}"[:160]}


def main() -> None:
    data = torch.load(sys.argv[1], weights_only=False)
    torch.set_num_threads(int(data["threads"]))
    out = {"version": __import__("auto_LiRPA").__version__, "models": {}, "gaps": {}}
    for key, spec in data["models"].items():
        out["models"][key] = run_model(spec, data["x"], data["y"], data["eps"])
    for act in data["gap_acts"]:
        out["gaps"][act] = relaxation_gaps(act, data["gap_lo"], data["gap_hi"])
    with open(sys.argv[2], "w") as f:
        json.dump(out, f)


if __name__ == "__main__":
    main()
