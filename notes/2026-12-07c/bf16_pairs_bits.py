"""hardswish's bfloat16 kernels (native32 HALF_FORMS) against the table's lookup at all 65536 inputs (forward), and
their outputs saved to / compared with a file (backward on 2^22 random pairs plus every input with go = 1, and
odd lengths and offsets for the tails). PYTHONPATH=src python notes/2026-12-07c/bf16_pairs_bits.py save|compare FILE"""

import sys

import torch

import nonlin
from nonlin.kernels import native32, table

spec = nonlin.spec("hardswish")
lookup = table.Table(spec, torch.bfloat16, spec.defaults(), True)
values = lookup.widened_values()
every = table.all_values(torch.bfloat16)
outs = {}
with torch.no_grad():
    y = native32.half_forward("hardswish", every, values)
    ref = lookup.forward(every)
    same = (y.view(torch.int16) == ref.view(torch.int16)) | (y.isnan() & ref.isnan())
    print("forward equal to the lookup at every input:", bool(same.all()), int((~same).sum()))
    outs["fwd_all"] = y
    gen = torch.Generator().manual_seed(1)
    bits = torch.randint(-32768, 32768, (2, 1 << 22), generator=gen, dtype=torch.int32).to(torch.int16)
    go, x = bits[0].view(torch.bfloat16), bits[1].view(torch.bfloat16)
    outs["bwd_random"] = native32.half_backward("hardswish", go, x)
    outs["bwd_ones"] = native32.half_backward("hardswish", torch.ones_like(every), every)
    for n in (1, 15, 16, 17, 31, 32, 33, 47, 63, 64, 65, 100):
        for off in (0, 1, 3):
            outs[f"fwd_{n}_{off}"] = native32.half_forward("hardswish", every[off : off + n].clone(), values)
            outs[f"bwd_{n}_{off}"] = native32.half_backward(
                "hardswish", go[off : off + n].clone(), x[off : off + n].clone()
            )
if sys.argv[1] == "save":
    torch.save(outs, sys.argv[2])
else:
    old = torch.load(sys.argv[2])
    bad = [k for k in outs if not torch.equal(outs[k].view(torch.int16), old[k].view(torch.int16))]
    print("differing from the saved outputs:", bad or "none", "of", len(outs))
