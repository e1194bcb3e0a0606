"""The exported PyTorch script (`core.codegen.script_for`) as a Jupyter notebook, for a teacher to hand out.

The script's code is kept as it is and cut into one code cell per numbered part (its
``# ---- 1. Vocabulary …`` comments), each after a markdown cell in the page's language. Only the
script's docstring is left out: the notebook's first cell says the same, and how to run it::

    >>> nb = notebook_for(script_for(recipe, 5), lambda key: t("ko", key))
    >>> [c["cell_type"] for c in json.loads(nb)["cells"]][:5]
    ['markdown', 'code', 'markdown', 'code', 'markdown']

Running every cell prints what the script prints, its last line the same JSON (ids, losses, W).
Markdown comes from string keys (``notebook.title``, ``notebook.intro``, ``notebook.part.<n>``)
that the caller translates, as core names string keys and never holds prose.
"""

from __future__ import annotations

import ast
import re
from typing import Callable

import nbformat
from nbformat import v4

_PART = re.compile(r"^# ---- (\d+)\.")  # codegen's part headers: "# ---- 3. Encode ..."


def split_script(script: str) -> tuple[str, list[tuple[int, str]]]:
    """(code before the first part, [(part number, its code), ...]), the docstring left out.

    Joining the pieces with newlines gives back the script without its docstring.
    """
    lines = script.splitlines()
    body = ast.parse(script).body
    start = 0
    if body and isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant) \
            and isinstance(body[0].value.value, str):
        start = body[0].end_lineno  # first line after the docstring
    head: list[str] = []
    parts: list[tuple[int, list[str]]] = []
    for line in lines[start:]:
        found = _PART.match(line)
        if found:
            parts.append((int(found.group(1)), [line]))
        elif parts:
            parts[-1][1].append(line)
        else:
            head.append(line)
    return "\n".join(head).strip("\n"), [(n, "\n".join(code).strip("\n")) for n, code in parts]


def notebook_for(script: str, text: Callable[[str], str]) -> bytes:
    """The notebook (nbformat 4, validated) as UTF-8 JSON bytes; ``text(key)`` gives each markdown cell."""
    head, parts = split_script(script)
    cells = [v4.new_markdown_cell(f"# {text('notebook.title')}\n\n{text('notebook.intro')}")]
    if head:
        cells.append(v4.new_code_cell(head))
    for n, code in parts:
        cells.append(v4.new_markdown_cell(_part_note(n, code, text)))
        cells.append(v4.new_code_cell(code))
    nb = v4.new_notebook(cells=cells, metadata={
        "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
        "language_info": {"name": "python"},
    })
    nbformat.validate(nb)
    return nbformat.writes(nb).encode("utf-8")


def _part_note(n: int, code: str, text: Callable[[str], str]) -> str:
    """The part's markdown; a part the strings do not know is titled by its own comment line."""
    key = f"notebook.part.{n}"
    note = text(key)
    if note and note != f"[{key}]":
        return note
    return "## " + code.splitlines()[0].removeprefix("# ---- ")
