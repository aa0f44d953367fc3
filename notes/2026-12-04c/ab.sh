#!/bin/bash
# alternate base (a2bf46c worktree) and new, N times each
ENTRIES="${ENTRIES:-sigmoid silu gelu tanh swish quick_gelu gelu_tanh clipped_gelu swiglu geglu glu}"
OUT=${OUT:-/tmp/exp/ab_out}; mkdir -p $OUT
for i in ${RUNS:-1 2}; do
  for tag in base new; do
    if [ $tag = base ]; then dir=/tmp/exp/base; else dir=/work/main; fi
    (cd $dir && PYTHONPATH=src TORCHINDUCTOR_CACHE_DIR=/tmp/exp/ind_$tag python benchmarks/kernels.py --entries $ENTRIES \
      --dtypes float32 --threads 1 --skip eager fused compile compiled_model --rounds 5 --shapes 1024x4096 64x512 \
      --keep-freed-memory --markdown $OUT/${tag}_$i.md > $OUT/${tag}_$i.log 2>&1)
    echo "$tag $i rc=$?"
  done
done
