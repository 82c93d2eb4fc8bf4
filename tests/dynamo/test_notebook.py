"""prepare_debug, debug (with its pdb pause) and the report inside a real IPython kernel.

Cells run through jupyter_client in ipykernel, as a notebook front end runs them: the compiled
function is defined in a cell (its code's file is the kernel's cell name, which exists only in
linecache), cells are run again (a redefined function is a new code object with the same name,
file and line), pdb talks through the kernel's stdin channel, and the report is displayed
inline as rich output.
"""

from __future__ import annotations

import html as html_lib
import json
import os
import queue
import re
from typing import Any

import pytest

jupyter_client = pytest.importorskip("jupyter_client")
pytest.importorskip("ipykernel")

DEFINE = """
def model(x):
    y = torch.relu(x)
    return y * 2 + 1
model.__code__.co_filename
"""

ANSI = re.compile(r"\x1b\[[0-9;]*m")

COMPILE_AND_RUN = """
compiled = torch.compile(model, backend="inductor")
with pellucid.prepare_debug(DUMP):
    out = compiled(x)
out.tolist()
"""


class Kernel:
    def __init__(self, cwd: str) -> None:
        from jupyter_client.manager import start_new_kernel

        self.km, self.kc = start_new_kernel(kernel_name="python3", cwd=cwd)

    def run(
        self, code: str, stdin: list[str] | None = None, timeout: float = 300
    ) -> dict[str, Any]:
        """Execute a cell; answer its input requests from ``stdin`` in order.  Returns the
        cell's outputs by kind, its prompts and its status; an error in the cell fails."""
        msg_id = self.kc.execute(code, allow_stdin=stdin is not None)
        got: dict[str, Any] = {"stream": "", "display_data": [], "execute_result": None}
        got["prompts"] = []
        answers = list(stdin or [])
        while True:
            if stdin is not None:
                try:
                    req = self.kc.get_stdin_msg(timeout=0.05)
                except queue.Empty:
                    req = None
                if req is not None:
                    got["prompts"].append(got["stream"])
                    assert answers, f"unexpected input request; output so far:\n{got['stream']}"
                    self.kc.input(answers.pop(0))
            try:
                m = self.kc.get_iopub_msg(timeout=0.05 if stdin is not None else timeout)
            except queue.Empty:
                continue
            if m["parent_header"].get("msg_id") != msg_id:
                continue
            kind, content = m["msg_type"], m["content"]
            if kind == "status" and content["execution_state"] == "idle":
                break
            if kind == "stream":
                got["stream"] += content["text"]
            elif kind == "display_data":
                got["display_data"].append(content["data"])
            elif kind == "execute_result":
                got["execute_result"] = content["data"]
            elif kind == "error":
                raise AssertionError(
                    f"cell failed: {content['ename']}: {content['evalue']}\n"
                    + "\n".join(content["traceback"])
                )
        reply = self.kc.get_shell_msg(timeout=timeout)
        assert reply["content"]["status"] == "ok", reply["content"]
        assert not answers, f"unused input {answers}; output:\n{got['stream']}"
        return got

    def value(self, code: str) -> Any:
        result = self.run(code)["execute_result"]
        assert result is not None, code
        return eval(result["text/plain"])  # noqa: S307 - a repr the kernel printed

    def close(self) -> None:
        self.kc.stop_channels()
        self.km.shutdown_kernel(now=True)


def _last_session(dump: str) -> dict[str, Any]:
    with open(os.path.join(dump, "index.json"), encoding="utf-8") as f:
        return json.load(f)["sessions"][-1]


def _ran_from_file(dump: str, sess: dict[str, Any], cell_file: str) -> dict[str, Any]:
    """The compile of ``model`` in ``sess``: checked to be of the cell's code, from a file.

    A cell run again makes a new code object with the name, file and line of the old one,
    which may still be alive (and then is listed as compiled before this session): each is a
    function of its own, and the compile belongs to the new one."""
    fns = {f["key"]: f for f in sess["functions"] if f["name"] == "model"}
    (compiled,) = [c for c in sess["compiles"] if c["function"] in fns]
    assert compiled["executed_from_file"] and compiled["failure"] is None, compiled
    fn = fns.pop(compiled["function"])
    assert all(f["compiled_before_prepare_debug"] for f in fns.values()), fns
    assert fn["filename"] == cell_file and not fn["compiled_before_prepare_debug"], fn
    (entry,) = fn["cache_entries"]
    assert entry["executed_from_file"], entry
    assert os.path.isfile(os.path.join(dump, entry["transformed_code_file"])), entry
    assert compiled["transformed_code_file"] == entry["transformed_code_file"]
    full = open(os.path.join(dump, fn["full_code_file"]), encoding="utf-8").read()
    assert "y = torch.relu(x)" in full  # the cell's source, from linecache
    return compiled


def test_prepare_debug_debug_and_report_in_an_ipython_kernel(tmp_path):
    dump = str(tmp_path / "dump")
    k = Kernel(str(tmp_path))
    try:
        k.run(f"import torch, pellucid\nDUMP = {dump!r}\nx = torch.arange(-2.0, 3.0)")
        cell_file = k.value(DEFINE)
        assert re.search(r"ipykernel_\d+|<ipython-input-", cell_file), cell_file
        assert k.value(COMPILE_AND_RUN) == [1.0, 1.0, 1.0, 3.0, 5.0]
        first = _ran_from_file(dump, _last_session(dump), cell_file)

        # Run both cells again: a new code object of the same name, file and line compiles
        # afresh and runs from its own file.
        assert k.value(DEFINE) == cell_file
        assert k.value(COMPILE_AND_RUN) == [1.0, 1.0, 1.0, 3.0, 5.0]
        again = _ran_from_file(dump, _last_session(dump), cell_file)
        assert again["compile_id"] != first["compile_id"]

        # debug(): the pdb pause talks through the kernel's stdin; a breakpoint set then in the
        # transformed-code file stops there.
        tfile = os.path.join(dump, again["transformed_code_file"])
        tline = next(
            i
            for i, line in enumerate(open(tfile, encoding="utf-8"), 1)
            if "__compiled_fn_" in line and "=" in line
        )
        got = k.run(
            "with pellucid.debug():\n    out2 = compiled(x)\nprint('RESULT', out2.tolist())",
            stdin=[f"b {tfile}:{tline}", "c", "c"],
        )
        assert len(got["prompts"]) == 3, got["stream"]
        # (stdin requests and output arrive on different channels: the output is read whole)
        paused, _, rest = ANSI.sub("", got["stream"]).partition("Breakpoint 1 at")
        # The pause is in the cell, at the compiled call (not in the transformed code it calls).
        assert re.search(r"(ipykernel_\d+/\d+\.py|<ipython-input-[^>]*>)\(2\)<module>", paused)
        assert "out2 = compiled(x)" in paused and tfile not in paused, paused
        assert f"{tfile}({tline})" in rest, rest
        assert "RESULT [1.0, 1.0, 1.0, 3.0, 5.0]" in got["stream"], got["stream"]

        # The report, inline: show() displays it; a build_report() result renders as HTML too.
        shown = k.run("import pellucid.report\npellucid.report.show(DUMP)")
        (data,) = shown["display_data"]
        html = data["text/html"]
        assert "pellucid report" in html and "index.html" in html, html
        assert re.search(r"compiles running from dumped files</th><td>2<", html), html
        result = k.run("pellucid.report.build_report(DUMP)")["execute_result"]
        assert "pellucid report" in result["text/html"], result
        assert os.path.isfile(os.path.join(dump, "report", "index.html"))
        # The function's page shows its source, which no file holds: the kernel's linecache.
        page = open(os.path.join(dump, "report", "s0-fn0-model.html"), encoding="utf-8").read()
        text = html_lib.unescape(re.sub(r"<[^>]+>", "", page))
        assert "def model(x):" in text and "y = torch.relu(x)" in text, text[:3000]
    finally:
        k.close()
