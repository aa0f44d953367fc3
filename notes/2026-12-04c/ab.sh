#!/bin/bash
# alternate the commit checked out in /tmp/exp/base and this checkout (or NEW), N times each; the defaults are the
# direct-call columns, float32 at 1024x4096 and 64x512 (SKIP="eager fused" adds the compiled-model columns)
ENTRIES="${ENTRIES:-sigmoid silu gelu tanh swish quick_gelu gelu_tanh clipped_gelu swiglu geglu glu}"
OUT=${OUT:-/tmp/exp/ab_out}; mkdir -p $OUT
for i in ${RUNS:-1 2}; do
  for tag in base new; do
    if [ $tag = base ]; then dir=/tmp/exp/base; else dir=${NEW:-/work/main}; fi
    (cd $dir && PYTHONPATH=src TORCHINDUCTOR_CACHE_DIR=/tmp/exp/ind_$tag python benchmarks/kernels.py --entries $ENTRIES \
      --dtypes ${DTYPES:-float32} --threads 1 --skip ${SKIP:-eager fused compile compiled_model} --rounds ${ROUNDS:-5} \
      --shapes ${SHAPES:-1024x4096 64x512} --keep-freed-memory --markdown $OUT/${tag}_$i.md > $OUT/${tag}_$i.log 2>&1)
    echo "$tag $i rc=$?"
  done
done
