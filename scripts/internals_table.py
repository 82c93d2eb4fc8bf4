"""Write adapter.TORCH_INTERNALS into docs/new-torch-release.md (between its markers).

    PYTHONPATH=src python scripts/internals_table.py
"""

from __future__ import annotations

import os
import re

from pellucid.dynamo import adapter

DOC = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "docs", "new-torch-release.md")


def main() -> None:
    with open(DOC, encoding="utf-8") as f:
        doc = f.read()
    table = adapter.internals_markdown()
    new, n = re.subn(
        r"(<!-- internals -->\n).*?(<!-- /internals -->)", lambda m: m.group(1) + table + m.group(2), doc, flags=re.S
    )
    if n != 1:
        raise SystemExit(f"{DOC}: no <!-- internals --> ... <!-- /internals --> section")
    with open(DOC, "w", encoding="utf-8") as f:
        f.write(new)


if __name__ == "__main__":
    main()
