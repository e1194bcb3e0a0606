"""components/stage/bundle.py: the stage's ES modules composed into the one module Streamlit takes.

The composed module is run by node where node is installed (as scripts/test.sh needs it anyway):
modules keep their own scopes, imports resolve, and the page's module evaluates.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from components.stage import JS
from components.stage.bundle import BundleError, bundle

JS_DIR = Path(__file__).resolve().parent.parent / "components" / "stage" / "js"
NODE = shutil.which("node")
needs_node = pytest.mark.skipif(NODE is None, reason="node is not installed")


def _write(folder: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


def _run_default(tmp_path: Path, js: str, arg: str = "null") -> str:
    """Import ``js`` as a module in node and print what its default export returns for ``arg``."""
    mod = tmp_path / "bundled.mjs"
    mod.write_text(js, encoding="utf-8")
    script = f"import(process.argv[1]).then((m) => console.log(JSON.stringify(m.default({arg}))))"
    out = subprocess.run([NODE, "--input-type=module", "-e", script, mod.as_uri()],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def test_the_page_gets_the_code_without_its_comments():
    """Streamlit sends the component's code with every update of it: comments stay in js/."""
    source = sum(len(f.read_text(encoding="utf-8")) for f in JS_DIR.glob("*.mjs"))
    assert len(JS) < 0.8 * source
    assert not [line for line in JS.splitlines() if line.strip().startswith("//") and not line.startswith("// ---- ")]


def test_the_page_gets_every_module_the_entry_imports_once_in_dependency_order():
    reachable = {"index"}
    todo = ["index"]
    while todo:
        text = (JS_DIR / f"{todo.pop()}.mjs").read_text(encoding="utf-8")
        for dep in re.findall(r'^import \{[^}]*\} from "\./(\w+)\.mjs";', text, re.M):
            if dep not in reachable:
                reachable.add(dep)
                todo.append(dep)
    headers = re.findall(r"^// ---- (\w+)\.mjs$", JS, re.M)
    assert sorted(headers) == sorted(reachable) and len(headers) == len(set(headers))
    assert headers[-1] == "index"
    pos = {name: i for i, name in enumerate(headers)}
    for name in headers:  # every module comes after the modules it imports
        text = (JS_DIR / f"{name}.mjs").read_text(encoding="utf-8")
        for dep in re.findall(r'from "\./(\w+)\.mjs"', text):
            assert pos[dep] < pos[name], (dep, name)
    assert not re.search(r"^\s*import\b", JS, re.M)
    assert len(re.findall(r"^export\b", JS, re.M)) == 1 and "export default function" in JS
    assert JS == bundle(JS_DIR)  # deterministic


def test_modules_keep_their_own_scope_and_imports_resolve(tmp_path):
    _write(tmp_path, {
        "a.mjs": '// a comment\n/** a doc\n * comment */\nconst secret = 1; // kept: code before it\n\n'
                 'export const A = 10;\n/* short */ const one = 1;\n'
                 'export function addA(x) { return x + A + secret * one; }\n',
        "b.mjs": 'import { addA as plusA, A } from "./a.mjs";\nconst secret = 100;\n'
                 'export function twice(x) { return plusA(plusA(x)) + secret + A; }\n',
        "index.mjs": 'import {\n  twice,\n} from "./b.mjs";\nimport { A } from "./a.mjs";\n'
                     'const secret = 1000;\nexport default function (x) { return [twice(x), A, secret]; }\n',
    })
    js = bundle(tmp_path)
    assert js.count("// ---- a.mjs") == 1  # imported twice, composed once
    assert "a comment" not in js and "a doc" not in js and "short" not in js and "\n\n\n" not in js
    assert "const secret = 1; // kept" in js
    if NODE:
        # twice(1) = (1 + 11) + 11 + 100 + 10: each module sees its own `secret`
        assert json.loads(_run_default(tmp_path, js, "1")) == [133, 10, 1000]


@needs_node
def test_the_stage_module_evaluates_in_node(tmp_path):
    # Only the default export runs in a page; evaluating the module touches no DOM, so node runs it.
    mod = tmp_path / "stage.mjs"
    mod.write_text(JS, encoding="utf-8")
    out = subprocess.run([NODE, "--input-type=module", "-e",
                          "import(process.argv[1]).then((m) => console.log(typeof m.default, Object.keys(m).join()))",
                          mod.as_uri()], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["function", "default"]


@pytest.mark.parametrize(("files", "needle"), [
    ({"index.mjs": 'import { x } from "./a.mjs";\nexport default function () {}\n',
      "a.mjs": 'import { y } from "./index.mjs";\nexport const x = 1;\n'}, "import cycle: index → a → index"),
    ({"index.mjs": 'import { nope } from "./a.mjs";\nexport default function () {}\n',
      "a.mjs": "export const x = 1;\n"}, "a.mjs exports no nope"),
    ({"index.mjs": 'import { x } from "./missing.mjs";\nexport default function () {}\n'}, "missing.mjs, which does not exist"),
    ({"index.mjs": 'import * as a from "./a.mjs";\nexport default function () {}\n', "a.mjs": ""}, "index.mjs:1"),
    ({"index.mjs": 'import { x } from "./a.js";\nexport default function () {}\n'}, "index.mjs:1"),
    ({"index.mjs": 'import { x } from "./a.mjs";\nexport default function () {}\n',
      "a.mjs": "let n = 0;\nexport let x = 1;\n"}, "a.mjs:2"),
    ({"index.mjs": 'import { x } from "./a.mjs";\nexport default function () {}\n',
      "a.mjs": "const x = 1;\nexport { x };\n"}, "a.mjs:2"),
    ({"index.mjs": 'import { x } from "./a.mjs";\nexport default function () {}\n',
      "a.mjs": "export const x = 1;\nexport default function () {}\n"}, "a.mjs:2"),
    ({"index.mjs": "export function f() {}\n"}, "exactly one `export default function`"),
    ({"index.mjs": "const s = `one\n// not a comment\n`;\nexport default function () {}\n"},
     "index.mjs:1: a template literal spans lines"),
])
def test_forms_it_cannot_compose_are_errors_naming_the_place(tmp_path, files, needle):
    _write(tmp_path, files)
    with pytest.raises(BundleError, match=re.escape(needle)):
        bundle(tmp_path)
