#!/bin/bash
# Gated kernels reading the packed tensor in place, outputs allocated without torch.Size parsing, and sigma_grad's
# range check in mask registers: notes/2026-12-06e/ab_run.sh's A/B against this stop's base 6bdb64b into this
# folder (its summary.txt by notes/2026-12-06d/ab/summary.py).
#   git worktree add -f /tmp/wt_prev 6bdb64b && bash notes/2026-12-07a/ab_packed/ab.sh
BASE=/tmp/wt_prev exec bash /work/main/notes/2026-12-06e/ab_run.sh notes/2026-12-07a/ab_packed glu swiglu geglu sigmoid
