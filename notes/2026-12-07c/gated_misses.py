"""clamped_swiglu and swiglustep on bfloat16: the pairs of `nonlin check`'s bfloat16 set where nonlin.functional
misses the correctly rounded reference, counted by |g| (unpinned, these 65283-element calls are small: the first
ones take the eager route, whose misses these are). PYTHONPATH=src python notes/2026-12-07c/gated_misses.py"""

import importlib

import numpy as np
import torch

import nonlin
import nonlin.functional as F
from nonlin.accuracy.formats import BFLOAT16

check = importlib.import_module("nonlin.accuracy.check")  # (the module, not the function nonlin.accuracy exports)
for name in ("clamped_swiglu", "swiglustep"):
    s = nonlin.spec(name)
    inputs, refs, _ = check.reference(s, s.defaults(), BFLOAT16)
    g, v = (torch.from_numpy(a).to(torch.bfloat16) for a in inputs)
    with torch.no_grad():
        y = F.function(name)(g, v).float().numpy()
    rounded = np.asarray(next(iter(refs.values())).rounded)
    miss = ~((y == rounded) | (np.isnan(y) & np.isnan(rounded)))
    ag = np.abs(inputs[0][miss])
    print(name, int(miss.sum()), "of", len(y), "missed;", "|g| < 2^-24:", int((ag < 2**-24).sum()),
          "2^-24 to 2^-8:", int(((ag >= 2**-24) & (ag < 2**-8)).sum()), "from 2^-8:", int((ag >= 2**-8).sum()))  # fmt: skip
