#!/bin/bash
# The kernels' software prefetch on and off on this machine, everything else the same: one route profile (`nonlin
# tune --threads 1`'s) copied with "prefetch": on and off (/tmp/exp/profile_on.json, profile_off.json), two runs
# alternating, float32 (DTYPES), 32K and 4M, default / torch's op.
#   bash notes/2026-12-07b/ab_prefetch.sh OUT ENTRY...
#   python notes/2026-12-06d/ab/summary.py OUT     (base: prefetch on; new: off)
cd /work/main
OUT=$1
shift
mkdir -p "$OUT"
for i in 1 2; do
  for tag in base new; do
    if [ $tag = base ]; then profile=/tmp/exp/profile_on.json; else profile=/tmp/exp/profile_off.json; fi
    NONLIN_ROUTE_PROFILE=$profile PYTHONPATH=src python benchmarks/kernels.py --entries "$@" --dtypes ${DTYPES:-float32} \
      --threads 1 --skip eager fused compile compiled_model --rounds 5 --shapes 64x512 1024x4096 --keep-freed-memory \
      --markdown "$OUT/${tag}_${i}_all.md" > /dev/null 2>&1
    echo "$tag $i rc=$?"
  done
done
