"""install()/uninstall() with TORCH_LOGS=+bytecode; several processes dumping into one directory."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys

import checks
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))

INSTALL_SCRIPT = r"""
import sys, torch, pellucid
sys.path.insert(0, {here!r})
import stub_decompiler
import pellucid.decompiler as pd
if sys.argv[1] == "stub":
    pd.decompile = stub_decompiler.decompile
pellucid.install()
def f(x):
    return torch.relu(x) * 2
torch.compile(f, backend="eager")(torch.randn(3))
if sys.argv[1] == "constants":
    def g(xs):  # a graph break in a comprehension: Dynamo passes constants with no source form
        s = xs[0].cos()
        return [print("break") or t * s for t in xs]
    torch.compile(g, backend="eager")([torch.ones(2), torch.zeros(2)])
pellucid.uninstall()
import torch._dynamo.convert_frame as cf
print("HOOKS", len(cf._bytecode_hooks))
"""


@pytest.mark.parametrize("mode", ["stub", "real", "constants"])
def test_install_puts_source_in_bytecode_log(mode):
    env = dict(os.environ, TORCH_LOGS="+bytecode")
    p = subprocess.run(
        [sys.executable, "-c", INSTALL_SCRIPT.format(here=HERE), mode],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert p.returncode == 0, p.stderr[-3000:]
    log = p.stderr
    assert "MODIFIED BYTECODE" in log
    assert "DECOMPILED SOURCE (pellucid) f" in log
    if mode == "stub":
        assert "graph_out_0 = __compiled_fn_" in log
    if mode == "constants":
        assert "DECOMPILED SOURCE (pellucid) g" in log
        assert "could not decompile" not in log
        # the constants Dynamo passes (up to 3.11 the comprehension's code object, which
        # 3.12+ inline) are named and listed above the source
        assert "# __pellucid_const_" in log.split("DECOMPILED SOURCE (pellucid) g", 1)[1]
        if sys.version_info < (3, 12):
            assert "code object <listcomp>" in log
    assert "HOOKS 0" in p.stdout


WORKER = r"""
import os, sys, warnings
sys.path.insert(0, {here!r})
warnings.simplefilter("ignore")
import stub_decompiler, workloads
import pellucid.decompiler as pd
pd.decompile = stub_decompiler.decompile
workloads.run_workload(sys.argv[2], "eager", sys.argv[1])
print("DONE", os.getpid())
"""


def _check_sessions(d: str, n: int) -> None:
    index = checks.load_index(d)
    assert len(index["sessions"]) == n
    assert len({s["pid"] for s in index["sessions"]}) == n
    for s in index["sessions"]:
        for f in s["files"]:
            assert os.path.exists(os.path.join(d, f["path"])), f
    checks.check_files_compile(d, index)
    assert not [n for n in os.listdir(d) if n.startswith(".tmp-")]


def test_processes_dump_into_one_directory(tmp_path):
    d = str(tmp_path / "dump")
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WORKER.format(here=HERE), d, name],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name in ("dynamic_true", "dynamic_true", "readme")
    ]
    for p in procs:
        out, err = p.communicate(timeout=300)
        assert p.returncode == 0, err[-3000:]
    _check_sessions(d, 3)
    # Two processes, one program: one transformed-code file, one graph file for it.
    index = checks.load_index(d)
    method_files = {
        c["transformed_code_file"]
        for s in index["sessions"]
        for c in s["compiles"]
        if c["function"].startswith("dynamic_fn@")
    }
    assert len(method_files) == 1


TORCHRUN_SCRIPT = r"""
import os, sys, warnings
import torch, torch.distributed as dist
sys.path.insert(0, {here!r})
import stub_decompiler
import pellucid, pellucid.decompiler as pd
pd.decompile = stub_decompiler.decompile
warnings.simplefilter("ignore")
dist.init_process_group("gloo")
rank = dist.get_rank()
def step(x):
    return torch.relu(x) * (2 + rank)
c = torch.compile(step, backend="eager")
with pellucid.prepare_debug(sys.argv[1]):
    y = c(torch.ones(4))
t = y.sum()
dist.all_reduce(t)
sys.stdout.write(f"RANK {{rank}} {{float(t)}}\n")  # one write: the ranks share a pipe
sys.stdout.flush()
# Gloo's teardown can abort a rank ("terminate called without an active exception") when the
# other rank is already gone: meet at a barrier, then leave without running C++ destructors.
dist.barrier()
os._exit(0)
"""


def test_torchrun_ranks_gloo_dump_into_one_directory(tmp_path):
    d = str(tmp_path / "dump")
    script = tmp_path / "ranks.py"
    script.write_text(TORCHRUN_SCRIPT.format(here=HERE))
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    p = subprocess.run(
        [
            sys.executable,
            "-m",
            "torch.distributed.run",
            "--nproc_per_node",
            "2",
            "--master_addr",
            "127.0.0.1",
            "--master_port",
            str(port),
            str(script),
            d,
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert p.returncode == 0, (p.stdout + p.stderr)[-3000:]
    assert "RANK 0 20.0" in p.stdout and "RANK 1 20.0" in p.stdout
    _check_sessions(d, 2)
    index = checks.load_index(d)
    ranks = sorted(s["rank"] for s in index["sessions"])
    assert ranks == ["0", "1"]
    # Different programs per rank (the constant differs): two transformed files, none clobbered.
    files = [c["transformed_code_file"] for s in index["sessions"] for c in s["compiles"]]
    graphs = {g["stages"]["captured_graph"] for s in index["sessions"] for g in s["graphs"]}
    assert len(set(files)) == 1  # same transformed code text for both ranks
    assert len(graphs) == 2, graphs  # rank-specific constants: two graph files
    json.dumps(index)


DDP_SCRIPT = r"""
import json, os, sys, tempfile, warnings
sys.path.insert(0, {here!r})
warnings.simplefilter("ignore")
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
import checks

dist.init_process_group("gloo", store=dist.FileStore(tempfile.mktemp(), 1), rank=0, world_size=1)


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = torch.nn.ModuleList([torch.nn.Linear(512, 512) for _ in range(3)])

    def forward(self, x):
        for layer in self.layers:
            x = torch.relu(layer(x))
        return x


torch.manual_seed(0)
net, x = Net(), torch.randn(4, 512)
expected = net(x)
# 1 MB per layer, 2 MB buckets: DDP's DDPOptimizer splits Dynamo's graph and compiles each part
model = DDP(net, bucket_cap_mb=2)
compiled = torch.compile(model, backend="aot_eager")
out, seen = checks.run_seeing_dump_files(sys.argv[1], lambda: compiled(x))
out.sum().backward()
print("RESULT", json.dumps({{"same": bool(torch.allclose(out, expected, atol=1e-5)), "seen": sorted(seen)}}))
sys.stdout.flush()
dist.destroy_process_group()
"""


def test_ddp_split_graph_parts_each_get_their_stages(tmp_path):
    """Under DDP, Dynamo's graph is split and each part compiled on its own (one AOTAutograd
    compilation each): every part's graphs get stages and files of their own (``_part<k>``),
    none overwritten, and each part's forward runs from its file."""
    d = str(tmp_path / "dump")
    script = tmp_path / "ddp.py"
    script.write_text(DDP_SCRIPT.format(here=HERE))
    p = subprocess.run([sys.executable, str(script), d], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, (p.stdout + p.stderr)[-3000:]
    result = json.loads(p.stdout.split("RESULT ", 1)[1])
    assert result["same"]
    index = checks.load_index(d)
    checks.check_files_compile(d, index)
    graph = next(g for g in index["sessions"][0]["graphs"] if len(g.get("aot_ids", [])) > 1)
    parts = len(graph["aot_ids"])
    for stage in ("aot_joint_graph", "aot_forward_graph", "aot_backward_graph"):
        names = [stage] + [f"{stage}_part{k}" for k in range(1, parts)]
        files = [graph["stages"][n] for n in names]
        assert len(set(files)) == parts, (stage, files)
    for k in range(parts):
        fwd = graph["stages"]["aot_forward_graph" + (f"_part{k}" if k else "")]
        assert fwd in result["seen"], (fwd, result["seen"])
