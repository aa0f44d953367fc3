#!/bin/bash
# Keyword calls at 32K after route.settled_with: the session's base (ac8b3ba's src at /tmp/wt_base) against this
# checkout's src, alternating, the benchmark driver of this checkout for both; float32 64x512.
#   git worktree add -f /tmp/wt_base ac8b3ba && bash notes/2026-12-06d/ab_keywords/ab.sh
#   python notes/2026-12-06d/ab/summary.py notes/2026-12-06d/ab_keywords
cd /work/main
OUT=notes/2026-12-06d/ab_keywords
for i in 1 2; do
  for tag in base new; do
    if [ $tag = base ]; then src=/tmp/wt_base/src; else src=/work/main/src; fi
    for spec in "elu:alpha=0.5:float32" "softplus:beta=2.0:float32" "leaky_relu:alpha=0.2:float32"; do
      IFS=: read -r e p d <<< "$spec"
      PYTHONPATH=$src TORCHINDUCTOR_CACHE_DIR=/tmp/exp/ind_$tag python benchmarks/kernels.py --entries $e ${p:+--params $p} \
        --dtypes $d --threads 1 --skip eager fused compile compiled_model --rounds 5 --shapes 64x512 --keep-freed-memory \
        --markdown $OUT/${tag}_${i}_${e}_${p}_${d}.md > /dev/null 2>&1
      echo "$tag $i $e $p $d rc=$?"
    done
  done
done
