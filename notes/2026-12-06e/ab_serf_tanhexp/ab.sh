#!/bin/bash
# serf's and tanhexp's interval tables: the session's base (e5ddd8a's src at /tmp/wt_base) against this checkout's
# src, alternating, the benchmark driver of this checkout for both; float32, 32K and 4M, default / torch's textbook (the entries' torch_equivalent).
#   git worktree add -f /tmp/wt_base e5ddd8a && bash notes/2026-12-06e/ab_serf_tanhexp/ab.sh
#   python notes/2026-12-06d/ab/summary.py notes/2026-12-06e/ab_serf_tanhexp
cd /work/main
OUT=notes/2026-12-06e/ab_serf_tanhexp
for i in 1 2; do
  for tag in base new; do
    if [ $tag = base ]; then src=/tmp/wt_base/src; else src=/work/main/src; fi
    for E in serf tanhexp; do PYTHONPATH=$src TORCHINDUCTOR_CACHE_DIR=/tmp/exp/ind_$tag python benchmarks/kernels.py --entries $E \
      --dtypes float32 --threads 1 --skip eager fused compile compiled_model --rounds 5 --shapes 64x512 1024x4096 \
      --keep-freed-memory --markdown "$OUT/${tag}_${i}_$E.md" > /dev/null 2>&1
    echo "$tag $i $E rc=$?"; done
  done
done
