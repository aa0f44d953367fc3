"""Accuracy in ULPs of every implementation of every nonlinearity, against a correctly rounded reference.

    from nonlin.accuracy import check
    report = check("mish", impl=torch.nn.functional.mish, dtypes=("float32", "bfloat16"))
    report.max_ulp, report.worst_inputs, report.to_json(), report.plot("mish.png")

See docs/accuracy.md for the definitions (ULP, correct rounding, non-finite mismatches), the inputs
(exhaustive bf16/fp16, a stratified float32 sample) and how the reference is computed and cached.
"""

from nonlin.accuracy.check import DEFAULT_DTYPES, check, check_many, reference, resolve_impl
from nonlin.accuracy.formats import BFLOAT16, FLOAT16, FLOAT32, FORMATS, Format, get_format
from nonlin.accuracy.metric import NONFINITE_KINDS, Stats, measure, ulp_error
from nonlin.accuracy.report import GOALS, Report, html_page, markdown_table

__all__ = [
    "BFLOAT16",
    "DEFAULT_DTYPES",
    "FLOAT16",
    "FLOAT32",
    "FORMATS",
    "GOALS",
    "NONFINITE_KINDS",
    "Format",
    "Report",
    "Stats",
    "check",
    "check_many",
    "get_format",
    "html_page",
    "markdown_table",
    "measure",
    "reference",
    "resolve_impl",
    "ulp_error",
]
