#!/bin/bash
# alternate base (acb3211's src) and new (this checkout's src), the benchmark driver from this checkout
cd /work/main
for i in 1 2; do
  for tag in base new; do
    if [ $tag = base ]; then src=/tmp/wt_base/src; else src=/work/main/src; fi
    for spec in "elu:alpha=0.5" "celu:alpha=2.0" "softplus:beta=2.0" "softplus:beta=100.0" "selu:" "xielu:" "relu_pow:" "helu:" "nlrelu:" "shifted_softplus:"; do
      e=${spec%%:*}; p=${spec#*:}
      PYTHONPATH=$src TORCHINDUCTOR_CACHE_DIR=/tmp/exp/ind_$tag python benchmarks/kernels.py --entries $e ${p:+--params $p} \
        --dtypes float32 --threads 1 --skip eager fused --rounds 5 --shapes 1024x4096 --keep-freed-memory \
        --markdown /tmp/exp/params_ab/${tag}_${i}_${e}_${p}.md > /dev/null 2>&1
      echo "$tag $i $e $p rc=$?"
    done
  done
done
