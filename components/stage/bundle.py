"""The stage's ES modules (js/*.mjs) composed into the one module string a v2 component takes.

With a server, the browser loads js/index.mjs and its imports from the stage's folder
(streamlit_private.serve_component_files). Without one (AppTest, a bare script) the code goes
inline, and Streamlit loads a v2 component's inline ``js`` from a blob: URL, where relative imports
cannot resolve. So the modules are joined here, once, at import: each
non-entry module becomes a scope (an arrow function called once) that returns what it exports,
in dependency order; its imports become destructuring of those results. The entry module stays at
the top level with its ``export default``. Each file stays a real ES module that node imports for
the unit tests (tests/js/).

Only the forms the stage's modules use are accepted, and anything else is an error naming the file
and line (rather than a page that breaks in the browser):

- ``import { a, b as c } from "./name.mjs";`` at the start of a line (one or more lines);
- ``export function name``, ``export async function name``, ``export const name``, ``export class name``;
- ``export default function`` in the entry only.

Import cycles, imported names a module does not export, and two modules of one name are errors.

Whole-line comments (``// …`` and ``/* … */`` blocks that start a line) and blank lines are left
out of the inline module: Streamlit sends inline code with every update of the component. So that
no such line can be part of a string, a template literal may not span lines (an error).
"""

from __future__ import annotations

import re
from pathlib import Path

_IMPORT = re.compile(r'^import\s*\{([^}]*)\}\s*from\s*"\./([A-Za-z0-9_-]+)\.mjs";[ \t]*$', re.M)
_ANY_IMPORT = re.compile(r"^[ \t]*import\b(?!\s*\()", re.M)  # a static import (not import(…))
_EXPORT = re.compile(r"^export\s+(?:async\s+function\*?|function\*?|const|class)\s+([A-Za-z_$][\w$]*)", re.M)
_ANY_EXPORT = re.compile(r"^[ \t]*export\b", re.M)
_DEFAULT = re.compile(r"^export\s+default\s+function\b", re.M)
_NAME = re.compile(r"^[A-Za-z_$][\w$]*$")


class BundleError(ValueError):
    """A module uses a form the bundler does not compose, or the modules do not fit together."""


def _line(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def _scope_name(module: str) -> str:
    return "__stage_" + re.sub(r"\W", "_", module)


class _Module:
    def __init__(self, name: str, path: Path, entry: bool):
        self.name, self.path, self.entry = name, path, entry
        self.text = path.read_text(encoding="utf-8")
        self.imports: list[tuple[str, list[tuple[str, str]], re.Match]] = []  # (module, [(name, alias)], match)
        for m in _IMPORT.finditer(self.text):
            names = []
            for part in (p.strip() for p in m.group(1).split(",")):
                if not part:
                    continue
                bits = part.split()
                if len(bits) == 1 and _NAME.match(bits[0]):
                    names.append((bits[0], bits[0]))
                elif len(bits) == 3 and bits[1] == "as" and _NAME.match(bits[0]) and _NAME.match(bits[2]):
                    names.append((bits[0], bits[2]))
                else:
                    self._fail(m.start(), f"cannot read the imported name {part!r}")
            self.imports.append((m.group(2), names, m))
        known = {m.start() for _, _, m in self.imports}
        for m in _ANY_IMPORT.finditer(self.text):
            if m.start() not in known:
                self._fail(m.start(), 'only `import { … } from "./name.mjs";` at the start of a line is composed')
        found = list(_EXPORT.finditer(self.text))
        self.exports = [m.group(1) for m in found]
        allowed = {m.start() for m in found}
        defaults = [m.start() for m in _DEFAULT.finditer(self.text)]
        for m in _ANY_EXPORT.finditer(self.text):
            if m.start() in allowed or (entry and m.start() in defaults[:1]):
                continue
            self._fail(m.start(), "only `export function|const|class name` (and `export default function` "
                                  "in the entry) is composed")
        if entry and len(defaults) != 1:
            raise BundleError(f"{path.name}: the entry needs exactly one `export default function`")
        for n, line in _code(self.text):
            if line.split("//")[0].count("`") % 2:  # a template literal opens or closes here
                raise BundleError(f"{path.name}:{n}: a template literal spans lines")
        if len(set(self.exports)) != len(self.exports):
            raise BundleError(f"{path.name}: a name is exported twice")

    def _fail(self, pos: int, why: str) -> None:
        raise BundleError(f"{self.path.name}:{_line(self.text, pos)}: {why}")

    def body(self, modules: dict[str, _Module]) -> str:
        """The module's text with its imports as destructuring of the scopes it imports."""
        out, last = [], 0
        for dep, names, m in self.imports:
            missing = [n for n, _ in names if n not in set(modules[dep].exports)]
            if missing:
                self._fail(m.start(), f"{dep}.mjs exports no {', '.join(missing)}")
            fields = ", ".join(n if n == a else f"{n}: {a}" for n, a in names)
            out += [self.text[last:m.start()], f"const {{ {fields} }} = {_scope_name(dep)};"]
            last = m.end()
        out.append(self.text[last:])
        text = _code_lines("".join(out))
        return text if self.entry else _EXPORT.sub(lambda m: m.group(0)[len("export"):].lstrip(), text)


def _code(text: str):
    """(line number, line) of every line of ``text`` that is not a whole-line comment or blank."""
    in_block = False
    for n, line in enumerate(text.split("\n"), 1):
        s = line.strip()
        if in_block or s.startswith("/*"):
            end = line.find("*/", line.find("/*") + 2 if not in_block else 0)
            in_block = end < 0
            rest = "" if in_block else line[end + 2:]
            if rest.strip():  # code after the comment's end
                yield n, rest
        elif s and not s.startswith("//"):
            yield n, line


def _code_lines(text: str) -> str:
    return "\n".join(line for _, line in _code(text)) + "\n"


def bundle(folder: Path, entry: str = "index") -> str:
    """One ES module: every module ``entry`` imports (directly or not) from ``folder``, then ``entry``."""
    folder = Path(folder)
    modules: dict[str, _Module] = {}
    order: list[str] = []
    visiting: list[str] = []

    def visit(name: str, importer: str | None) -> None:
        if name in order:
            return
        if name in visiting:
            raise BundleError("import cycle: " + " → ".join(visiting[visiting.index(name):] + [name]))
        path = folder / f"{name}.mjs"
        if not path.is_file():
            raise BundleError(f"{importer}.mjs imports ./{name}.mjs, which does not exist in {folder}")
        modules[name] = mod = _Module(name, path, entry=name == entry)
        visiting.append(name)
        for dep, _, _ in mod.imports:
            visit(dep, name)
        visiting.pop()
        order.append(name)

    visit(entry, None)
    parts = []
    for name in order:
        mod = modules[name]
        if mod.entry:
            parts.append(f"// ---- {name}.mjs\n{mod.body(modules)}")
        else:
            parts.append(f"// ---- {name}.mjs\nconst {_scope_name(name)} = (() => {{\n{mod.body(modules)}\n"
                         f"return {{ {', '.join(mod.exports)} }};\n}})();\n")
    return "\n".join(parts)
