#!/bin/bash
# log_ndtr, lecun_tanh and sqrtsoftplus from interval tables: notes/2026-12-06e/ab_run.sh's A/B against this stop's
# base 3b58017 into this folder (its summary.txt by notes/2026-12-06d/ab/summary.py).
#   git worktree add -f /tmp/wt_prev 3b58017 && bash notes/2026-12-06f/ab_tables/ab.sh
BASE=/tmp/wt_prev exec bash /work/main/notes/2026-12-06e/ab_run.sh notes/2026-12-06f/ab_tables log_ndtr lecun_tanh sqrtsoftplus
