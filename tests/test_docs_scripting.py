"""docs/scripting.md runs: its Python blocks, in order, from the repository's root, are one working
AppTest script (a documentation example that drifts from the app fails here). And no example in the
docs reaches into Streamlit's private modules or attributes.

The blocks carry their own checks (torch and the exported script as answer keys, W read back bit for
bit); this test runs them in one fresh namespace with the working directory at the root, as a reader
would paste them into a file there.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPTING = ROOT / "docs" / "scripting.md"
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BLOCK = re.compile(r"^```python\n(.*?)^```", re.M | re.S)
# Streamlit's public modules a script may import; anything else (streamlit.runtime, …) is internal.
PUBLIC_STREAMLIT = {"streamlit", "streamlit.testing.v1", "streamlit.components.v1", "streamlit.components.v2"}


def python_blocks(path: Path) -> list[tuple[int, str]]:
    """(first line, code) of every ```python block of a Markdown file."""
    text = path.read_text(encoding="utf-8")
    return [(text.count("\n", 0, m.start(1)) + 1, m.group(1)) for m in BLOCK.finditer(text)]


def test_the_scripting_guide_runs_as_written(monkeypatch):
    blocks = python_blocks(SCRIPTING)
    assert len(blocks) >= 8, "docs/scripting.md lost its examples"
    monkeypatch.chdir(ROOT)
    namespace: dict = {"__name__": "__docs__"}
    for line, code in blocks:
        # Padded so that a failure's traceback names the line of docs/scripting.md
        exec(compile("\n" * (line - 1) + code, str(SCRIPTING), "exec"), namespace)
    assert namespace["at"].query_params["section"] == "train"  # the last block ran to its end


def private_uses(code: str) -> list[str]:
    """What a code block touches that is private: an attribute whose name starts with ``_`` (``__x__``
    aside), or a Streamlit module outside its public API."""
    found = []
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.endswith("__"):
            found.append(f".{node.attr}")
        modules = []
        if isinstance(node, ast.Import):
            modules = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            modules = [node.module]
            if node.module.startswith("streamlit"):
                found += [f"from {node.module} import {a.name}" for a in node.names if a.name.startswith("_")]
        found += [m for m in modules if m.startswith("streamlit") and m not in PUBLIC_STREAMLIT]
    return found


def test_the_private_check_finds_what_it_should():
    assert sorted(private_uses("x = at._tree\nimport streamlit.runtime.media_file_manager as m\n"
                               "from streamlit.testing.v1 import _x\n")) == [
        "._tree", "from streamlit.testing.v1 import _x", "streamlit.runtime.media_file_manager"]
    assert private_uses("from streamlit.testing.v1 import AppTest\nx = a.__class__\n") == []


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_no_doc_example_touches_streamlit_internals(doc):
    found = [f"{doc.name}:{line}: {use}" for line, code in python_blocks(doc) for use in private_uses(code)]
    assert not found, "documented examples use private API:\n" + "\n".join(found)


def test_every_error_box_key_is_listed():
    """Each `problems_<where>` container the app draws is in docs/scripting.md's list."""
    text = SCRIPTING.read_text(encoding="utf-8")
    app_code = "\n".join(p.read_text(encoding="utf-8") for d in ("sections", "components", "views", "session")
                         for p in sorted((ROOT / d).rglob("*.py"))) + (ROOT / "page.py").read_text(encoding="utf-8")
    titles = set(re.findall(r"\"err\.(\w+_title)\"", app_code))
    assert len(titles) >= 9
    missing = sorted(f"problems_{w}" for w in titles if f"`problems_{w}`" not in text)
    assert not missing, f"error boxes not listed in docs/scripting.md: {missing}"
