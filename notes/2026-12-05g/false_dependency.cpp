// vpmovm2d's false dependency on its destination, measured alone: a chain of six dependent vaddps on zmm0 per
// iteration, opened by an instruction that writes zmm0. Where that instruction waits on zmm0's previous value
// (the last iteration's chain), the iterations run one after another; where it does not, the core overlaps them.
//
//   g++ -O2 -mavx512f -mavx512dq -mavx512bw -o /tmp/false_dependency notes/2026-12-05g/false_dependency.cpp
//   /tmp/false_dependency
//
// 2026-12-05, the 2-core Xeon with AVX-512 and AMX (GCC 12 calls it rocketlake; an Intel Golden Cove core), ns per
// iteration: vpmovm2d alone 6.16 / 5.93, vpmovm2d after vpxord zeroing 0.97 / 0.95, vcvttps2dq 0.96 / 0.95,
// vrndscaleps 1.11 / 1.08, vmovaps 0.86 / 0.82, vpmovd2m then vpmovm2d 6.29 / 5.87, a true dependency through
// vcmpps 7.95 / 7.32;
// vpmovm2q 5.90 (the same false dependency), vscalefps 0.93.
#include <chrono>
#include <cstdint>
#include <cstdio>

#define CHAIN                                                                                            \
  "vaddps %%zmm0, %%zmm0, %%zmm0\n\t" "vaddps %%zmm0, %%zmm0, %%zmm0\n\t" "vaddps %%zmm0, %%zmm0, %%zmm0\n\t" \
  "vaddps %%zmm0, %%zmm0, %%zmm0\n\t" "vaddps %%zmm0, %%zmm0, %%zmm0\n\t" "vaddps %%zmm0, %%zmm0, %%zmm0\n\t"

template <int MODE> __attribute__((noinline)) double run(int64_t n) {
  auto t0 = std::chrono::steady_clock::now();
  for (int64_t i = 0; i < n; i++) {
    if constexpr (MODE == 0) asm volatile("vpmovm2d %%k1, %%zmm0\n\t" CHAIN ::: "xmm0");
    if constexpr (MODE == 1) asm volatile("vpxord %%zmm0, %%zmm0, %%zmm0\n\tvpmovm2d %%k1, %%zmm0\n\t" CHAIN ::: "xmm0");
    if constexpr (MODE == 2) asm volatile("vcvttps2dq %%zmm1, %%zmm0\n\t" CHAIN ::: "xmm0");
    if constexpr (MODE == 3) asm volatile("vrndscaleps $8, %%zmm1, %%zmm0\n\t" CHAIN ::: "xmm0");
    if constexpr (MODE == 4) asm volatile("vmovaps %%zmm1, %%zmm0\n\t" CHAIN ::: "xmm0");
    if constexpr (MODE == 5) asm volatile("vpmovd2m %%zmm1, %%k2\n\tvpmovm2d %%k2, %%zmm0\n\t" CHAIN ::: "xmm0", "k2");
    if constexpr (MODE == 7) asm volatile("vpmovm2q %%k1, %%zmm0\n\t" CHAIN ::: "xmm0");
    if constexpr (MODE == 8) asm volatile("vscalefps %%zmm1, %%zmm1, %%zmm0\n\t" CHAIN ::: "xmm0");
    if constexpr (MODE == 6) asm volatile("vcmpltps %%zmm1, %%zmm0, %%k2\n\tvpmovm2d %%k2, %%zmm0\n\t" CHAIN ::: "xmm0", "k2");
  }
  auto t1 = std::chrono::steady_clock::now();
  return std::chrono::duration<double, std::nano>(t1 - t0).count() / n;
}

int main() {
  asm volatile("vpxord %%zmm1, %%zmm1, %%zmm1\n\tkxnorw %%k1, %%k1, %%k1" ::: "xmm1", "k1");
  const int64_t n = 1 << 24;
  for (int r = 0; r < 2; r++)
    printf("vpmovm2d %.2f  zeroed first %.2f  vcvttps2dq %.2f  vrndscaleps %.2f  vmovaps %.2f  vpmovd2m+vpmovm2d %.2f"
           "  true dependency %.2f ns per iteration\n",
           run<0>(n), run<1>(n), run<2>(n), run<3>(n), run<4>(n), run<5>(n), run<6>(n));
  printf("vpmovm2q %.2f  vscalefps %.2f ns per iteration\n", run<7>(n), run<8>(n));
}
