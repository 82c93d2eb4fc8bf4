"""Tiny random-init Hugging Face models under ``pellucid.prepare_debug``: does every frame decompile?

Usage::

    python benchmarks/hf_models.py [--models mistral,t5,...] [--backends eager,aot_eager]
                                   [--mode auto|generate|forward]

Each model (a ``transformers`` architecture with a tiny config: 2 layers, hidden 64; nothing
is downloaded) runs in a fresh process, once eagerly and once compiled inside
``prepare_debug``.  Decoder and encoder-decoder models run ``generate()`` (3 new tokens, greedy:
many frames, graph breaks, resume functions); encoders run a forward pass.  Columns:

* *frames*: frames whose bytecode Dynamo transformed (one bytecode-hook call each);
* *from file*: those the program executed from their decompiled ``__transformed_code_`` file;
* *equiv*: those whose file the translation validator proved equivalent to Dynamo's bytecode
  (only those run from their files; the others are listed with the validator's reason);
* *val ms*: the validator's mean time per frame, in milliseconds;
* *failures*: entries in the index's failure list (decompile, write, graph, ...);
* *resume src*: ``full_code`` files that show a resume function as "not decompiled" (0 is right);
* *result*: ``same`` when the compiled outputs equal the eager ones, else what differed;
* *s*: wall time of the compiled run.

Needs the main venv (torch 2.13, transformers); the dumps go to a temporary directory.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

from page import about_from_doc, markdown_page
from page import add_option as add_markdown_option
from torch_venvs import MAIN_PYTHON, parse_torch_option

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# name -> (kind, transformers config class, model class, config keywords)
_DECODER = dict(vocab_size=100, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                num_attention_heads=4, pad_token_id=0, eos_token_id=1, bos_token_id=2)
MODELS: dict[str, tuple[str, str, str, dict]] = {
    "mistral": ("generate", "MistralConfig", "MistralForCausalLM", {**_DECODER, "num_key_value_heads": 2}),
    "qwen2": ("generate", "Qwen2Config", "Qwen2ForCausalLM", {**_DECODER, "num_key_value_heads": 2}),
    "phi": ("generate", "PhiConfig", "PhiForCausalLM", _DECODER),
    "gemma": ("generate", "GemmaConfig", "GemmaForCausalLM",
              {**_DECODER, "num_key_value_heads": 2, "head_dim": 16}),
    "gpt_neox": ("generate", "GPTNeoXConfig", "GPTNeoXForCausalLM", _DECODER),
    "falcon": ("generate", "FalconConfig", "FalconForCausalLM", _DECODER),
    "opt": ("generate", "OPTConfig", "OPTForCausalLM",
            dict(vocab_size=100, hidden_size=64, ffn_dim=128, num_hidden_layers=2,
                 num_attention_heads=4, word_embed_proj_dim=64, max_position_embeddings=64,
                 pad_token_id=0, eos_token_id=1, bos_token_id=2)),
    "bloom": ("generate", "BloomConfig", "BloomForCausalLM",
              dict(vocab_size=100, hidden_size=64, n_layer=2, n_head=4, pad_token_id=0,
                   eos_token_id=1, bos_token_id=2)),
    "t5": ("generate", "T5Config", "T5ForConditionalGeneration",
           dict(vocab_size=100, d_model=64, d_kv=16, d_ff=128, num_layers=2, num_heads=4,
                decoder_start_token_id=0, pad_token_id=0, eos_token_id=1)),
    "bart": ("generate", "BartConfig", "BartForConditionalGeneration",
             dict(vocab_size=100, d_model=64, encoder_layers=2, decoder_layers=2,
                  encoder_attention_heads=4, decoder_attention_heads=4, encoder_ffn_dim=128,
                  decoder_ffn_dim=128, max_position_embeddings=64, pad_token_id=0,
                  eos_token_id=1, bos_token_id=2, decoder_start_token_id=2)),
    "roberta": ("forward", "RobertaConfig", "RobertaModel",
                dict(vocab_size=100, hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
                     intermediate_size=128, max_position_embeddings=64)),
    "distilbert": ("forward", "DistilBertConfig", "DistilBertModel",
                   dict(vocab_size=100, dim=64, n_layers=2, n_heads=4, hidden_dim=128,
                        max_position_embeddings=64)),
    "albert": ("forward", "AlbertConfig", "AlbertModel",
               dict(vocab_size=100, embedding_size=32, hidden_size=64, num_hidden_layers=2,
                    num_attention_heads=4, intermediate_size=128, max_position_embeddings=64)),
    "electra": ("forward", "ElectraConfig", "ElectraModel",
                dict(vocab_size=100, embedding_size=32, hidden_size=64, num_hidden_layers=2,
                     num_attention_heads=4, intermediate_size=128, max_position_embeddings=64)),
    "vit": ("forward", "ViTConfig", "ViTModel",
            dict(hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
                 intermediate_size=128, image_size=32, patch_size=8)),
}

# One model in a fresh interpreter; prints RESULT <json>.
CHILD = r"""
import json, os, sys, time, warnings
warnings.simplefilter("ignore")
import torch
torch.set_num_threads(1)
import transformers
import pellucid
from pellucid.decompiler import validate as _validator
_times = []
_validate = _validator.validate
def _timed(*a, **k):
    t0 = time.perf_counter()
    try:
        return _validate(*a, **k)
    finally:
        _times.append(time.perf_counter() - t0)
_validator.validate = _timed
name, backend, mode, kind, cfg_cls, model_cls, kwargs, dump = sys.argv[1:9]
sys.path.insert(0, os.path.join({root!r}, "tests", "dynamo"))
from workloads import assert_same
torch.manual_seed(0)
cfg = getattr(transformers, cfg_cls)(**json.loads(kwargs))
model = getattr(transformers, model_cls)(cfg).eval()
if mode == "auto":
    mode = kind
if mode == "generate":
    ids = torch.randint(3, 100, (1, 6))
    target = lambda x: model.generate(x, max_new_tokens=3, do_sample=False)
    call = lambda f: [f(ids)]
elif model_cls == "ViTModel":
    x = torch.randn(1, 3, 32, 32)
    target = model
    call = lambda f: [f(pixel_values=x).last_hidden_state.detach()]
else:
    ids = torch.randint(3, 100, (2, 8))
    target = model
    call = lambda f: [f(input_ids=ids).last_hidden_state.detach()]
expected = call(target)
torch._dynamo.reset()
compiled = torch.compile(target, backend=backend)
t0 = time.perf_counter()
with pellucid.prepare_debug(dump):
    got = call(compiled)
wall = time.perf_counter() - t0
with open(os.path.join(dump, "index.json"), encoding="utf-8") as f:
    s = json.load(f)["sessions"][-1]
not_decompiled = 0
for fn in os.listdir(dump):
    if fn.startswith("full_code_for_"):
        with open(os.path.join(dump, fn), encoding="utf-8") as f:
            not_decompiled += f.read().count("# (not decompiled:")
try:
    assert_same(got, expected, atol=1e-4)
    result = "same"
except AssertionError as e:
    result = ("DIFFERENT " + str(e))[:60]
print("RESULT " + json.dumps({{
    "frames": len(s["compiles"]),
    "from_file": sum(c["executed_from_file"] for c in s["compiles"]),
    "equivalent": sum(c.get("verification") == "equivalent" for c in s["compiles"]),
    "not_verified": [c["function"].split("@")[0] + ": " + c["verification"][:160]
                     for c in s["compiles"] if c.get("verification") not in (None, "equivalent")],
    "validate_ms": 1000 * sum(_times) / len(_times) if _times else 0.0,
    "failures": [f["kind"] + ": " + f["reason"][:120] for f in s["failures"]],
    "not_decompiled": not_decompiled, "result": result, "wall": wall,
}}))
"""


def run_one(name: str, backend: str, mode: str, python: str = sys.executable) -> dict:
    kind, cfg_cls, model_cls, kwargs = MODELS[name]
    with tempfile.TemporaryDirectory() as tmp:
        argv = [python, "-c", CHILD.format(root=ROOT), name, backend, mode, kind,
                cfg_cls, model_cls, json.dumps(kwargs), os.path.join(tmp, "dump")]
        env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "src"))
        try:
            p = subprocess.run(argv, capture_output=True, text=True, timeout=900, env=env)
        except subprocess.TimeoutExpired:
            return {"error": "timeout"}
    for line in p.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[len("RESULT "):])
    return {"error": (p.stderr.strip().splitlines() or ["no output"])[-1][:100]}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument("--backends", default="eager")
    ap.add_argument("--mode", default="auto", choices=["auto", "generate", "forward"])
    ap.add_argument(
        "--torch",
        metavar="VERSIONS",
        help="'all' or e.g. 2.13.0,2.15.0@3.14: one column per torch release and CPython "
        "(the venvs scripts/setup.sh makes; Python 3.11 unless @ says)",
    )
    add_markdown_option(ap)
    args = ap.parse_args()
    if args.torch:
        releases = parse_torch_option(args.torch)
        title = "Tiny Hugging Face models under prepare_debug, per torch release"
        with markdown_page(args.markdown, title, about_from_doc(__doc__)):
            return torch_matrix(
                args.models.split(","), args.backends.split(","), args.mode, releases
            )
    title = "Tiny Hugging Face models under prepare_debug"
    with markdown_page(args.markdown, title, about_from_doc(__doc__)):
        return run(args)


def run(args: argparse.Namespace) -> int:
    """Each model and backend in a fresh process; 1 when any row is not right."""
    print(f"{'model':12s} {'backend':10s} {'frames':>6s} {'from file':>9s} {'equiv':>5s} "
          f"{'val ms':>6s} {'failures':>8s} {'resume src':>10s} {'s':>6s}  result")
    bad = 0
    for backend in args.backends.split(","):
        for name in args.models.split(","):
            r = run_one(name, backend, args.mode)
            if "error" in r:
                bad += 1
                print(f"{name:12s} {backend:10s} {'error':>6s}  {r['error']}")
                continue
            ok = _all_right(r)
            bad += not ok
            print(f"{name:12s} {backend:10s} {r['frames']:6d} {r['from_file']:9d} "
                  f"{r['equivalent']:5d} {r['validate_ms']:6.1f} "
                  f"{len(r['failures']):8d} {r['not_decompiled']:10d} {r['wall']:6.1f}  {r['result']}")
            for f in r["failures"]:
                print(f"    {f}")
            for f in r["not_verified"]:
                print(f"    {f}")
            sys.stdout.flush()
    return 1 if bad else 0


def _all_right(r: dict) -> bool:
    """Every frame proven and run from its file, nothing failed, the eager result."""
    return (r["from_file"] == r["frames"] == r["equivalent"] and not r["failures"]
            and not r["not_decompiled"] and r["result"] == "same")


def _cell(r: dict) -> tuple[str, bool]:
    """A matrix cell (frames from file / frames, result) and whether it is all right."""
    if "error" in r:
        return f"error {r['error'][:20]}", False
    ok = _all_right(r)
    text = f"{r['from_file']}/{r['frames']} eq {r['equivalent']} {r['result'][:12]}"
    if r["failures"] or r["not_decompiled"]:
        text += f" f{len(r['failures'])} r{r['not_decompiled']}"
    return text, ok


def torch_matrix(models: list[str], backends: list[str], mode: str,
                 releases: list[tuple[str, str]]) -> int:
    """One row per model and backend, one column per torch release."""
    header = f"{'model':12s} {'backend':10s}" + "".join(f" | {'torch ' + v:>22s}" for v, _ in releases)
    print("cell: frames run from file / frames transformed, frames proven equivalent, result "
          "(fN: N index failures, rN: N resume functions not decompiled); Python "
          f"{MAIN_PYTHON} unless the column says\n")
    print(header)
    print("-" * len(header))
    bad = {v: 0 for v, _ in releases}
    for backend in backends:
        for name in models:
            line = f"{name:12s} {backend:10s}"
            for version, python in releases:
                text, ok = _cell(run_one(name, backend, mode, python))
                bad[version] += not ok
                line += f" | {text:>22s}"
            print(line, flush=True)
    print("-" * len(header))
    for version, n in bad.items():
        print(f"torch {version}: {len(models) * len(backends) - n} of "
              f"{len(models) * len(backends)} runs had every frame from its file, eager results")
    return 1 if any(bad.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
