#!/bin/bash
# glu's forward by silu's near form and its calls under torch's name settled: notes/2026-12-06e/ab_run.sh's A/B
# against this stop's base e17ea21 into this folder (its summary.txt by notes/2026-12-06d/ab/summary.py).
#   git worktree add -f /tmp/wt_prev e17ea21 && bash notes/2026-12-06h/ab_glu/ab.sh
BASE=/tmp/wt_prev exec bash /work/main/notes/2026-12-06e/ab_run.sh notes/2026-12-06h/ab_glu glu
