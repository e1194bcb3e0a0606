"""The documentation holds: README is for users and short, every widget key is documented, and the
code's comments and docstrings neither carry measurements (those live in bench/RESULTS.md) nor cite
names or files that do not exist."""

from __future__ import annotations

import ast
import importlib
import io
import re
import tokenize
from pathlib import Path

import pytest

from support.tracked import tracked_named

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
APP_CODE = [*sorted(ROOT.glob("*.py")), *sorted((ROOT / "server").rglob("*.py")), *sorted((ROOT / "session").rglob("*.py")),
            *sorted((ROOT / "views").rglob("*.py")), *sorted((ROOT / "core").rglob("*.py")), *sorted((ROOT / "components").rglob("*.py")),
            *sorted((ROOT / "sections").rglob("*.py")), *sorted((ROOT / "assets").glob("*.py"))]
ALL_CODE = APP_CODE + sorted((ROOT / "tests").rglob("*.py")) + sorted((ROOT / "bench").rglob("*.py")) \
    + sorted((ROOT / "support").rglob("*.py")) + sorted((ROOT / "scripts").rglob("*.py"))


def _rel(path: Path) -> str:
    return str(path.relative_to(ROOT))


def prose(path: Path) -> list[tuple[int, str]]:
    """(line, text) of every comment and docstring line of a Python file."""
    src = path.read_text(encoding="utf-8")
    out = [(t.start[0], t.string) for t in tokenize.generate_tokens(io.StringIO(src).readline)
           if t.type == tokenize.COMMENT]
    for node in ast.walk(ast.parse(src)):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            doc = ast.get_docstring(node, clean=False)
            if doc:
                out += [(node.body[0].lineno + i, line) for i, line in enumerate(doc.splitlines())]
    return sorted(out)


# ---- README ------------------------------------------------------------------------------------
def test_readme_is_short_and_gives_the_two_commands():
    text = README.read_text(encoding="utf-8")
    assert len(text) <= 12_000, f"README.md is {len(text):,} characters; move detail to docs/ or bench/"
    assert "python -m pip install --retries 1 -r requirements.txt && python -m streamlit run app.py" in text
    assert "\nbash scripts/test.sh\n" in text
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "\nbash scripts/test.sh\n" in ci, "CI runs exactly the test command README gives"


@pytest.mark.parametrize("doc", ["README.md", "docs/scripting.md", "docs/tests.md", "docs/guide.md", "docs/training.md",
                                 "bench/README.md"])
def test_every_file_a_document_links_exists(doc):
    text = (ROOT / doc).read_text(encoding="utf-8")
    cited = set(re.findall(r"\]\(([^)#\s]+)\)", text))  # Markdown links and images
    cited |= {m for m in re.findall(r"(?<!:)\b((?:docs|bench|deploy|tests|core|components|sections|scripts|assets)/[\w./*<>-]*\w)",
                                    text) if not set("*<>") & set(m)}
    missing = sorted(c for c in cited if not (ROOT / c).exists() and not (ROOT / doc).parent.joinpath(c).exists()
                     and not c.startswith("http"))
    assert not missing, f"{doc} names files that do not exist: {missing}"


def test_every_widget_key_is_documented():
    """docs/scripting.md documents every key of session.Keys (a prefix key as `prefix<…>`)."""
    import session

    text = (ROOT / "docs" / "scripting.md").read_text(encoding="utf-8")
    keys = {name: v for name, v in vars(session.Keys).items() if name.isupper()}
    assert len(keys) > 50
    missing = sorted(f"{name} = {v!r}" for name, v in keys.items()
                     if f"`{v}`" not in text and not (v.endswith("_") and re.search(rf"`{re.escape(v)}<\w+>", text)))
    assert not missing, f"keys of session.Keys not in docs/scripting.md: {missing}"


# ---- comments and docstrings -------------------------------------------------------------------
_NUM = r"(?<![\w.])\d[\d,.]*(?:\s*[–-]\s*\d[\d,.]*)?"
FIGURE = re.compile(_NUM + r"\s*(?:ms|µs|us|ns|s|sec|seconds?|minutes?|min|[kKMG]i?B|%)(?!\w)"  # a time, size or share
                    r"|" + _NUM + r"\s*×(?!\s*\d)"  # a ratio (1.2×), not a shape (100k × 300)
                    r"|" + _NUM + r"x(?!\w)")
QUOTED = re.compile(r'"[^"]*"|``[^`]*``|`[^`]*`')  # an example of what the page prints is not a measurement


def test_figure_pattern():
    hits = [s for s in ("took ~5 ms", "0.92 GB measured", "1.34× plain torch", "16 MiB", "+9 %", "0.5 s", "2x faster")
            if FIGURE.search(s)]
    assert len(hits) == 7
    assert not [s for s in ("100k × 300", "C4 and X7", "E=512", 'the label "PC1 (90%)"', "3 steps", "float32")
                if FIGURE.search(QUOTED.sub("", s))]


def test_no_measurement_in_app_comments():
    """Timings and sizes go stale in code: they live in bench/RESULTS.md, beside the run that made them."""
    found = [f"{_rel(path)}:{line}: {m.group(0)!r} in {text.strip()[:100]!r}"
             for path in APP_CODE for line, text in prose(path) for m in FIGURE.finditer(QUOTED.sub("", text))]
    assert not found, "measurements in comments (move them to bench/RESULTS.md):\n" + "\n".join(found)


PACKAGES = ("session", "page", "server", "views", "core", "components", "sections",
            "support")
STREAMLIT_OPTION = re.compile(r"server\.[a-z]+[A-Z]\w*")  # Streamlit's config (server.baseUrlPath), not the package
DOTTED = re.compile(rf"(?<![\w./])((?:{'|'.join(PACKAGES)})(?:\.[A-Za-z_]\w*)+)")


def resolves(dotted: str) -> bool:
    """Whether ``a.b.c`` names a module, or an attribute reached from one (a class's field counts)."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for name in parts[cut:]:
            fields = getattr(obj, "__dataclass_fields__", {}) or getattr(obj, "model_fields", {}) or {}
            annotations = getattr(obj, "__annotations__", {}) if isinstance(obj, type) else {}
            if hasattr(obj, name):
                obj = getattr(obj, name)
            elif name in fields or name in annotations:
                return True
            else:
                return False
        return True
    return False


def test_every_dotted_name_cited_exists():
    """A module, class, function or attribute a docstring or comment cites by its dotted name exists;
    a file name ending in .py or .md is not a dotted name. In tests and benchmarks ``page`` is a
    Playwright page, not the app's module."""
    dangling = []
    for path in ALL_CODE:
        for line, text in prose(path):
            for name in DOTTED.findall(text):
                if name.startswith("page.") and path not in APP_CODE or STREAMLIT_OPTION.fullmatch(name):
                    continue
                name = re.sub(r"\.(py|md|json|js|mjs|css|toml|txt)$", "", name)
                if not resolves(name):
                    dangling.append(f"{_rel(path)}:{line}: {name}")
    assert not dangling, "names cited that do not exist:\n" + "\n".join(dangling)


# Files that are named but live outside the tree: plotly's bundle, a protobuf field, a doctest's output,
# a module specifier pattern.
ELSEWHERE = {"plotly.js", "plotly.min.js", "proto.json", "rebuild.py", "./name.mjs"}


def test_every_document_a_comment_cites_exists():
    """A file a comment or docstring names (a document, a module, a script) is in the tree."""
    cited = re.compile(r"(?<![\w/.-])((?:[\w.-]+/)*[\w.-]+\.(?:md|js|mjs|py|json|toml|yaml|cfg|sh))(?![\w/])")
    missing = []
    for path in ALL_CODE:
        for line, text in prose(path):
            for name in cited.findall(text):
                here = [ROOT / name, path.parent / name, ROOT / "bench" / name, ROOT / "tests" / name,
                        ROOT / "tests" / "e2e" / name, ROOT / "core" / name, ROOT / "components" / name]
                if name in ELSEWHERE:
                    continue
                if not any(p.exists() for p in here) and not tracked_named(name):
                    missing.append(f"{_rel(path)}:{line}: {name}")
    assert not missing, "files cited that do not exist:\n" + "\n".join(missing)
