"""Workloads for pellucid's torch.compile tests, benchmark and failure collection.

Each workload builds fresh inputs and a function to compile, and says how to run it: ``run(fn)``
returns the outputs (and gradients, for training workloads) to compare with eager.  Shapes are
small: the tests run on two CPU cores.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import torch


@dataclass
class Workload:
    name: str
    make: Callable[[], tuple[Callable[..., Any], Callable[[Callable[..., Any]], Any]]]
    compile_kwargs: dict[str, Any]
    heavy: bool = False  # transformers models: slower to compile


def _seed() -> None:
    torch.manual_seed(0)


def toy_example(a, b):
    x = a / (torch.abs(a) + 1)
    if b.sum() < 0:
        b = b * -1
    return x * b


def make_readme():
    _seed()
    inputs = [(torch.randn(10), torch.randn(10)) for _ in range(4)]

    def run(fn):
        return [fn(a, b) for a, b in inputs]

    return toy_example, run


class MLP(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc1 = torch.nn.Linear(8, 16)
        self.fc2 = torch.nn.Linear(16, 4)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


def make_mlp_backward():
    _seed()
    model = MLP()
    x = torch.randn(5, 8)
    target = torch.randn(5, 4)

    def run(fn):
        model.zero_grad()
        out = fn(x)
        loss = torch.nn.functional.mse_loss(out, target)
        loss.backward()
        return [out.detach(), loss.detach()] + [p.grad.clone() for p in model.parameters()]

    return model, run


def dynamic_fn(x, y):
    return (x * 2 + y).sin().sum(dim=0)


def make_dynamic():
    _seed()
    inputs = [(torch.randn(n, 3), torch.randn(n, 3)) for n in (2, 3, 5, 7)]

    def run(fn):
        return [fn(a, b) for a, b in inputs]

    return dynamic_fn, run


def graph_breaks(x):
    y = x.cos()
    print("pellucid graph break:", y.shape)
    n = int(y.sum().item() > 0)
    if y.mean() > 0:
        y = y + n
    else:
        y = y - n
    return y * 2


def make_graph_breaks():
    _seed()
    inputs = [torch.randn(6), torch.randn(6) - 3]

    def run(fn):
        return [fn(x) for x in inputs]

    return graph_breaks, run


def with_graph_break(x):
    y = x + 1
    with torch.no_grad():
        z = y * 2
        print("pellucid graph break inside a with block")
        z = z + 1
    return z * y


def make_with_graph_break():
    """A graph break inside `with`: Dynamo wraps the breaking call in its own try/finally
    around values already on the stack."""
    _seed()
    inputs = [torch.randn(5), torch.randn(5)]

    def run(fn):
        return [fn(x) for x in inputs]

    return with_graph_break, run


def with_branch_graph_break(x):
    with torch.no_grad():
        y = x + 1
        if y.sum() > 0:  # a data-dependent branch: a graph break inside the with
            y = y * 2
        else:
            y = y - 2
    print("pellucid graph break right after a with block")
    return y + 1


def make_with_branch_graph_break():
    """Graph breaks in an `if` test inside `with` and right after the with block: the resume
    functions enter the context manager again and jump into one branch, or jump over the
    whole with statement (decompiler/reentry.py)."""
    _seed()
    inputs = [torch.ones(5), -torch.ones(5) * 3]

    def run(fn):
        return [fn(x) for x in inputs]

    return with_branch_graph_break, run


def nested_with_graph_break(x):
    with torch.no_grad(), torch.autocast("cpu", enabled=False):
        y = x + 1
        with torch.enable_grad():
            print("pellucid graph break inside three withs")
            y = y * 2
        y = y - 1
    return y


def make_nested_with_graph_break():
    """A graph break inside three nested withs (two of them one statement): the resume function
    enters all three context managers again and jumps into the innermost body."""
    _seed()
    inputs = [torch.randn(5)]

    def run(fn):
        return [fn(x) for x in inputs]

    return nested_with_graph_break, run


def autocast_graph_break(x):
    with torch.enable_grad():
        x = x + 1
        print("pellucid graph break inside enable_grad")
        x = x * 3
    with torch.autocast("cpu"):
        y = x @ x.T
        print("pellucid graph break inside autocast")
    return y


def make_autocast_graph_break():
    """Graph breaks inside `enable_grad` and `autocast`: the second resume function unpacks
    the compiled graph's one output and keeps it on the stack, never storing it."""
    _seed()
    inputs = [torch.randn(3, 3), torch.randn(3, 3)]

    def run(fn):
        return [fn(x) for x in inputs]

    return autocast_graph_break, run


class _Counter:
    def __init__(self) -> None:
        self.count = 0
        self.history: list[Any] = []


def side_effects_graph_break(x, items, table, counter):
    items.append(x * 2)
    table["double"] = x + 1
    del table["gone"]
    counter.count += 1
    counter.history.append(x.sum())
    torch._dynamo.graph_break()
    items.insert(0, x)
    table.update(last=x)
    return x + len(items)


def make_side_effects_graph_break():
    """Mutations of a list, a dict and an object's attributes before a graph break: Dynamo
    replays them in the transformed code, with slice assignments of values it keeps on the
    stack across statements."""
    _seed()
    inputs = [torch.randn(3), torch.randn(3)]

    def run(fn):
        out = []
        for x in inputs:
            items, table, counter = [], {"gone": 0}, _Counter()
            r = fn(x, items, table, counter)
            out.append((r, items, sorted(table.items()), counter.count, counter.history))
        return out

    return side_effects_graph_break, run


def lambda_graph_break(x):
    scale = lambda t: (print("pellucid graph break inside a lambda"), t * 3)[1]  # noqa: E731
    return scale(x) + 1


def make_lambda_graph_break():
    """A graph break inside a lambda: Dynamo turns the lambda's frame into statements."""
    _seed()
    inputs = [torch.randn(4), torch.randn(4)]

    def run(fn):
        return [fn(x) for x in inputs]

    return lambda_graph_break, run


def make_optimizer_step():
    """A whole training step (forward, backward, AdamW) compiled: the optimizer's
    profiling wrapper breaks the graph inside a `with`."""
    _seed()
    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 1))
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
    x, y = torch.randn(32, 8), torch.randn(32, 1)
    state = {k: v.detach().clone() for k, v in model.state_dict().items()}

    def step():
        opt.zero_grad()
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        return loss

    def run(fn):
        model.load_state_dict(state)  # the same start for the eager and the compiled run
        opt.state.clear()
        return [fn().detach() for _ in range(3)] + [p.detach().clone() for p in model.parameters()]

    return step, run


def comprehension_graph_break(xs):
    scale = xs[0].cos() + 2
    return [print("pellucid graph break in a comprehension") or t * scale for t in xs]


def make_comprehension_graph_break():
    """A graph break inside a list comprehension: Dynamo rebuilds the comprehension's function
    from its code object (a code object passed as a value)."""
    _seed()
    inputs = [torch.randn(3), torch.randn(3)]

    def run(fn):
        return fn(inputs)

    return comprehension_graph_break, run


def make_classes_and_super():
    """Classes defined inside the compiled function and a graph break in a method that calls
    super(): Dynamo rebuilds the classes and hands the __class__ cell to the resume function."""
    _seed()

    def build_and_call(x):
        class Base(torch.nn.Module):
            def forward(self, t):
                return t + 1

        class Child(Base):
            def forward(self, t):
                print("pellucid graph break in a method using super()")
                return super().forward(t) * 2

        return Child()(x)

    inputs = [torch.randn(3)]

    def run(fn):
        return [fn(x) for x in inputs]

    return build_and_call, run


def make_closure():
    _seed()
    scale = torch.tensor(1.5)
    offset = 0.25

    def outer(x):
        counter = [0]

        def inner(y):
            counter[0] += 1
            return y * scale + offset

        z = inner(x) + inner(x.sin())
        return z, counter[0]

    inputs = [torch.randn(4) for _ in range(2)]

    def run(fn):
        return [fn(x) for x in inputs]

    return outer, run


class Scaler(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.w = torch.nn.Parameter(torch.randn(4))

    def scaled(self, x, k: float = 2.0):
        return (x * self.w).relu() * k


def make_method():
    _seed()
    m = Scaler()
    inputs = [torch.randn(3, 4) for _ in range(2)]

    def run(fn):
        return [fn(x) for x in inputs]

    return m.scaled, run


def _tiny_bert():
    from transformers import BertConfig, BertModel

    cfg = BertConfig(
        vocab_size=100,
        hidden_size=64,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=128,
        max_position_embeddings=32,
    )
    return BertModel(cfg).eval()


def _tiny_gpt2():
    from transformers import GPT2Config, GPT2LMHeadModel

    cfg = GPT2Config(
        vocab_size=100,
        n_embd=64,
        n_layer=2,
        n_head=2,
        n_positions=32,
        bos_token_id=0,
        eos_token_id=0,
    )
    return GPT2LMHeadModel(cfg).eval()


def make_bert():
    _seed()
    model = _tiny_bert()
    ids = torch.randint(0, 100, (2, 8))

    def run(fn):
        model.zero_grad()
        out = fn(input_ids=ids).last_hidden_state
        out.sum().backward()
        grads = [p.grad.clone() for p in model.parameters() if p.grad is not None]
        return [out.detach()] + grads[:4]

    return model, run


def make_gpt2():
    _seed()
    model = _tiny_gpt2()
    ids = torch.randint(0, 100, (2, 8))

    def run(fn):
        model.zero_grad()
        out = fn(input_ids=ids, labels=ids)
        out.loss.backward()
        grads = [p.grad.clone() for p in model.parameters() if p.grad is not None]
        return [out.logits.detach(), out.loss.detach()] + grads[:4]

    return model, run


def make_llama_generate():
    """Hugging Face ``generate()``: many frames, graph breaks, and resume functions that close
    over ``self`` (Dynamo lists such a free variable among the locals too)."""
    _seed()
    from transformers import LlamaConfig, LlamaForCausalLM

    cfg = LlamaConfig(
        vocab_size=100,
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        pad_token_id=0,
        eos_token_id=1,
        bos_token_id=2,
    )
    model = LlamaForCausalLM(cfg).eval()
    ids = torch.randint(3, 100, (1, 6))

    def generate(x):
        return model.generate(x, max_new_tokens=4, do_sample=False)

    def run(fn):
        return [fn(ids)]

    return generate, run


def make_match_graph_break():
    """A `match` on a string argument before a graph break: each mode is a recompile (a guard
    on the string), so the function gets several cache entries and resume functions."""
    from match_workload import match_graph_break  # (`match`: Python 3.10+ syntax)

    _seed()
    x = torch.randn(4)

    def run(fn):
        return [fn(x, m) for m in ("double", "neg", "minus", "other", "double")]

    return match_graph_break, run


class _TripleFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * 3

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * 3 + x * 0


def autograd_function_graph_break(x):
    y = _TripleFn.apply(x).sin()
    print("pellucid graph break after a custom autograd.Function")
    return (y * 2).sum()


def make_autograd_function_graph_break():
    """A custom autograd.Function traced by Dynamo, a graph break, then backward through both
    graphs: gradients must match eager."""
    _seed()
    base = torch.randn(5)

    def run(fn):
        x = base.clone().requires_grad_(True)
        loss = fn(x)
        loss.backward()
        return [loss.detach(), x.grad]

    return autograd_function_graph_break, run


def pytree_graph_break(x, acc):
    acc.add_(x)  # mutates an input: replayed after the graph
    a = x.relu() + acc
    print("pellucid graph break before a nested output")
    return {"a": a, "pair": (a * 2, [a - 1, {"n": a.sum()}])}


def make_pytree_graph_break():
    """Nested dict/tuple/list outputs and an input mutated in place, around a graph break."""
    _seed()
    xs = [torch.randn(4) for _ in range(3)]

    def run(fn):
        acc = torch.zeros(4)
        outs = [fn(x, acc) for x in xs]
        flat = [[o["a"], o["pair"][0], o["pair"][1][0], o["pair"][1][1]["n"]] for o in outs]
        return flat + [acc]

    return pytree_graph_break, run


def higher_order_ops(x, w):
    y = torch.cond(x.sum() > 0, lambda t: (t * w).sin(), lambda t: (t - w).cos(), (x,))
    z = torch.utils.checkpoint.checkpoint(lambda t: torch.relu(t) * 2, y, use_reentrant=False)
    print("pellucid graph break between higher-order ops")
    return (z * w).sum()


def make_higher_order_ops():
    """torch.cond (both branches taken, one per input) and a checkpointed region: graphs whose
    subgraphs get files of their own; then a graph break, and backward through all of it."""
    _seed()
    xs = [torch.ones(4), -torch.ones(4)]
    base = torch.randn(4)

    def run(fn):
        w = base.clone().requires_grad_(True)
        losses = [fn(x, w) for x in xs]
        sum(losses).backward()
        return [torch.stack([loss.detach() for loss in losses]), w.grad]

    return higher_order_ops, run


WORKLOADS: dict[str, Workload] = {
    w.name: w
    for w in [
        Workload("readme", make_readme, {}),
        Workload("mlp_backward", make_mlp_backward, {}),
        Workload("dynamic_true", make_dynamic, {"dynamic": True}),
        Workload("dynamic_auto", make_dynamic, {}),
        Workload("graph_breaks", make_graph_breaks, {}),
        Workload("closure", make_closure, {}),
        Workload("with_graph_break", make_with_graph_break, {}),
        Workload("comprehension_graph_break", make_comprehension_graph_break, {}),
        Workload("autocast_graph_break", make_autocast_graph_break, {}),
        Workload("with_branch_graph_break", make_with_branch_graph_break, {}),
        Workload("nested_with_graph_break", make_nested_with_graph_break, {}),
        Workload("side_effects_graph_break", make_side_effects_graph_break, {}),
        Workload("lambda_graph_break", make_lambda_graph_break, {}),
        Workload("classes_and_super", make_classes_and_super, {}),
        Workload("optimizer_step", make_optimizer_step, {}),
        Workload("method", make_method, {}),
        Workload("match_graph_break", make_match_graph_break, {}),
        Workload("autograd_function_graph_break", make_autograd_function_graph_break, {}),
        Workload("pytree_graph_break", make_pytree_graph_break, {}),
        Workload("higher_order_ops", make_higher_order_ops, {}),
        Workload("bert", make_bert, {}, heavy=True),
        Workload("gpt2", make_gpt2, {}, heavy=True),
        Workload("llama_generate", make_llama_generate, {}, heavy=True),
    ]
}


def flatten(x: Any) -> list[Any]:
    if isinstance(x, (list, tuple)):
        out: list[Any] = []
        for v in x:
            out.extend(flatten(v))
        return out
    return [x]


def assert_same(actual: Any, expected: Any, atol: float = 1e-5) -> None:
    a, e = flatten(actual), flatten(expected)
    assert len(a) == len(e), (len(a), len(e))
    for u, v in zip(a, e):
        if isinstance(v, torch.Tensor):
            assert isinstance(u, torch.Tensor)
            assert u.shape == v.shape, (u.shape, v.shape)
            torch.testing.assert_close(u, v, atol=atol, rtol=1e-4)
        else:
            assert u == v, (u, v)


def run_workload(
    name: str, backend: str, dump_dir: str | None, reset: bool = True
) -> tuple[Any, Any]:
    """(compiled outputs, eager outputs) of one workload, compiled under prepare_debug(dump_dir)."""
    import torch._dynamo

    import pellucid

    w = WORKLOADS[name]
    if reset:
        torch._dynamo.reset()
    fn, run = w.make()
    expected = run(fn)
    compiled = torch.compile(fn, backend=backend, **w.compile_kwargs)
    if dump_dir is None:
        got = run(compiled)
    else:
        with pellucid.prepare_debug(dump_dir):
            got = run(compiled)
    return got, expected
