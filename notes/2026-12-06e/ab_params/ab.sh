#!/bin/bash
# torch's op at other parameter values (route.Native.params): notes/2026-12-06e/ab_run.sh's A/B into this folder (its summary.txt by notes/2026-12-06d/ab/summary.py).
#   git worktree add -f /tmp/wt_base e5ddd8a && bash notes/2026-12-06e/ab_params/ab.sh
exec bash /work/main/notes/2026-12-06e/ab_run.sh notes/2026-12-06e/ab_params 'leaky_relu:alpha=0.2' 'hardtanh:min_val=-2.0 max_val=2.0' 'threshold:threshold=0.5 value=-1.0'
