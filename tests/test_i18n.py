"""Every string exists in Korean and English, with the same placeholders, for every key the code uses."""

from __future__ import annotations

import re
import string
from pathlib import Path

from components.i18n import LANGS, strings

ROOT = Path(__file__).resolve().parent.parent


def fields(text: str) -> set[str]:
    return {f for _, f, _, _ in string.Formatter().parse(text) if f}


def test_every_string_has_both_languages_and_matching_placeholders():
    for key, entry in strings().items():
        for lang in LANGS:
            assert entry.get(lang, "").strip(), f"{key} has no {lang} text"
        assert fields(entry["ko"]) == fields(entry["en"]), key


def test_every_key_the_code_names_exists():
    s = strings()
    code = "\n".join(p.read_text(encoding="utf-8") for d in ("app.py", "page.py", "components", "sections")
                     for p in ((ROOT / d).rglob("*.py") if (ROOT / d).is_dir() else [ROOT / d]))
    literal = set(re.findall(r"""t\(lang, ["']([a-zA-Z0-9_.]+)["']""", code))
    missing = sorted(k for k in literal if k not in s)
    assert not missing, missing
    for prefix, options in (("section.", ("lookup", "train", "lessons", "share")), ("pooling.", None), ("opt.", None)):
        if options:
            assert all(prefix + o in s for o in options)
    from core.model import POOLINGS
    from core.training import OPTIMIZERS

    assert all(f"pooling.{p}" in s for p in POOLINGS)
    assert all(f"opt.{o}" in s and f"opt.explain.{o}" in s for o in OPTIMIZERS)


def test_every_problem_code_core_can_raise_has_a_message():
    s = strings()
    src = "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "core").rglob("*.py"))
    codes = set(re.findall(r'Problem\(\s*f?"([a-z_{}]+)"', src))
    expanded = set()
    for c in codes:
        if "{code}" in c:
            expanded |= {c.replace("{code}", x) for x in ("unk", "pad")}
        else:
            expanded.add(c)
    missing = sorted(c for c in expanded if f"err.{c}" not in s)
    assert not missing, missing
