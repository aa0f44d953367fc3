"""Software prefetch in the inductor kernels nonlin compiles itself.

nonlin's kernels compute more per element than torch's (float64 arithmetic for float32 inputs, error-free
transformations): 20-60 cycles per vector. Measured on an AVX-512 machine (one core, 4M float32 beyond L2
against 256K in L2), such loops ran 1.5-2.4x slower than in cache (cosine's forward 3.8 against 1.6 ns per
element, gelu's hand-written one 3.4 against 1.7), where the arithmetic alone predicts no difference: the
hardware prefetchers did not run far enough ahead of a loop this slow to hide the latency beyond L2 (there a
480 MiB L3, then memory). A prefetch of each streamed input (and output, for writing) 8 KiB ahead of the loop
brings both to the in-cache time.

`with_prefetch(source)` adds one `__builtin_prefetch` (GCC's and Clang's) before every vector load and store of
a kernel's pointer arguments (`in_ptrN`, `out_ptrN`, `in_out_ptrN`) at the address the loop reaches 8 KiB later.
A prefetch changes no value and never faults (also past an array's end), so the kernel's bits are unchanged
(tests/kernels/test_prefetch.py). kernels/native32.py's hand-written loops carry their own (`ahead`).
"""

from __future__ import annotations

import re

AHEAD_BYTES = 8192
_POINTER = re.compile(r"(?:in_ptr|out_ptr|in_out_ptr)\d+\s*\+")
_ACCESS = re.compile(r"(::loadu\(|\.store\()")
prefetched_sources = 0  # kernels that got prefetches (tests read it)
# GCC's and Clang's builtin; another compiler (MSVC) builds the kernel as it was
_DEFINE = """#if defined(__GNUC__) || defined(__clang__)
#define NONLIN_PREFETCH(address, write) __builtin_prefetch(reinterpret_cast<const char*>(address) + AHEAD, write)
#else
#define NONLIN_PREFETCH(address, write)
#endif
""".replace("AHEAD", str(AHEAD_BYTES))


def _first_argument(source: str, start: int) -> str | None:
    """The first argument of the call whose '(' is just before `start`, or None where it does not close."""
    depth = 0
    for i in range(start, len(source)):
        c = source[i]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            if depth == 0:
                return source[start:i]
            depth -= 1
        elif c == "," and depth == 0:
            return source[start:i]
    return None


def with_prefetch(source: str) -> str:
    """`source` (an inductor C++ kernel) with a prefetch before each statement that loads or stores a vector at
    a pointer argument plus an offset."""
    global prefetched_sources
    lines = source.split("\n")
    out: list[str] = []
    for line in lines:
        for m in _ACCESS.finditer(line):
            address = _first_argument(line, m.end())
            if address is None or not _POINTER.match(address.strip()):
                continue
            write = 1 if m.group(1) == ".store(" else 0
            indent = line[: len(line) - len(line.lstrip())]
            out.append(f"{indent}NONLIN_PREFETCH({address.strip()}, {write});")
        out.append(line)
    if len(out) == len(lines):
        return source
    prefetched_sources += 1
    return _DEFINE + "\n".join(out)
