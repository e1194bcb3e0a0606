"""The house rules that keep the app easy to live in, checked."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_importing_core_does_not_load_streamlit():
    code = ("import sys, pkgutil, importlib, core\n"
            "for m in pkgutil.iter_modules(core.__path__): importlib.import_module('core.' + m.name)\n"
            "print('streamlit' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def python_files(*dirs: str):
    for d in dirs:
        yield from (ROOT / d).rglob("*.py") if (ROOT / d).is_dir() else [ROOT / d]


def test_nothing_a_user_can_change_is_cached_or_global():
    """No st.cache_resource anywhere; no module-level list/dict/set that code could mutate per user."""
    for path in python_files("app.py", "page.py", "session.py", "core", "components", "sections"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        uses = [n for n in ast.walk(tree) if isinstance(n, ast.Attribute) and n.attr == "cache_resource"]
        assert not uses, f"{path.name} uses st.cache_resource"
        for node in tree.body:
            mutable = (ast.List, ast.Dict, ast.Set, ast.ListComp, ast.DictComp, ast.SetComp)
            value = node.value if isinstance(node, (ast.Assign, ast.AnnAssign)) else None
            built = (isinstance(value, ast.Call) and isinstance(value.func, ast.Name)
                     and value.func.id in ("dict", "list", "set", "bytearray", "defaultdict"))
            if isinstance(value, mutable) or built:
                raise AssertionError(f"module-level mutable container in {path.name}: line {node.lineno}")


def test_only_session_py_touches_session_state_keys_by_string():
    """Widget keys are spelled once, in session.Keys."""
    import re

    for path in python_files("app.py", "page.py", "components", "sections"):
        src = path.read_text(encoding="utf-8")
        assert not re.search(r"session_state\[\s*['\"]", src), f"{path.name} spells a session_state key"
