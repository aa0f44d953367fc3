#!/bin/bash
# serf's double kernel: notes/2026-12-06e/ab_run.sh's A/B into this folder (its summary.txt by notes/2026-12-06d/ab/summary.py).
#   git worktree add -f /tmp/wt_base e5ddd8a && bash notes/2026-12-06e/ab_serf/ab.sh
exec bash /work/main/notes/2026-12-06e/ab_run.sh notes/2026-12-06e/ab_serf serf
