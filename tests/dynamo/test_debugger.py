"""pdb (driven through stdin) and debugpy (over its protocol) stop in the dumped files."""

from __future__ import annotations

import ast
import json
import os
import queue
import socket
import subprocess
import sys
import threading
import time

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
TARGET = os.path.join(HERE, "debug_target.py")
JUST_MY_CODE = os.environ.get("PELLUCID_TEST_JMC", "1") == "1"


def first_body_line(path: str, func: str) -> int:
    tree = ast.parse(open(path, encoding="utf-8").read())
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == func:
            return node.body[0].lineno
    raise AssertionError(f"{func} not in {path}")


def graph_call_line(path: str) -> int:
    """The line of a transformed-code file that calls the compiled graph."""
    for node in ast.walk(ast.parse(open(path, encoding="utf-8").read())):
        if isinstance(node, ast.Call) and getattr(node.func, "id", "").startswith("__compiled_fn"):
            return node.lineno
    raise AssertionError(f"no graph call in {path}")


class Session:
    """A child process whose stdout is read line by line in a thread."""

    def __init__(self, args: list[str]) -> None:
        self.proc = subprocess.Popen(
            args,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            bufsize=0,
        )
        self.q: queue.Queue[str | None] = queue.Queue()
        self.out: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        buf = ""
        while True:
            ch = self.proc.stdout.read(1)
            if not ch:
                if buf:
                    self.q.put(buf)
                self.q.put(None)
                return
            buf += ch
            if ch == "\n" or buf.endswith("(Pdb) "):
                self.q.put(buf)
                buf = ""

    def until(self, marker: str, timeout: float = 240) -> str:
        return self.until_any((marker,), timeout)

    def until_any(self, markers: tuple[str, ...], timeout: float = 240) -> str:
        got = []
        end = time.time() + timeout
        while time.time() < end:
            try:
                line = self.q.get(timeout=max(0.1, end - time.time()))
            except queue.Empty:
                break
            if line is None:
                break
            got.append(line)
            self.out.append(line)
            if any(m in line for m in markers):
                return "".join(got)
        raise AssertionError(f"no {markers!r} in output:\n{''.join(self.out)[-4000:]}")

    def send(self, cmd: str) -> str:
        self.proc.stdin.write(cmd + "\n")
        self.proc.stdin.flush()
        return self.until("(Pdb) ")

    def finish(self) -> str:
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        self.proc.wait(120)
        while True:
            try:
                line = self.q.get(timeout=5)
            except queue.Empty:
                break
            if line is None:
                break
            self.out.append(line)
        return "".join(self.out)


@pytest.mark.parametrize(
    ("backend", "graph_stage", "mode"),
    [
        ("eager", "captured_graph", "stub"),
        ("aot_eager", "aot_forward_graph", "stub"),
        ("inductor", "inductor_forward", "stub"),
        ("eager", "captured_graph", "real"),
    ],
)
def test_pdb_stops_in_transformed_code_and_graph(tmp_path, backend, graph_stage, mode):
    d = str(tmp_path / "dump")
    s = Session([sys.executable, "-u", TARGET, d, backend, mode])
    try:
        s.until("READY")
    except AssertionError:
        out = s.finish()
        if mode == "real" and "__transformed_code_" in out and "Error" in out:
            pytest.xfail("decompiler produced wrong code: " + out.strip().splitlines()[-1])
        raise
    s.until("(Pdb) ")
    index = json.load(open(os.path.join(d, "index.json")))
    sess = index["sessions"][0]
    graph = next(g for g in sess["graphs"] if graph_stage in g["stages"])
    graph_file = os.path.join(d, graph["stages"][graph_stage])
    graph_func = "call" if graph_stage.startswith("inductor") else "forward"
    graph_line = first_body_line(graph_file, graph_func)
    compiles = sess["compiles"]
    if not compiles[0]["executed_from_file"]:
        s.finish()
        pytest.xfail(f"decompiler: {compiles[0]['failure']}")
    tfile = os.path.join(d, compiles[0]["transformed_code_file"])
    tline = first_body_line(tfile, compiles[0]["transformed_function"])

    assert "Breakpoint 1" in s.send(f"b {tfile}:{tline}")
    out = s.send("c")
    assert f"{tfile}({tline})" in out, out
    # Step from the transformed code into the graph, with no breakpoint there: lands in the
    # graph's file (Inductor: its output code's call()), never in torch's wrappers.
    steps = [s.send("s")]
    while len(steps) < 6 and os.path.basename(graph_file) not in steps[-1]:
        steps.append(s.send("s"))
    out = "".join(steps)
    assert f"{graph_file}(" in steps[-1] and f"){graph_func}()" in steps[-1], out
    assert "eval_frame.py" not in out and "site-packages" not in out, out
    # A breakpoint in the graph's file hits too (only breakpoints stop under `c`).
    assert "Breakpoint 2" in s.send(f"b {graph_file}:{graph_line}")
    out = s.send("c")
    assert f"{graph_file}({graph_line}){graph_func}()" in out, out
    # Run to the end: any further stop is continued.
    for _ in range(6):
        s.proc.stdin.write("c\n")
        s.proc.stdin.flush()
        out = s.until_any(("(Pdb) ", "RESULT"))
        if "RESULT" in out:
            break
    s.finish()
    assert "RESULT [1.0, 1.0, 1.0, 3.0, 5.0]" in "".join(s.out)


def test_pdb_stops_in_a_torch_cond_branch(tmp_path):
    """A breakpoint in the file of a higher-order op's subgraph (the branch torch.cond takes)
    is hit under debug()."""
    d = str(tmp_path / "dump")
    s = Session([sys.executable, "-u", TARGET, d, "eager", "cond"])
    s.until("READY")
    s.until("(Pdb) ")
    index = json.load(open(os.path.join(d, "index.json")))
    (graph,) = index["sessions"][0]["graphs"]
    branch = os.path.join(d, graph["stages"]["captured_graph.cond_true_0"])
    line = first_body_line(branch, "forward")
    assert "Breakpoint 1" in s.send(f"b {branch}:{line}")
    out = s.send("c")
    assert f"{branch}({line})" in out, out
    s.proc.stdin.write("c\n")
    s.proc.stdin.flush()
    s.until("RESULT")
    s.finish()
    assert "RESULT [-3.0, -1.0, 1.0, 3.0, 5.0]" in "".join(s.out)


def _dap_send(sock: socket.socket, seq: list[int], command: str, **arguments) -> int:
    seq[0] += 1
    msg = {"seq": seq[0], "type": "request", "command": command, "arguments": arguments}
    body = json.dumps(msg).encode()
    sock.sendall(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    return seq[0]


class _DapReader:
    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.buf = b""

    def next(self, timeout: float) -> dict:
        self.sock.settimeout(timeout)
        while True:
            if b"\r\n\r\n" in self.buf:
                head, rest = self.buf.split(b"\r\n\r\n", 1)
                n = int(head.split(b":")[1])
                if len(rest) >= n:
                    self.buf = rest[n:]
                    return json.loads(rest[:n])
            chunk = self.sock.recv(65536)
            if not chunk:
                raise EOFError("debugpy closed the connection")
            self.buf += chunk

    def wait(self, pred, timeout: float = 240) -> dict:
        end = time.time() + timeout
        while time.time() < end:
            msg = self.next(max(0.1, end - time.time()))
            if pred(msg):
                return msg
        raise AssertionError("timed out waiting for debugpy")


def test_debugpy_stops_at_breakpoint_in_dumped_graph_file(tmp_path):
    pytest.importorskip("debugpy")
    d = str(tmp_path / "dump")
    # First run: produce the dump (and learn the file names, stable across runs).
    subprocess.run(
        [sys.executable, TARGET, d, "aot_eager", "stub"],
        input="c\n",
        text=True,
        capture_output=True,
        timeout=300,
        check=True,
    )
    sess = json.load(open(os.path.join(d, "index.json")))["sessions"][0]
    graph_file = os.path.join(d, sess["graphs"][0]["stages"]["aot_forward_graph"])
    graph_line = first_body_line(graph_file, "forward")
    tfile = os.path.join(d, sess["compiles"][0]["transformed_code_file"])
    tline = first_body_line(tfile, sess["compiles"][0]["transformed_function"])

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = dict(os.environ, PYTHONBREAKPOINT="0")  # no pause: debugpy drives the stops
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "debugpy",
            "--listen",
            f"127.0.0.1:{port}",
            "--wait-for-client",
            TARGET,
            d,
            "aot_eager",
            "stub",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env=env,
    )
    try:
        sock = None
        for _ in range(200):
            try:
                sock = socket.create_connection(("127.0.0.1", port), timeout=2)
                break
            except OSError:
                time.sleep(0.1)
        assert sock is not None, "debugpy did not listen"
        r, seq = _DapReader(sock), [0]
        _dap_send(
            sock,
            seq,
            "initialize",
            adapterID="pellucid-test",
            pathFormat="path",
            linesStartAt1=True,
            columnsStartAt1=True,
        )
        r.wait(lambda m: m.get("command") == "initialize")
        _dap_send(sock, seq, "attach", justMyCode=JUST_MY_CODE)
        r.wait(lambda m: m.get("event") == "initialized")
        for path, line in ((tfile, tline), (graph_file, graph_line)):
            _dap_send(
                sock, seq, "setBreakpoints", source={"path": path}, breakpoints=[{"line": line}]
            )
            resp = r.wait(lambda m: m.get("command") == "setBreakpoints")
            assert resp["success"], resp
        _dap_send(sock, seq, "configurationDone")
        stops = []
        while len(stops) < 4:
            try:
                ev = r.wait(lambda m: m.get("event") in ("stopped", "terminated", "exited"))
            except (EOFError, AssertionError):
                break
            if ev["event"] != "stopped":
                break
            tid = ev["body"]["threadId"]
            req = _dap_send(sock, seq, "stackTrace", threadId=tid, levels=1)
            st = r.wait(lambda m, req=req: m.get("request_seq") == req)
            frame = st["body"]["stackFrames"][0]
            stops.append((frame["source"].get("path"), frame["line"]))
            _dap_send(sock, seq, "continue", threadId=tid)
        sock.close()
    finally:
        try:
            out = proc.communicate(timeout=120)[0].decode()
        except subprocess.TimeoutExpired:
            proc.kill()
            out = proc.communicate()[0].decode()
    assert (graph_file, graph_line) in stops, (stops, out[-3000:])
    assert (tfile, tline) in stops, stops
    assert "RESULT [1.0, 1.0, 1.0, 3.0, 5.0]" in out, out[-3000:]


def test_debug_says_when_a_call_runs_eagerly_and_the_function_stays_compilable(tmp_path, capsys):
    """Under debug() nothing recompiles: a call no dumped cache entry admits runs eagerly, so
    breakpoints in the dump files cannot stop it.  pellucid says so (once per function, with
    the failed guard); after the block the function compiles again as usual."""
    import torch
    import workloads

    import pellucid
    from pellucid.dynamo import adapter

    fn = torch.compile(workloads.toy_example, backend="eager")
    code = workloads.toy_example.__code__
    with pellucid.prepare_debug(str(tmp_path)):
        fn(torch.randn(4), torch.randn(4))
    capsys.readouterr()
    before = torch._dynamo.eval_frame._callback_from_stance
    a, b = torch.randn(6), torch.randn(6)
    with pellucid.debug(pause=False):
        got = fn(a, b)
        fn(torch.randn(7), torch.randn(7))
    assert torch._dynamo.eval_frame._callback_from_stance is before
    assert torch.allclose(got, workloads.toy_example(a, b))
    err = capsys.readouterr().err
    assert err.count("inputs its dumped code does not cover") == 1, err
    assert "toy_example" in err and "size mismatch" in err and "ran eagerly" in err, err
    entries = len(adapter.cache_entries(code))
    fn(torch.randn(6), torch.randn(6))
    assert len(adapter.cache_entries(code)) > entries  # compiled again, not marked to skip


LAUNCH_JSON = os.path.join(HERE, "..", "..", "examples", "vscode", "launch.json")


def _line_inside_debug_block(path: str) -> int:
    """The first line of the body of ``with pellucid.debug():`` in ``path``."""
    for node in ast.walk(ast.parse(open(path, encoding="utf-8").read())):
        expr = node.items[0].context_expr if isinstance(node, ast.With) else None
        if isinstance(expr, ast.Call) and ast.unparse(expr.func) == "pellucid.debug":
            return node.body[0].lineno
    raise AssertionError(f"no `with pellucid.debug():` in {path}")


def test_vscode_launch_json_pauses_steps_and_stops_in_dumped_files(tmp_path):
    """examples/vscode/launch.json, sent to debugpy's adapter as VS Code sends it: debug()
    pauses in the user's frame (not in pellucid's, which the config keeps out of "my code");
    a breakpoint set then in the transformed-code file stops there; "step into" from it arrives
    in Inductor's output code, with no torch or pellucid frame on the way."""
    pytest.importorskip("debugpy")
    from dap_client import DapClient

    (config,) = json.load(open(LAUNCH_JSON, encoding="utf-8"))["configurations"]
    assert config["type"] == "debugpy" and config["request"] == "launch"
    assert config["program"] == "${file}" and config["cwd"] == "${workspaceFolder}"
    d = str(tmp_path / "dump")
    # What VS Code fills in: the open file, the workspace folder, the selected interpreter.
    config = dict(config, program=TARGET, cwd=str(tmp_path), python=sys.executable)
    config["args"] = [d, "inductor", "stub"]
    if os.environ.get("PYTHONPATH"):  # pellucid from a checkout rather than installed
        paths = os.environ["PYTHONPATH"].split(os.pathsep)
        config["env"] = {"PYTHONPATH": os.pathsep.join(os.path.abspath(p) for p in paths)}
    c = DapClient()
    try:
        c.request(
            "initialize",
            clientID="vscode",
            adapterID="debugpy",
            pathFormat="path",
            linesStartAt1=True,
            columnsStartAt1=True,
            supportsRunInTerminalRequest=True,
        )
        c.send("launch", **config)
        c.event("initialized")
        c.request("configurationDone")
        ev = c.event("stopped", "terminated")
        assert ev["event"] == "stopped", f"debug() did not pause: {c.log()}"
        tid = ev["body"]["threadId"]
        top = c.top_frame(tid)
        assert (top["source"]["path"], top["line"]) == (TARGET, _line_inside_debug_block(TARGET))

        sess = json.load(open(os.path.join(d, "index.json")))["sessions"][0]
        (graph,) = sess["graphs"]
        graph_file = os.path.join(d, graph["stages"]["inductor_forward"])
        graph_line = first_body_line(graph_file, "call")
        compiled = sess["compiles"][0]
        assert compiled["executed_from_file"], compiled
        tfile = os.path.join(d, compiled["transformed_code_file"])
        tline = graph_call_line(tfile)  # a step in from here enters the graph
        resp = c.request("setBreakpoints", source={"path": tfile}, breakpoints=[{"line": tline}])
        assert resp["body"]["breakpoints"][0]["verified"], resp
        c.request("continue", threadId=tid)
        c.event("stopped")
        top = c.top_frame(tid)
        assert (top["source"]["path"], top["line"]) == (tfile, tline)

        visited = []
        while len(visited) < 5 and top["source"].get("path") != graph_file:
            c.request("stepIn", threadId=tid)
            c.event("stopped")
            top = c.top_frame(tid)
            visited.append((top["name"], top["source"].get("path"), top["line"]))
        assert visited[-1] == ("call", graph_file, graph_line), visited
        assert len(visited) == 1, visited  # straight in: no wrapper frame on the way

        c.request("continue", threadId=tid)
        c.event("terminated", "exited")
    finally:
        c.close()
    assert "RESULT [1.0, 1.0, 1.0, 3.0, 5.0]" in "".join(c.debuggee_out), c.log()
