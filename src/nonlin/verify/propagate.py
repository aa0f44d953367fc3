"""IBP, CROWN and alpha-CROWN through a traced model (graph.py), for inputs in an L-inf ball.

- IBP: interval bounds node by node; a nonlinearity's range is `verify.interval`'s exact one.
- CROWN (backward linear bound propagation, Zhang et al. 2018): every input of a nonlinearity gets bounds
  from a backward pass through the relaxations of the nonlinearities before it (intersected with IBP),
  and the output gets one more pass with the caller's specification (identity, or the margins).
- alpha-CROWN (Xu et al. 2021): the slopes of the pointwise relaxations in every backward pass, the
  intermediate ones included, are optimized jointly by Adam on the final bound (alpha.py): one set per
  (sample, start node, row, neuron), both lines, started from CROWN's; the intermediate bounds are
  recomputed from them at each step (differentiably, intersected with the tightest seen so far, CROWN's at
  first). Every slope is sound (its intercept is the exact one of extremum.py), so the bound kept is the
  best over all steps, per element, and never looser than CROWN's. Gated relaxations keep CROWN's lines (sound on the narrower intervals).
Everything runs in float64 (float32 weights and inputs convert exactly). Rounding of the float64 products
is covered by a relative slack of 2^-32 on the magnitude of every concretized term; float32 results are
then rounded outward.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
import torch.nn.functional as F

from nonlin.verify.alpha import PointwiseSlopes, concave_sides, differentiable_range, secant_lines
from nonlin.verify.curve import pointwise_curve
from nonlin.verify.graph import Op, trace
from nonlin.verify.pointwise import lines
from nonlin.verify.relax import gated_factors, gated_relaxation, interval, outward

F64 = torch.float64
SLACK = 2.0**-32
TINY = 2.0**-1000
METHODS = ("ibp", "crown", "alpha-crown")
LR, LR_DECAY = 0.5, 0.98  # alpha-CROWN's Adam on theta in [0, 1]: auto_LiRPA's defaults (lr_alpha, lr_decay)
# where f' is smooth (tangent points, slopes across an inflection) 0.5 overshoots: 0.1 measured tighter on
# the digits benchmark's sigmoid and tanh nets (benchmarks/verify.py); kinks (ReLU) keep 0.5
TANGENT_LR_FACTOR = 0.2
MAX_SPEC_ELEMENTS = 1 << 23  # A matrices are chunked along the specification to stay under ~64 MiB


@dataclass
class Bound:
    lo: torch.Tensor
    hi: torch.Tensor


def _view_channel(w: torch.Tensor, ndim_node: int) -> torch.Tensor:
    """A scalar or per-channel [C] weight shaped to broadcast over [..., C, *spatial] (channel first)."""
    if w.dim() == 0:
        return w
    return w.reshape(-1, *([1] * (ndim_node - 1)))


def _affine(op: Op, x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None) -> torch.Tensor:
    if op.kind == "linear":
        return F.linear(x, weight, bias)
    if op.kind == "conv":
        return F.conv2d(x, weight, bias, **op.conv)
    y = x * _view_channel(weight, len(op.shape))
    return y if bias is None else y + _view_channel(bias, len(op.shape))


def _ibp(op: Op, ins: list[Bound]) -> Bound:
    if op.kind in ("linear", "conv", "scale"):
        lo, hi = ins[0].lo, ins[0].hi
        c, r = (lo + hi) / 2, (hi - lo) / 2
        wa = op.weight.abs()
        yc = _affine(op, c, op.weight, op.bias)
        yr = _affine(op, r, wa, None)
        mag = _affine(op, c.abs() + r, wa, None if op.bias is None else op.bias.abs())
        s = SLACK * mag + TINY
        return Bound(yc - yr - s, yc + yr + s)
    if op.kind == "reshape":
        b = ins[0]
        return Bound(b.lo.reshape(-1, *op.shape), b.hi.reshape(-1, *op.shape))
    if op.kind == "slice":
        idx = op.conv["index"]
        return Bound(ins[0].lo[idx], ins[0].hi[idx])
    if op.kind == "add":
        lo = hi = None
        mag = 0.0
        for b, sgn in zip(ins, op.signs, strict=True):
            bl, bh = (b.lo, b.hi) if sgn > 0 else (b.hi, b.lo)
            lo = sgn * bl if lo is None else lo + sgn * bl
            hi = sgn * bh if hi is None else hi + sgn * bh
            mag = mag + abs(sgn) * torch.maximum(b.lo.abs(), b.hi.abs())
        if op.const is not None:
            lo, hi, mag = lo + op.const, hi + op.const, mag + op.const.abs()
        s = SLACK * mag + TINY
        return Bound(lo - s, hi + s)
    if op.kind == "pointwise":
        lo, hi = interval(op.name, ins[0].lo, ins[0].hi, **op.params)
        return Bound(lo, hi)
    if op.kind == "gated":
        if op.packed:
            (gl, vl), (gu, vu) = _unpack(op, ins[0].lo), _unpack(op, ins[0].hi)
            lo, hi = interval(op.name, (gl, vl), (gu, vu), **op.params)
        else:
            lo, hi = interval(op.name, (ins[0].lo, ins[1].lo), (ins[0].hi, ins[1].hi), **op.params)
        return Bound(lo, hi)
    raise AssertionError(op.kind)


def _unpack(op: Op, packed: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """A gated op's packed input [..., 2d] -> (gate, value), as the op's layout packs them."""
    d = packed.shape[-1] // 2
    if op.layout == "interleaved":
        return packed[..., 0::2], packed[..., 1::2]
    first, second = packed[..., :d], packed[..., d:]
    return (first, second) if op.layout == "gate_value" else (second, first)


def _pack(op: Op, gate: torch.Tensor, value: torch.Tensor) -> torch.Tensor:
    """The inverse of `_unpack` (coefficients of the gate and the value back in the input's order)."""
    if op.layout == "interleaved":
        return torch.stack([gate, value], -1).flatten(-2)
    return torch.cat([gate, value] if op.layout == "gate_value" else [value, gate], -1)


def _tighter(new: Bound, ref: Bound) -> Bound:
    """The intersection of two sound bounds, its gradient always through `new` (where the reference is the
    tighter one, as at the start where they tie, the gradient still says how to improve `new`)."""
    lo = torch.where(torch.isfinite(new.lo), new.lo + (ref.lo - new.lo).clamp(min=0).detach(), ref.lo)
    hi = torch.where(torch.isfinite(new.hi), new.hi - (new.hi - ref.hi).clamp(min=0).detach(), ref.hi)
    return Bound(lo, hi)


def _sum_tail(t: torch.Tensor) -> torch.Tensor:
    """[B, S, ...] -> [B, S]."""
    return t if t.dim() == 2 else t.flatten(2).sum(-1)


class Propagator:
    """Bounds of a model's output over boxes of inputs; built once per model (tracing and shapes)."""

    def __init__(self, model: torch.nn.Module, example: torch.Tensor):
        self.model = model
        self.ops = trace(model, example)
        self.consumers = [[] for _ in self.ops]
        for j, op in enumerate(self.ops):
            for i in op.inputs:
                self.consumers[i].append(j)
        nonlinear = {"pointwise", "gated"}
        self.needs_bounds = {i for j, op in enumerate(self.ops) if op.kind in nonlinear for i in op.inputs}
        # a node after no nonlinearity is affine in the input: its IBP bounds are already exact
        self.after_nonlinear = []
        for op in self.ops:
            self.after_nonlinear.append(
                op.kind in nonlinear or any(self.after_nonlinear[i] for i in op.inputs) if op.inputs else False
            )
        self.ancestors: list[set[int]] = []
        for op in self.ops:
            self.ancestors.append(set(op.inputs).union(*(self.ancestors[i] for i in op.inputs)))

    def _crown_node(self, j: int) -> bool:
        """Whether node j's bounds come from a backward pass (an input of a nonlinearity, after one; the range of
        a pointwise op is exact from its input's bounds, and a node before any nonlinearity is exact by IBP)."""
        return j in self.needs_bounds and self.after_nonlinear[j] and self.ops[j].kind != "pointwise"

    # --- relaxations ---
    def _relax(self, j: int, bounds: list[Bound]):
        op = self.ops[j]
        if op.kind == "pointwise":
            b = bounds[op.inputs[0]]
            curve = pointwise_curve(op.name, op.params)
            return lines(curve, b.lo, b.hi)
        factors = gated_factors(op.name, op.params)
        if op.packed:
            b = bounds[op.inputs[0]]
            (gl, vl), (gu, vu) = _unpack(op, b.lo), _unpack(op, b.hi)
        else:
            gl, gu = bounds[op.inputs[0]].lo, bounds[op.inputs[0]].hi
            vl, vu = bounds[op.inputs[1]].lo, bounds[op.inputs[1]].hi
        low, up, _ = gated_relaxation(factors, gl, gu, vl, vu)
        return (*low, *up)

    # --- the backward pass ---
    def _backward(
        self, start: int, A0: torch.Tensor, relax: dict, xl: torch.Tensor, xu: torch.Tensor, *, const=None, mag=None
    ):
        """Lower bounds of A0 . node[start] + const over the input box: [B, S] (`mag`: the magnitude already
        in const, for the rounding slack)."""
        As = {start: A0}
        B, S = A0.shape[:2]
        const = torch.zeros(B, S, dtype=F64) if const is None else const
        mag = torch.zeros(B, S, dtype=F64) if mag is None else mag
        A_in = None
        for j in range(start, -1, -1):
            if j not in As:
                continue
            A = As.pop(j)
            op = self.ops[j]
            if op.kind == "input":
                A_in = A
                continue
            ins = self._back_op(op, A, relax.get(j), B, S)
            for src, Ai, c, m in ins:
                if Ai is not None:
                    As[src] = As[src] + Ai if src in As else Ai
                const = const + c
                mag = mag + m
        xc, xr = (xl + xu) / 2, (xu - xl) / 2
        if A_in is None:
            return const - SLACK * mag - TINY
        # the input box's centre and radius as batched matrix-vector products: [B, S, n] @ [B, n, k]
        Af, Aa = A_in.reshape(B, S, -1), A_in.abs().reshape(B, S, -1)
        xc, xr = xc.reshape(B, -1), xr.reshape(B, -1)
        centre = (Af @ xc[..., None])[..., 0]
        spread = Aa @ torch.stack([xr, xc.abs() + xr], -1)  # [B, S, 2]
        lb = const + centre - spread[..., 0]
        mag = mag + spread[..., 1] + const.abs()
        return lb - SLACK * mag - TINY

    def _back_op(self, op: Op, A: torch.Tensor, rel, B: int, S: int):
        zero = torch.zeros(B, S, dtype=F64)
        if op.kind == "linear":
            Ai = A @ op.weight
            if op.bias is None:
                return [(op.inputs[0], Ai, zero, zero)]
            c = _sum_tail(A @ op.bias)
            m = _sum_tail(A.abs() @ op.bias.abs())
            return [(op.inputs[0], Ai, c, m)]
        if op.kind == "conv":
            src = self.ops[op.inputs[0]]
            flat = A.reshape(B * S, *op.shape)
            Ai = torch.nn.grad.conv2d_input((B * S, *src.shape), op.weight, flat, **op.conv)
            Ai = Ai.reshape(B, S, *src.shape)
            if op.bias is None:
                return [(op.inputs[0], Ai, zero, zero)]
            As = A.sum((-1, -2))
            return [(op.inputs[0], Ai, (As * op.bias).sum(-1), (A.abs().sum((-1, -2)) * op.bias.abs()).sum(-1))]
        if op.kind == "scale":
            w = _view_channel(op.weight, len(op.shape))
            Ai = A * w
            if op.bias is None:
                return [(op.inputs[0], Ai, zero, zero)]
            bv = _view_channel(op.bias, len(op.shape))
            return [(op.inputs[0], Ai, _sum_tail(A * bv), _sum_tail(A.abs() * bv.abs()))]
        if op.kind == "reshape":
            src = self.ops[op.inputs[0]]
            return [(op.inputs[0], A.reshape(B, S, *src.shape), zero, zero)]
        if op.kind == "slice":
            src = self.ops[op.inputs[0]]
            Ai = torch.zeros(B, S, *src.shape, dtype=F64)
            Ai[(slice(None), *op.conv["index"])] = A
            return [(op.inputs[0], Ai, zero, zero)]
        if op.kind == "add":
            out = [(src, A * sgn, zero, zero) for src, sgn in zip(op.inputs, op.signs, strict=True)]
            if op.const is not None:
                cst = op.const.expand(op.shape) if op.const.dim() <= len(op.shape) else op.const
                out.append((op.inputs[0], None, _sum_tail(A * cst), _sum_tail(A.abs() * cst.abs())))
            return out
        if op.kind == "pointwise" and B > 1 and A.stride(0) == 0 and rel[0].dim() != A.dim():
            # A is the same for every sample (a broadcast of W's rows): split it once, not per sample
            A1 = A[0]  # [S, ...]
            Ap, An = A1.clamp(min=0), A1.clamp(max=0)
            al, bl, au, bu = rel
            Ai = torch.addcmul(An * au[:, None], Ap, al[:, None])  # [B, S, ...]; one term is 0: exact
            blf, buf = bl.flatten(1), bu.flatten(1)
            cm = Ap.flatten(1) @ torch.stack([blf, blf.abs()], -1) + An.flatten(1) @ torch.stack([buf, -buf.abs()], -1)
            return [(op.inputs[0], Ai, cm[..., 0], cm[..., 1])]
        Ap = A.clamp(min=0)
        An = A - Ap  # exact: A or 0
        if op.kind == "pointwise":
            al, bl, au, bu = rel
            if al.dim() == A.dim():  # per specification row (alpha-CROWN)
                Ai = Ap * al + An * au
                c = _sum_tail(Ap * bl + An * bu)
                m = _sum_tail(Ap * bl.abs() - An * bu.abs())
                return [(op.inputs[0], Ai, c, m)]
            Ai = torch.addcmul(An * au[:, None], Ap, al[:, None])  # one of the two terms is 0: exact sum
            Pf, Nf = Ap.flatten(2), An.flatten(2)  # [B, S, n]: the sums as batched matrix-vector products
            blf, buf = bl.flatten(1), bu.flatten(1)
            cm = Pf @ torch.stack([blf, blf.abs()], -1) + Nf @ torch.stack([buf, -buf.abs()], -1)  # [B, S, 2]
            return [(op.inputs[0], Ai, cm[..., 0], cm[..., 1])]
        if op.kind == "gated":
            sgl, svl, bl, sgu, svu, bu = (t[:, None] for t in rel)
            Ag = Ap * sgl + An * sgu
            Av = Ap * svl + An * svu
            c = _sum_tail(Ap * bl + An * bu)
            m = _sum_tail(Ap * bl.abs() - An * bu.abs())
            if op.packed:
                return [(op.inputs[0], _pack(op, Ag, Av), c, m)]
            return [(op.inputs[0], Ag, c, m), (op.inputs[1], Av, zero, zero)]
        raise AssertionError(op.kind)

    def _node_bounds(self, j: int, relax: dict, xl, xu, refine: torch.Tensor | None = None) -> Bound:
        """CROWN bounds of node j (identity specification, lower and upper at once, chunked). `refine` [B, n]:
        the neurons that need them (per sample, padded to the batch's largest count); the others get -inf/inf
        unless they fill a padding row."""
        op = self.ops[j]
        B, n = xl.shape[0], math.prod(op.shape)
        if refine is None:
            order = torch.arange(n).expand(B, n)
        else:
            k = int(refine.reshape(B, n).sum(1).max())
            # per sample the neurons to refine first (argsort of a 0/1 key is stable)
            order = torch.argsort((~refine.reshape(B, n)).to(torch.int8), dim=1, stable=True)[:, :k]
        k = order.shape[1]
        lows, highs = [], []
        # a linear node starts at its input: the identity rows times W are rows of W (no product)
        from_weight = op.kind == "linear" and len(op.shape) == 1
        width = math.prod(self.ops[op.inputs[0]].shape) if from_weight else n
        chunk = max(1, MAX_SPEC_ELEMENTS // max(1, B * 2 * max(width, math.prod(self.ops[0].shape))))
        for s0 in range(0, k, chunk):
            ids = order[:, s0 : s0 + chunk]  # [B, rows]
            rows = ids.shape[1]
            if from_weight:
                # [B, 2 rows, in]; the same rows for every sample when all are refined (a broadcast, no copy)
                if refine is None:
                    Wr = op.weight[s0 : s0 + rows]
                    A0 = torch.cat([Wr, -Wr])[None].expand(B, -1, -1)
                else:
                    Aw = op.weight[ids]
                    A0 = torch.cat([Aw, -Aw], 1)
                bias = op.bias[ids] if op.bias is not None else torch.zeros(B, rows, dtype=F64)
                lb = self._backward(
                    op.inputs[0],
                    A0,
                    relax,
                    xl,
                    xu,
                    const=torch.cat([bias, -bias], 1),
                    mag=bias.abs().repeat(1, 2),
                )
            else:
                eye = F.one_hot(ids, n).to(F64).reshape(B, rows, *op.shape)
                lb = self._backward(j, torch.cat([eye, -eye], 1), relax, xl, xu)
            lows.append(lb[:, :rows])
            highs.append(-lb[:, rows:])
        lo = torch.full((B, n), -math.inf, dtype=F64)
        hi = torch.full((B, n), math.inf, dtype=F64)
        if lows:
            lo, hi = lo.scatter(1, order, torch.cat(lows, 1)), hi.scatter(1, order, torch.cat(highs, 1))
        return Bound(lo.reshape(B, *op.shape), hi.reshape(B, *op.shape))

    def _to_refine(self, j: int, b: Bound) -> torch.Tensor | None:
        """Neurons of node j whose CROWN bounds can change a relaxation: where every nonlinearity reading j is
        affine between breakpoints (relu, hardtanh), only those whose interval has a breakpoint inside (the
        relaxation of the others is the exact line whatever the interval, up to the margin). None: all."""
        bps = set()
        for c in self.consumers[j]:
            op = self.ops[c]
            if op.kind == "gated":
                return None
            if op.kind == "pointwise":
                curve = pointwise_curve(op.name, op.params)
                if curve.affine_pieces is None:
                    return None
                bps |= set(curve.affine_pieces)
        lo, hi = b.lo.reshape(b.lo.shape[0], -1), b.hi.reshape(b.hi.shape[0], -1)
        refine = torch.zeros(lo.shape, dtype=torch.bool)
        for p in bps:  # an end on a breakpoint counts too (a jump there splits the interval)
            refine |= (lo <= p) & (hi >= p)
        return refine

    # --- drivers ---
    def prepare(self, xl: torch.Tensor, xu: torch.Tensor, method: str):
        """Bounds of every node and relaxations of every nonlinearity (all but the final specification pass)."""
        bounds: list[Bound] = []
        relax: dict = {}
        for j, op in enumerate(self.ops):
            if op.kind == "input":
                bounds.append(Bound(xl, xu))
                continue
            b = _ibp(op, [bounds[i] for i in op.inputs])
            if method != "ibp" and self._crown_node(j):
                c = self._node_bounds(j, relax, xl, xu, self._to_refine(j, b))
                b = Bound(torch.maximum(b.lo, c.lo), torch.minimum(b.hi, c.hi))
            bounds.append(b)
            if method != "ibp" and op.kind in ("pointwise", "gated"):
                relax[j] = self._relax(j, bounds)
        return bounds, relax

    def spec_bounds(self, xl, xu, C: torch.Tensor, method: str, steps: int = 20, lr: float = LR, groups: int = 1):
        """Lower bounds of C @ output over the box: C [B, S, *out_shape] -> [B, S]. alpha-CROWN optimizes the sum
        of the rows; `groups` > 1 splits the rows into that many groups optimized each on their own (bounds()
        optimizes the lower and the upper ends separately, as auto_LiRPA does)."""
        out = len(self.ops) - 1
        bounds, relax = self.prepare(xl, xu, method)
        self.output_ibp = bounds[out]  # IBP of the output (callers may intersect with it)
        if method == "ibp":
            b, last = bounds[out], self.ops[out]
            if last.kind == "linear" and len(last.shape) == 1:
                # the specification folded into the last layer (as auto_LiRPA does): C W on its input's box
                b = bounds[last.inputs[0]]
                C, bias = C @ last.weight, C @ last.bias if last.bias is not None else 0.0
                Cp, Cn = C.clamp(min=0), C.clamp(max=0)
                lo, hi = b.lo[:, None], b.hi[:, None]
                lb = _sum_tail(Cp * lo + Cn * hi) + bias
                mag = _sum_tail(C.abs() * torch.maximum(lo.abs(), hi.abs())) + abs(bias)
                return lb - SLACK * mag - TINY
            Cp, Cn = C.clamp(min=0), C.clamp(max=0)
            lo, hi = b.lo[:, None], b.hi[:, None]
            lb = _sum_tail(Cp * lo + Cn * hi)
            mag = _sum_tail(C.abs() * torch.maximum(lo.abs(), hi.abs()))
            return lb - SLACK * mag - TINY
        lb = self._backward(out, C, relax, xl, xu)
        if method == "crown":
            return lb
        if groups == 1:
            return self._optimize(out, C, relax, bounds, xl, xu, lb, steps, lr)
        B, S = C.shape[:2]
        # each group becomes its own sample (the slopes are per sample): [B, S] -> [B * groups, S / groups]
        rep = lambda t: t.repeat_interleave(groups, 0)
        bounds_g = [Bound(rep(b.lo), rep(b.hi)) for b in bounds]
        relax_g = {k: tuple(rep(t) for t in r) for k, r in relax.items()}
        Cg = C.reshape(B * groups, S // groups, *C.shape[2:])
        lbg = lb.reshape(B * groups, S // groups)
        best = self._optimize(out, Cg, relax_g, bounds_g, rep(xl), rep(xu), lbg, steps, lr)
        return best.reshape(B, S)

    def _loose_neurons(self, j: int, bounds: list[Bound], curves: dict) -> torch.Tensor:
        """[B, m]: per sample, the flat indices of node j's neurons whose bounds can change a relaxation (all of
        them unless every consumer is pointwise and affine on the neuron's reference interval), padded with n."""
        n = math.prod(self.ops[j].shape)
        b = bounds[j]
        B = b.lo.shape[0]
        exact = torch.ones(B, n, dtype=torch.bool)
        for k in self.consumers[j]:
            if k not in curves:
                return torch.arange(n).expand(B, n)
            exact &= concave_sides(curves[k], b.lo, b.hi).all(0).reshape(B, n)  # f affine on the interval
        m = int((~exact).sum(1).max()) if B else 0
        order = torch.sort(exact.to(torch.int8), dim=1, stable=True).indices[:, :m]  # the loose ones first
        return torch.where(torch.gather(~exact, 1, order), order, n)

    def _optimize(self, out, C, relax, bounds, xl, xu, best, steps, lr, decay=LR_DECAY):
        """alpha-CROWN: Adam on the slopes of every pointwise relaxation in every backward pass (one set per
        start node, row and neuron; both lines), the intermediate bounds recomputed from them at each step
        (differentiably, intersected with the tightest seen so far) and the best final bound kept per element."""
        ops = self.ops
        pointwise = [k for k, op in enumerate(ops) if op.kind == "pointwise" and k in relax]
        if not pointwise:
            return best
        curves = {k: pointwise_curve(ops[k].name, ops[k].params) for k in pointwise}
        starts = [j for j in sorted(self.needs_bounds) if self._crown_node(j)] + [out]
        B = xl.shape[0]
        # rows of each intermediate pass: the neurons whose next relaxation is not already exact (auto_LiRPA's
        # sparse intermediate bounds: a stable ReLU's bounds cannot loosen or tighten its lines)
        loose = {j: self._loose_neurons(j, bounds, curves) for j in starts[:-1]}
        starts = [j for j in starts[:-1] if loose[j].shape[1]] + [out]
        rows = {j: 2 * loose[j].shape[1] for j in starts[:-1]}
        rows[out] = C.shape[1]
        slopes: dict[tuple[int, int], PointwiseSlopes] = {}
        for j in starts:
            for k in pointwise:
                if k in self.ancestors[j]:
                    b = bounds[ops[k].inputs[0]]
                    al, _, au, _ = relax[k]
                    slopes[j, k] = PointwiseSlopes(curves[k], b.lo, b.hi, al, au, rows[j])
        if not slopes:
            return best
        opt = torch.optim.Adam(
            [
                {"params": [s.theta_slope for s in slopes.values()], "lr": lr},
                {"params": [s.theta_tangent for s in slopes.values()], "lr": lr * TANGENT_LR_FACTOR},
            ]
        )
        sched = torch.optim.lr_scheduler.ExponentialLR(opt, decay)
        eyes = {}
        for j in starts[:-1]:
            n = math.prod(ops[j].shape)
            eye = torch.eye(n + 1, n, dtype=F64)[loose[j]].reshape(B, -1, *ops[j].shape)  # padding: zero rows
            eyes[j] = torch.cat([eye, -eye], 1)
        tight = list(bounds)  # the tightest intermediate bounds seen so far (all sound: each step starts from them)
        for step in range(steps):
            last = step == steps - 1
            with torch.no_grad() if last else torch.enable_grad():
                cur = list(bounds)
                local = {}  # pointwise k: (lo, hi, concave sides, secant slopes, secant intercepts) this step
                for j, op in enumerate(ops):
                    if op.kind == "input":
                        continue
                    if j in rows and j != out:
                        rel = {k: r for k, r in relax.items() if k not in curves}
                        for k in pointwise:
                            if (j, k) in slopes:
                                rel[k] = slopes[j, k].lines(*local[k])
                        lb = self._backward(j, eyes[j], rel, xl, xu)
                        m, idx, ref = rows[j] // 2, loose[j], tight[j]
                        pad = torch.zeros(B, 1, dtype=F64)  # the padding rows land in a dropped column
                        lo = torch.cat([ref.lo.reshape(B, -1), pad], 1).scatter(1, idx, lb[:, :m])[:, :-1]
                        hi = torch.cat([ref.hi.reshape(B, -1), pad], 1).scatter(1, idx, -lb[:, m:])[:, :-1]
                        lo, hi = lo.reshape(ref.lo.shape), hi.reshape(ref.hi.shape)
                        cur[j] = _tighter(Bound(lo, hi), ref)
                        tight[j] = Bound(cur[j].lo.detach(), cur[j].hi.detach())
                    elif op.kind == "pointwise" and j in self.needs_bounds and j in curves:
                        b = cur[op.inputs[0]]
                        cur[j] = _tighter(Bound(*differentiable_range(curves[j], b.lo, b.hi)), tight[j])
                        tight[j] = Bound(cur[j].lo.detach(), cur[j].hi.detach())
                    if j in curves:
                        b = cur[op.inputs[0]]
                        local[j] = (
                            b.lo,
                            b.hi,
                            concave_sides(curves[j], b.lo, b.hi),
                            *secant_lines(curves[j], b.lo, b.hi),
                        )
                rel = {k: r for k, r in relax.items() if k not in curves}
                for k in pointwise:
                    if (out, k) in slopes:
                        rel[k] = slopes[out, k].lines(*local[k])
                lb = self._backward(out, C, rel, xl, xu)
            best = torch.maximum(best, lb.detach())
            if last:
                break
            opt.zero_grad()
            loss = -torch.where(torch.isfinite(lb), lb, 0.0).sum()
            loss.backward()
            opt.step()
            sched.step()
            for s in slopes.values():
                s.clamp_()
        return best


def _check(model, x, eps, method):
    if not isinstance(model, torch.nn.Module):
        raise TypeError(f"model must be an nn.Module, got {type(model).__name__}")
    if not isinstance(x, torch.Tensor) or x.dtype not in (torch.float32, torch.float64):
        raise TypeError("x must be a float32 or float64 tensor [batch, ...]")
    if x.dim() < 2:
        raise ValueError(f"x must have a batch dimension: [batch, ...]; got shape {tuple(x.shape)}")
    if method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(METHODS)}; got {method!r}")
    if isinstance(eps, torch.Tensor):
        if bool((eps < 0).any()) or not bool(torch.isfinite(eps).all()):
            raise ValueError("eps must be finite and >= 0")
    elif not (isinstance(eps, int | float) and math.isfinite(eps) and eps >= 0):
        raise ValueError(f"eps must be a finite number >= 0; got {eps!r}")


def _box(x, eps, x_min, x_max):
    x64 = x.detach().to(F64)
    e = eps.to(F64) if isinstance(eps, torch.Tensor) else float(eps)
    xl, xu = x64 - e, x64 + e
    if x_min is not None:
        xl = torch.clamp(xl, min=x_min)
    if x_max is not None:
        xu = torch.clamp(xu, max=x_max)
    # x - eps, x + eps rounded in float64: widen by one ulp so the box holds the real ball
    return torch.nextafter(xl, torch.full_like(xl, -math.inf)), torch.nextafter(xu, torch.full_like(xu, math.inf))


_CACHE: dict[tuple, Propagator] = {}


def _fingerprint(model: torch.nn.Module) -> tuple:
    # in-place updates (optimizer steps) bump _version: a trained model is traced again
    return tuple((t.data_ptr(), t._version) for t in (*model.parameters(), *model.buffers()))


def propagator(model: torch.nn.Module, x: torch.Tensor) -> Propagator:
    """The traced model, reused while its weights are unchanged."""
    key = (id(model), tuple(x.shape[1:]), _fingerprint(model))
    p = _CACHE.get(key)
    if p is None or p.model is not model:
        p = Propagator(model, x.detach()[:1].to(next(iter(model.parameters()), x).dtype))
        _CACHE.clear()
        _CACHE[key] = p
    return p


def bounds(
    model: torch.nn.Module,
    x: torch.Tensor,
    eps: float | torch.Tensor,
    method: str = "crown",
    *,
    x_min: float | None = None,
    x_max: float | None = None,
    steps: int = 20,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Sound lower and upper bounds of model(x') for every x' with |x' - x|_inf <= eps (clipped to
    [x_min, x_max] if given), per sample: two tensors shaped like model(x).

    `method`: "ibp", "crown" or "alpha-crown" (`steps` of Adam on the slopes). The model's weights are
    read when this is called (eval mode). float64 models give float64 bounds; others float32, rounded outward.
    """
    _check(model, x, eps, method)
    p = propagator(model, x)
    xl, xu = _box(x, eps, x_min, x_max)
    out_shape = p.ops[-1].shape
    n = math.prod(out_shape)
    B = x.shape[0]
    eye = torch.eye(n, dtype=F64).reshape(n, *out_shape)
    C = torch.cat([eye, -eye])[None].expand(B, -1, *out_shape)
    lb = p.spec_bounds(xl, xu, C, method, steps=steps, groups=2)
    lo, hi = lb[:, :n].reshape(B, *out_shape), (-lb[:, n:]).reshape(B, *out_shape)
    lo, hi = torch.maximum(lo, p.output_ibp.lo), torch.minimum(hi, p.output_ibp.hi)
    return outward(lo, hi, F64 if x.dtype == F64 else torch.float32)


def margin_bounds(
    model: torch.nn.Module,
    x: torch.Tensor,
    y: torch.Tensor,
    eps: float | torch.Tensor,
    method: str = "crown",
    *,
    x_min: float | None = None,
    x_max: float | None = None,
    steps: int = 20,
) -> torch.Tensor:
    """Lower bounds of logit[y] - logit[j] over the ball, [batch, classes]; the entry j = y is +inf, so a
    sample is certified when every entry is > 0."""
    _check(model, x, eps, method)
    p = propagator(model, x)
    out_shape = p.ops[-1].shape
    if len(out_shape) != 1:
        raise ValueError(
            f"margin_bounds needs logits [batch, classes]; the model outputs {tuple(out_shape)} per sample"
        )
    K = out_shape[0]
    if not isinstance(y, torch.Tensor) or y.dtype not in (torch.int64, torch.int32) or y.shape != x.shape[:1]:
        raise TypeError(f"y must be an integer tensor of shape [{x.shape[0]}] (one label per sample)")
    if bool(((y < 0) | (y >= K)).any()):
        raise ValueError(f"y has labels outside 0..{K - 1}")
    xl, xu = _box(x, eps, x_min, x_max)
    eye = torch.eye(K, dtype=F64)
    C = eye[y][:, None, :] - eye[None]  # [B, K, K]: row j = e_y - e_j
    lb = p.spec_bounds(xl, xu, C, method, steps=steps)
    lb = torch.where(torch.arange(K)[None] == y[:, None], math.inf, lb)
    lo, _ = outward(lb, lb, F64 if x.dtype == F64 else torch.float32)
    return lo


def certified_accuracy(
    model: torch.nn.Module,
    x: torch.Tensor,
    y: torch.Tensor,
    eps: float,
    method: str = "crown",
    **kwargs,
) -> float:
    """Fraction of samples whose prediction is y and provably stays y over the whole eps-ball."""
    m = margin_bounds(model, x, y, eps, method, **kwargs)
    with torch.no_grad():
        pred = model.eval()(x).argmax(-1)
    ok = (m > 0).all(-1) & (pred == y)
    return float(ok.float().mean()) if len(ok) else float("nan")
