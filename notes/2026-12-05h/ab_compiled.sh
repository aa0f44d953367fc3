#!/bin/bash
# The compiled-model column (torch.compile of a model calling nonlin, against torch.compile of the textbook
# formula), alternating the commit in /tmp/exp/base and this checkout, RUNS times each, float32 at 4M.
#   ENTRIES="swiglu geglu" OUT=/tmp/exp/X RUNS="1 2" bash notes/2026-12-05h/ab_compiled.sh
ENTRIES="${ENTRIES:-swiglu geglu glu gtu swiglustep}"
OUT=${OUT:-/tmp/exp/ab_compiled}; mkdir -p $OUT
for i in ${RUNS:-1 2}; do
  for tag in base new; do
    if [ $tag = base ]; then dir=/tmp/exp/base; else dir=/work/main; fi
    (cd $dir && PYTHONPATH=src TORCHINDUCTOR_CACHE_DIR=/tmp/exp/ind_$tag python benchmarks/kernels.py --entries $ENTRIES \
      --dtypes ${DTYPES:-float32} --threads 1 --skip eager fused --rounds 3 --shapes ${SHAPES:-1024x4096} \
      --keep-freed-memory --markdown $OUT/${tag}_$i.md > $OUT/${tag}_$i.log 2>&1)
    echo "$tag $i rc=$?"
  done
done
