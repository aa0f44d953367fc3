#!/bin/bash
# hardswish in bfloat16 by native32's float32 forms around bfloat16 loads and stores (this stop's d2d936d) against
# the lookup of this stop's base 6bdb64b: notes/2026-12-06e/ab_run.sh's A/B in bfloat16 into this folder (its
# summary.txt by notes/2026-12-06d/ab/summary.py).
#   git worktree add -f /tmp/wt_prev 6bdb64b && bash notes/2026-12-07a/ab_hardswish_bf16/ab.sh
BASE=/tmp/wt_prev DTYPES=bfloat16 exec bash /work/main/notes/2026-12-06e/ab_run.sh notes/2026-12-07a/ab_hardswish_bf16 hardswish
