#!/bin/bash
# This stop's A/B: the session's base (ac8b3ba's src, a worktree at /tmp/wt_base) against this checkout's src,
# alternating, the benchmark driver of this checkout for both; 4M and 32K: float32 elu and softplus at other
# values than their defaults (the parametrized kernels; celu at alpha 2, unchanged, a control) and float64 silu
# and swish (the fused route's tail shift). `python notes/2026-12-06d/ab/summary.py` sets them side by side.
#   git worktree add -f /tmp/wt_base ac8b3ba && bash notes/2026-12-06d/ab/ab.sh
cd /work/main
OUT=notes/2026-12-06d/ab
for i in 1 2; do
  for tag in base new; do
    if [ $tag = base ]; then src=/tmp/wt_base/src; else src=/work/main/src; fi
    for spec in "elu:alpha=0.5:float32" "elu:alpha=2.0:float32" "softplus:beta=2.0:float32" "softplus:beta=100.0:float32" "celu:alpha=2.0:float32" "silu::float64" "swish::float64"; do
      IFS=: read -r e p d <<< "$spec"
      PYTHONPATH=$src TORCHINDUCTOR_CACHE_DIR=/tmp/exp/ind_$tag python benchmarks/kernels.py --entries $e ${p:+--params $p} \
        --dtypes $d --threads 1 --skip eager fused --rounds 5 --shapes 1024x4096 64x512 --keep-freed-memory \
        --markdown $OUT/${tag}_${i}_${e}_${p}_${d}.md > /dev/null 2>&1
      echo "$tag $i $e $p $d rc=$?"
    done
  done
done
