"""In-cache A/B of the bfloat16 lookup kernel ("cur": the committed one) against the same loop in raw AVX-512
intrinsics ("alt") and a scalar loop, with torch.sigmoid of bfloat16 in the same rounds (one thread)."""

import statistics
import time

import torch
from torch._inductor.codecache import CppPythonBindingsCodeCache

from nonlin.kernels import gather as G

torch.set_num_threads(1)
pre = G._PRELUDE.replace("HALF_TYPE", "at::BFloat16") + G.FOR_BLOCKS
cur = pre + G._LOOKUP
# the lookup kernel's signature (gather._LOOKUP's), shared by the two loops compared with it
SIGNATURE = """
extern "C" void kernel(const int16_t* bits, const float* values, Half* out, int64_t rows, int64_t width,
                       int64_t s_bits, int64_t s_out, int64_t threads) {
"""
alt = (
    pre
    + SIGNATURE
    + r"""  const int32_t* vi = reinterpret_cast<const int32_t*>(values);
  for_blocks(rows, width, threads, [&](int64_t r, int64_t begin, int64_t end) {
    const int16_t* b = bits + r * s_bits;
    Half* o = out + r * s_out;
    int64_t i = begin;
    for (; i + V <= end; i += V) {
      __m512i idx = _mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i*)(b + i)));
      __m512i v = _mm512_i32gather_epi32(idx, vi, 4);
      _mm256_storeu_si256((__m256i*)(o + i), _mm512_cvtepi32_epi16(_mm512_srli_epi32(v, 16)));
    }
    for (; i < end; ++i) o[i] = Half(values[pattern(b[i])]);
  });
}
"""
)
scal = (
    pre
    + SIGNATURE
    + r"""  const uint32_t* vi = reinterpret_cast<const uint32_t*>(values);
  uint16_t* oo = reinterpret_cast<uint16_t*>(out);
  for (int64_t i = 0; i < width; ++i) oo[i] = (uint16_t)(vi[(uint16_t)bits[i]] >> 16);
}
"""
)
args = ["const int16_t*", "const float*", "at::BFloat16*", "int64_t", "int64_t", "int64_t", "int64_t", "int64_t"]
ks = {n: CppPythonBindingsCodeCache.load_pybinding(args, s) for n, s in (("cur", cur), ("alt", alt), ("scalar", scal))}
N = 32768
x = (torch.randn(N) * 3).to(torch.bfloat16)
bits = x.view(torch.int16)
values = (
    torch.sigmoid(torch.arange(-32768, 32768, dtype=torch.int32).to(torch.int16).view(torch.bfloat16).float())
    .to(torch.bfloat16)
    .float()
)
values = torch.cat([values[32768:], values[:32768]]).contiguous()
outs = {n: torch.empty(N, dtype=torch.bfloat16) for n in ks}
for n, k in ks.items():
    k(bits, values, outs[n], 1, N, N, N, 1)
print(
    "same",
    torch.equal(outs["cur"].view(torch.int16), outs["alt"].view(torch.int16)),
    torch.equal(outs["cur"].view(torch.int16), outs["scalar"].view(torch.int16)),
    torch.equal(outs["cur"], torch.sigmoid(x.float()).to(torch.bfloat16)),
)
ts = {n: [] for n in ks}
xf = x.clone()
tt = []
for _ in range(40):
    for n, k in ks.items():
        t0 = time.perf_counter()
        for _ in range(50):
            k(bits, values, outs[n], 1, N, N, N, 1)
        ts[n].append((time.perf_counter() - t0) / 50 / N * 1e9)
    t0 = time.perf_counter()
    for _ in range(50):
        torch.sigmoid(xf)
    tt.append((time.perf_counter() - t0) / 50 / N * 1e9)
print({n: round(statistics.median(v), 3) for n, v in ts.items()}, "torch.sigmoid bf16", round(statistics.median(tt), 3))
