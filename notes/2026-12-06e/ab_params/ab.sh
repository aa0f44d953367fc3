#!/bin/bash
# Calls at other parameter values than the defaults on rows whose torch op holds there (route.Native.params): the
# session's base (e5ddd8a's src at /tmp/wt_base) against this checkout's src, alternating, the benchmark driver of
# this checkout for both; float32, 32K and 4M.
#   git worktree add -f /tmp/wt_base e5ddd8a && bash notes/2026-12-06e/ab_params/ab.sh
#   python notes/2026-12-06d/ab/summary.py notes/2026-12-06e/ab_params
cd /work/main
OUT=notes/2026-12-06e/ab_params
for i in 1 2; do
  for tag in base new; do
    if [ $tag = base ]; then src=/tmp/wt_base/src; else src=/work/main/src; fi
    for spec in "leaky_relu:alpha=0.2" "hardtanh:min_val=-2.0 max_val=2.0" "threshold:threshold=0.5 value=-1.0"; do
      IFS=: read -r e p <<< "$spec"
      PYTHONPATH=$src TORCHINDUCTOR_CACHE_DIR=/tmp/exp/ind_$tag python benchmarks/kernels.py --entries $e --params $p \
        --dtypes float32 --threads 1 --skip eager fused compile compiled_model --rounds 5 --shapes 64x512 1024x4096 \
        --keep-freed-memory --markdown "$OUT/${tag}_${i}_${e}_${p// /_}.md" > /dev/null 2>&1
      echo "$tag $i $e $p rc=$?"
    done
  done
done
