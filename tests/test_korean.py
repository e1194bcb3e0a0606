"""The Korean a learner reads: one term per concept, particles that agree with the word before.

Checked for every file in ``assets/strings`` (one test case per file, so a failure names the file):

- no Korean variant that ``assets/glossary.json`` forbids (표 for W, 틀, 레슨, 주장, …);
- no "을(를)"-style fallback, raw or rendered;
- a particle after a placeholder sits in the placeholder's spec, in its after-a-consonant form
  (``{token:을}``), never written after the field (``{token}을(를)``, ``'{token}'이``);
- rendered with sample values (digits, Latin letters, code, Hangul with and without a final
  consonant), each such particle takes the form the value's last sound asks for;
- a particle written in the text after a number, a Latin word, code or an aside in brackets
  agrees with how that word is read.

The answer key is Korean grammar, written out here by hand: the expected final sound of each
sample value and of each Latin word the strings use (``READ``), not `components.i18n`'s guess.
"""

from __future__ import annotations

import json
import re
import string
from pathlib import Path

import pytest

from components.i18n import fill

ROOT = Path(__file__).resolve().parent.parent
STRINGS = ROOT / "assets" / "strings"
GLOSSARY = json.loads((ROOT / "assets" / "glossary.json").read_text(encoding="utf-8"))["terms"]

FALLBACK = re.compile(r"\((을|를|은|는|이|가|과|와|으|이어|이에|아|야)\)|[을를은는이가과와]/[을를은는이가과와](?![가-힣])")

# The particles whose form depends on the word before: after a consonant → after a vowel.
AFTER_VOWEL = {
    "을": "를", "은": "는", "이": "가", "과": "와", "으로": "로", "아": "야", "이다": "다", "이어야": "여야",
    "이에요": "예요", "이며": "며", "이고": "고", "이나": "나", "이라": "라", "이라는": "라는", "이란": "란",
    "이면": "면", "이었다": "였다", "으로서": "로서", "으로는": "로는", "이든": "든", "이랑": "랑",
}
VARIABLE = sorted(set(AFTER_VOWEL) | set(AFTER_VOWEL.values()) - {"다", "고", "며", "면", "든", "나"}, key=len, reverse=True)

# Final consonant of each digit's Korean reading (영 일 이 삼 사 오 육 칠 팔 구). A longer number
# ends in the same class: 십 백 천 만 억 all end in a consonant other than ㄹ, like 영.
DIGIT = {"0": "ㅇ", "1": "ㄹ", "2": "", "3": "ㅁ", "4": "", "5": "", "6": "ㄱ", "7": "ㄹ", "8": "ㄹ", "9": ""}
LETTER = dict(zip("abcdefghijklmnopqrstuvwxyz",  # 에이 비 씨 디 이 에프 지 에이치 아이 제이 케이 엘 엠 엔 오 피 큐 알 에스 티 유 브이 더블유 엑스 와이 제트
                  ["", "", "", "", "", "", "", "", "", "", "", "ㄹ", "ㅁ", "ㄴ", "", "", "", "ㄹ", "", "", "", "", "", "", "", ""]))
# Latin words the strings put before a particle, and the final consonant of how a teacher reads them.
READ = {
    "pad": "", "unk": "", "adam": "ㅁ", "torch": "", "json": "ㄴ", "repr": "", "py": "", "padding_idx": "",
    "mb": "", "csv": "", "w": "", "e": "", "v": "", "k": "", "embedding": "ㅇ", "none": "ㄴ", "explorer": "",
    "version": "ㄴ", "enter": "", "equal": "ㄹ", "emb": "", "ids": "", "inf": "", "nan": "ㄴ", "parameters": "",
    "embeddings": "", "indexerror": "", "tensor": "", "pretrained": "", "inputs": "", "sequence": "", "value": "",
    "norm": "ㅁ", "freq": "", "true": "", "false": "", "sparseadam": "ㅁ", "adamw": "", "embeddingbag": "ㄱ",
    "hot": "ㅅ", "load": "", "pytorch": "", "tsv": "", "allclose": "",
}
# Sample values for placeholders and the final consonant of their reading (by hand).
SAMPLES = [("영화", ""), ("책", "ㄱ"), ("하늘", "ㄹ"), ("1", "ㄹ"), ("2", ""), ("3", "ㅁ"), ("10", "ㅂ"),
           ("W", ""), ("L", "ㄹ"), ("PAD", ""), ("<UNK>", ""), ("`padding_value=1`", "ㄹ"), ("W[1, :]", "ㄹ"),
           ("<PAD>(번호 1)", ""), ("token", "ㄴ"), ("movie", ""), ("3, 5", ""), ("(6, 3)", "ㅁ")]
NUMBERS = [1, 2, 3, 7, 10, 1000, 12345, 100000, 0.5, 2.0, 0.16623426973819733, 1e-08]

MARK = "\x00"  # where a placeholder was, in a template scanned for literal particles


def per_file():
    for path in sorted(STRINGS.glob("*.json")):
        yield pytest.param(path, id=path.name)


def korean(path: Path) -> dict[str, str]:
    return {k: v["ko"] for k, v in json.loads(path.read_text(encoding="utf-8")).items()}


def fields(text: str):
    """(name, conversion, standard spec, code, particle) of each placeholder: ``{n:,`을}``."""
    for _, name, spec, conv in string.Formatter().parse(text):
        if name is None:
            continue
        m = re.search(r"(`?)([가-힣]*)$", spec or "")
        yield name, conv, (spec or "")[: m.start()], m.group(1), m.group(2)


def coda_of_hangul(ch: str) -> str:
    jong = (ord(ch) - 0xAC00) % 28
    return "" if jong == 0 else "ㄱㄲㄳㄴㄵㄶㄷㄹㄺㄻㄼㄽㄾㄿㅀㅁㅂㅄㅅㅆㅇㅈㅊㅋㅌㅍㅎ"[jong - 1]


def expected_form(particle: str, coda: str) -> str:
    """The form a word ending in ``coda`` takes ('' = a vowel); 으로 goes to 로 after ㄹ too."""
    if particle.startswith("으로"):
        return particle if coda and coda != "ㄹ" else AFTER_VOWEL[particle]
    return particle if coda else AFTER_VOWEL[particle]


def canonical(form: str) -> str:
    """The after-a-consonant spelling of a particle written in either form."""
    return next((k for k, v in AFTER_VOWEL.items() if form in (k, v)), form)


def number_coda(text: str) -> str:
    digits = re.sub(r"[^0-9]", "", text.split("e")[-1] if "e-" in text or "e+" in text else text)
    return DIGIT[digits[-1]]


# ---- glossary


def test_glossary_is_one_entry_per_concept_with_explanations_in_both_languages():
    from components.i18n import strings

    ids = [e["id"] for e in GLOSSARY]
    assert len(ids) == len(set(ids))
    assert len({e["ko"] for e in GLOSSARY}) == len(GLOSSARY)
    for e in GLOSSARY:
        assert e["ko"].strip() and e["en"].strip()
        for pattern in e["forbidden_ko"]:
            assert not re.search(pattern, e["ko"]), (e["id"], pattern)  # the term is not its own variant
        if "gloss" in e:
            assert all(strings()[e["gloss"]][lang].strip() for lang in ("ko", "en")), e["gloss"]
    glossed = {e["gloss"] for e in GLOSSARY if "gloss" in e}
    assert {k for k in strings() if k.startswith("gloss.")} == glossed  # every explanation names its concept


@pytest.mark.parametrize("path", per_file())
def test_no_forbidden_variant_of_a_glossary_term(path):
    found = [(key, e["id"], m.group(0)) for key, text in korean(path).items() for e in GLOSSARY
             for pattern in e["forbidden_ko"] for m in re.finditer(pattern, text)]
    assert not found, found


# ---- particles


@pytest.mark.parametrize("path", per_file())
def test_no_fallback_particle_forms(path):
    bad = [(key, m.group(0)) for key, text in korean(path).items() for m in FALLBACK.finditer(text)]
    assert not bad, bad


@pytest.mark.parametrize("path", per_file())
def test_a_particle_after_a_placeholder_sits_in_its_spec_in_the_after_consonant_form(path):
    bad = []
    after_field = re.compile(r"\}[`'\"’”\]]*(" + "|".join(VARIABLE) + r")(?![가-힣])")
    for key, text in korean(path).items():
        bad += [(key, m.group(0)) for m in after_field.finditer(text)]
        bad += [(key, f"{{{name}:{spec}{p}}}") for name, _, spec, _, p in fields(text) if p and p not in AFTER_VOWEL]
    assert not bad, bad


@pytest.mark.parametrize("path", per_file())
def test_particles_in_specs_agree_with_sample_values(path):
    bad = []
    for key, text in korean(path).items():
        for name, conv, spec, code, particle in fields(text):
            if not particle:
                continue
            samples = [(f"{x:{spec}}", x) for x in NUMBERS if _fits(x, spec)] if spec else \
                [(v, v) for v, _ in SAMPLES] + [(str(x), x) for x in NUMBERS]
            for shown, value in samples:
                coda = dict(SAMPLES).get(shown, None)
                coda = number_coda(shown) if coda is None else coda
                want = (f"`{shown}`" if code else shown) + expected_form(particle, coda)
                got = fill("{v" + (f"!{conv}" if conv else "") + f":{spec}{code}{particle}}}", v=value)
                if got != want:
                    bad.append((key, got, want))
    assert not bad, bad[:20]


def _fits(x, spec: str) -> bool:
    try:
        format(x, spec)
        return True
    except ValueError:
        return False


@pytest.mark.parametrize("path", per_file())
def test_every_string_renders_with_sample_values_and_no_fallback(path):
    entries = json.loads(path.read_text(encoding="utf-8"))
    for key, entry in entries.items():
        for lang in ("ko", "en"):
            text = entry[lang]
            specs = {name: spec for name, _, spec, _, _ in fields(text)}
            if not specs:
                continue
            assert lang == "ko" or not any(p for *_, p in fields(text)), (key, "a particle spec in English")
            for sample, _ in SAMPLES:
                params = {n: sample if not s else next(x for x in NUMBERS if _fits(x, s)) for n, s in specs.items()}
                out = fill(text, **params)
                assert not FALLBACK.search(out), (key, out)


def literal_codas(before: str) -> tuple[str | None, str]:
    """(final consonant, how it was found) of the word that ends ``before``; None: unreadable.

    An aside in brackets after a word is not read (<PAD>(번호 1)는, 행(번호 1)을); a call's
    arguments are (N(0, 1)로, emb(ids)가); a bracketed group standing alone is read inside.
    """
    core, aside = before, False
    while True:
        stripped = re.sub(r"[`'\"’”\]>*:,\s]+$", "", core)  # quotes, code marks, W[1, :]'s closing
        group = re.search(r"(^|.)\(([^()]*)\)$", stripped)
        if group and group.group(1) in ("", " "):
            stripped = stripped[:-1]  # (B, T, E): the group is the word; read its end
        elif group and (re.search(r"[가-힣]", group.group(2)) or not re.match(r"[A-Za-z0-9_\]]", group.group(1))):
            stripped = stripped[: group.start(2) - 1]  # an aside: read the word before it
            aside = True
        elif group:
            stripped = stripped[:-1] if group.group(2).strip() else stripped[: group.start(2) - 1]  # a call: f(x), f()
        elif stripped.endswith(")"):
            stripped = stripped[:-1]  # the outer call of f(g(x)): read on inside
        if stripped == core:
            break
        core = stripped
    last = core[-1:] if core else ""
    if not last or last.isspace():
        return None, "nothing"
    if last == MARK:
        return None, "placeholder"
    if "가" <= last <= "힣":
        return coda_of_hangul(last), "aside" if aside else "hangul"
    if last.isdigit():
        return DIGIT[last], "digit"
    word = re.search(r"[A-Za-z_.]+$", core)
    if word:
        segment = word.group(0).lower().split(".")[-1]
        for w in (segment, segment.split("_")[-1]):
            if w in READ:
                return READ[w], "word"
        if len(segment) == 1 or word.group(0).split(".")[-1].isupper():
            return LETTER[segment[-1]], "letters"
        return None, f"unknown word {word.group(0)!r}: add its reading to READ"
    return None, f"symbol {last!r}: write a word before the particle"


SCAN = re.compile(r"(" + "|".join(("으로", "을", "를", "은", "는", "이", "가", "과", "와", "로")) + r")(?![가-힣])")


def check_literal_particles(key: str, template: str) -> list[tuple[str, str, str]]:
    """(key, where, why) for each particle in ``template`` (placeholders as MARK) that disagrees."""
    bad = []
    for m in SCAN.finditer(template):
        before = template[: m.start()]
        if before[-1:].isspace():
            if m.group(1) != "이" and re.search(r"[^\s가-힣]\s+$", before):
                bad.append((key, before[-15:] + m.group(1), "a space before the particle: attach it to the word"))
            continue  # 이 as a determiner ("이 파일")
        if not before:
            continue
        coda, how = literal_codas(before)
        if how == "hangul" and m.group(1) not in ("을", "를"):
            continue  # Hangul + 이/가/은/는/과/와/로 may be one word (사이, 결과, 경로): only 을/를 are sure
        if coda is None:
            if how != "nothing":
                bad.append((key, before[-15:] + m.group(1), how))
            continue
        want = expected_form(canonical(m.group(1)), coda)
        if m.group(1) != want:
            bad.append((key, before[-15:] + m.group(1), f"should be {want}"))
    return bad


@pytest.mark.parametrize("path", per_file())
def test_particles_written_in_the_text_agree_with_the_word_before(path):
    bad = []
    for key, text in korean(path).items():
        bad += check_literal_particles(key, re.sub(r"\{[^{}]*\}", MARK, text.replace("{{", "(").replace("}}", ")")))
    assert not bad, bad


def test_preset_titles_follow_the_glossary_and_the_particle_rules():
    titles = {p.name: json.loads(p.read_text(encoding="utf-8"))["title"]["ko"]
              for p in sorted((ROOT / "assets" / "presets").glob("*.json"))}
    assert titles
    bad = [(name, e["id"]) for name, text in titles.items() for e in GLOSSARY
           for pattern in e["forbidden_ko"] if re.search(pattern, text)]
    bad += [(name, m.group(0)) for name, text in titles.items() for m in FALLBACK.finditer(text)]
    bad += [b for name, text in titles.items() for b in check_literal_particles(name, text)]
    assert not bad, bad


def test_the_embedding_projector_and_a_classroom_projector_are_two_words_in_both_languages():
    """TensorFlow's tool is 임베딩 프로젝터 / the Embedding Projector; the classroom's is 빔 프로젝터 / a
    projector (lower case). Each Korean 프로젝터 is one of the two (the glossary forbids a bare one)."""
    from components.i18n import strings

    ids = {e["id"] for e in GLOSSARY}
    assert {"embedding_projector", "classroom_projector"} <= ids
    for key, entry in strings().items():
        ko, en = entry.get("ko", ""), entry.get("en", "")
        assert len(re.findall("프로젝터", ko)) == len(re.findall("(?:임베딩|빔) 프로젝터", ko)), key
        assert len(re.findall("Projector", en)) == len(re.findall("Embedding Projector", en)), key
