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
    for path in python_files("app.py", "page.py", "session", "core", "components", "sections"):
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


def test_only_session_py_touches_session_state():
    """One module reads and writes session state; the rest call session.get / set_value / ensure."""
    for path in python_files("app.py", "page.py", "components", "sections", "core"):
        src = path.read_text(encoding="utf-8")
        code = "\n".join(line for line in src.splitlines() if not line.lstrip().startswith("#"))
        assert "session_state" not in _without_docstrings(code), f"{path.relative_to(ROOT)} touches st.session_state"


def _without_docstrings(src: str) -> str:
    tree = ast.parse(src)
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
            body[0].value.value = ""
    return ast.unparse(tree)


def test_widget_keys_are_spelled_only_in_keys():
    """Every ``key=`` of a widget outside session/ is a name from session.Keys (or a Keys prefix + an id)."""
    for path in python_files("app.py", "page.py", "components", "sections"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.keyword) and node.arg == "key":
                assert not isinstance(node.value, ast.Constant), \
                    f"{path.relative_to(ROOT)}:{node.value.lineno} spells a widget key: {ast.unparse(node.value)}"
                v = node.value
                spelled = isinstance(v, ast.JoinedStr) or (isinstance(v, ast.BinOp) and any(
                    isinstance(side, ast.Constant) for side in (v.left, v.right)))
                assert not spelled, f"{path.relative_to(ROOT)}:{v.lineno} builds a key around a literal"


def test_every_knob_is_a_documented_widget_key():
    """core.knobs is the one spec of the knobs: each one's name is a widget key in session.Keys and docs/scripting.md."""
    import session
    from core.knobs import KNOBS

    keys = {v for k, v in vars(session.Keys).items() if k.isupper()}
    documented = (ROOT / "docs" / "scripting.md").read_text(encoding="utf-8")
    for k in KNOBS:
        assert k.name in keys and f"`{k.name}`" in documented


def test_no_app_file_is_over_500_lines_and_no_section_over_200():
    """Each file about one thing: an app file that grows past these has more than one job."""
    app = [ROOT / "app.py", ROOT / "page.py"]
    for d in ("core", "server", "components", "sections", "session", "views", "assets"):
        app += [p for p in (ROOT / d).rglob("*") if p.suffix in (".py", ".js", ".mjs")]
    for path in app:
        n = len(path.read_text(encoding="utf-8").splitlines())
        limit = 200 if path.parent.name == "sections" else 500
        assert n <= limit, f"{path.relative_to(ROOT)} has {n} lines (at most {limit})"


def test_the_app_never_imports_the_test_and_benchmark_kit():
    """support/ (servers, Chromium, sample stage data, the contract checks, the torch answer key) and
    tests/ serve the tests and benchmarks; nothing the app runs imports them."""
    for path in python_files("app.py", "page.py", "server", "session", "views", "core", "components", "sections", "assets"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            for name in names:
                assert name.split(".")[0] not in ("support", "tests", "bench"), \
                    f"{path.relative_to(ROOT)}:{node.lineno} imports {name}"


def _imported(path: Path) -> list[tuple[int, str]]:
    """(line, top-level module) of every import in ``path``, wherever it sits (a function's body too)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name.split(".")[0]) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.lineno, node.module.split(".")[0]))
    return sorted(found)


def test_components_take_values_and_callbacks_not_the_session():
    """A component is plain data in, widgets out: it never imports the session package (nor the server's
    machinery, Streamlit's private API included); its keys, values and callbacks come from its caller
    (a section or page.py)."""
    offending = [f"{path.relative_to(ROOT)}:{line} imports {name}"
                 for path in sorted((ROOT / "components").rglob("*.py"))
                 for line, name in _imported(path) if name in ("session", "server")]
    assert not offending, "\n".join(offending)


def test_the_import_scan_finds_the_session_wherever_it_is_imported(tmp_path):
    """The scan above sees each way of importing it (it would pass on a scan that sees nothing)."""
    sample = tmp_path / "sample.py"
    sample.write_text("import session\nfrom session import Keys\nfrom session.keys import Keys\n"
                      "def f():\n    from server import streamlit_private\nimport sessions\n", encoding="utf-8")
    assert _imported(sample) == [(1, "session"), (2, "session"), (3, "session"), (5, "server"),
                                 (6, "sessions")]


# The layers, bottom up: core/ is the domain (vocabulary, batches, model, training, projection,
# lessons, state, exports) and imports none of the app; server/ is the server's machinery (work
# budget, lanes, turn, memory admission, upkeep, warm-up, hooks, Streamlit's private API).
ABOVE_CORE = ("server", "streamlit", "session", "components", "sections", "views", "page", "app", "support", "tests",
              "bench")
SERVER_HOLDS = ("budget", "turn", "admission", "upkeep", "warm", "hooks", "streamlit_private", "download_jobs")


def test_core_imports_nothing_above_it():
    """The domain never reaches up: a lab that must be admitted, given a lane or stopped is given its
    work by its caller (core/work.py), never looks it up in the server."""
    offending = [f"{path.relative_to(ROOT)}:{line} imports {name}"
                 for path in sorted((ROOT / "core").rglob("*.py"))
                 for line, name in _imported(path) if name in ABOVE_CORE]
    assert not offending, "\n".join(offending)


def test_the_server_package_holds_the_machinery_and_nothing_else_does():
    """server/ holds the budget, the turn, the admission, upkeep, the warm-up and Streamlit's private
    API; none of them is left at the top level or in core/."""
    assert {p.stem for p in (ROOT / "server").glob("*.py")} >= set(SERVER_HOLDS)
    for name in SERVER_HOLDS + ("memory", "server_hooks"):
        assert not (ROOT / f"{name}.py").exists() and not (ROOT / "core" / f"{name}.py").exists(), name


def test_the_layer_scan_sees_every_way_up(tmp_path):
    """The scan above sees an import of the server or of Streamlit however it is written."""
    sample = tmp_path / "sample.py"
    sample.write_text("from server.budget import BUDGET\nimport server\ndef f():\n    import streamlit as st\n"
                      "from server import turn\nfrom .budget import x\n", encoding="utf-8")
    assert [name for _, name in _imported(sample) if name in ABOVE_CORE] == ["server", "server", "streamlit", "server"]
