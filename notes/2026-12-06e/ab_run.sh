#!/bin/bash
# The A/B runner of this stop's notes: the session's base (e5ddd8a's src at /tmp/wt_base, or the checkout at $BASE)
# against this checkout's src, two runs alternating, the benchmark driver of this checkout for both; float32, 32K and
# 4M, five rounds, default / torch's op (or the entry's textbook where torch has none).
#   git worktree add -f /tmp/wt_base e5ddd8a && bash notes/2026-12-06e/ab_run.sh OUT SPEC...
#   python notes/2026-12-06d/ab/summary.py OUT
# SPEC: an entry, or ENTRY:NAME=VALUE[ NAME=VALUE] for other parameter values than the defaults. DTYPES: the
# benchmark's --dtypes (default float32).
cd /work/main
OUT=$1
shift
for i in 1 2; do
  for tag in base new; do
    if [ $tag = base ]; then src=${BASE:-/tmp/wt_base}/src; else src=/work/main/src; fi
    for spec in "$@"; do
      IFS=: read -r e p <<< "$spec"
      PYTHONPATH=$src TORCHINDUCTOR_CACHE_DIR=/tmp/exp/ind_$tag python benchmarks/kernels.py --entries $e ${p:+--params $p} \
        --dtypes ${DTYPES:-float32} --threads 1 --skip eager fused compile compiled_model --rounds 5 --shapes 64x512 1024x4096 \
        --keep-freed-memory --markdown "$OUT/${tag}_${i}_${e}${p:+_${p// /_}}${DTYPES:+_$DTYPES}.md" > /dev/null 2>&1
      echo "$tag $i $e $p rc=$?"
    done
  done
done
