"""Korean and English strings, kept in ``assets/strings/*.json`` (no prose in code).

Each JSON file maps a key to ``{"ko": "...", "en": "..."}``; files are merged, and a key may
appear in only one file. Placeholders use ``str.format`` names: ``{row}``, ``{token}``.

    >>> t("ko", "app.title")
    'nn.Embedding 탐험기'
    >>> problem_text("en", Problem("duplicate_token", {"row": 3, "other": 2, "token": "영화"}))

Korean particles after a placeholder. A particle whose form depends on the last sound of the
word before it (을/를, 은/는, 이/가, 과/와, 으로/로, 이다/다, …) goes in the placeholder's format
spec, written in the form used after a consonant; ``t`` renders the value and the right form::

    "{token:을} 찾습니다"   token="영화" → "영화를 찾습니다"    token="책" → "책을 찾습니다"
    "번호 {pad:과} 같다"    pad=1 → "번호 1과 같다"           pad=2 → "번호 2와 같다"
    "{unk:으로} 바꿉니다"   unk=0 → "0으로 바꿉니다"           unk=1 → "1로 바꿉니다"
    "{n:,을}"               n=1000 → "1,000을"  (an ordinary spec first, then the particle)
    "{token:`을} 찾습니다"  token="영화" → "`영화`를 찾습니다"  (a backtick first: the value as code)

A particle never follows the closing quote or backtick of a placeholder ("`{token}`을"): the
particle would have to be inside the quotes. Write ``{token:`을}``, or a noun between
("'{token}' 토큰이").

The form is chosen from how the value is read aloud (`final_consonant`): Hangul by its last
syllable, numbers as Korean numerals (1 일 → "1과", 2 이 → "2와", 1000 천 → "1,000을"), code
marks skipped (`padding_value=1`을, W[1, :]을), an aside in brackets skipped (<PAD>(번호 1)는) but a
call's arguments read (N(0, 1)로, nn.Embedding(V, E)가), Latin letters by their
Korean names (W 더블유 → W를, L 엘 → L을, LSTM 엘에스티엠 → LSTM을), a few words the app shows
by their usual reading (PAD 패드 → PAD를, token 토큰 → token을) and other English words by the
usual transcription of their ending (movie 무비 → movie를, fun 펀 → fun을). There is never an
"을(를)" fallback: a value nothing can read is taken as ending in a vowel.
"""

from __future__ import annotations

import json
import re
import string
from functools import lru_cache
from pathlib import Path
from types import MappingProxyType

import tossi
from tossi.coda import filter_only_significant, guess_coda, pick_coda_from_letter

from components.safe_text import code_placeholders, md_code, md_escape
from core.problems import Problem

LANGS = ("ko", "en")
STRINGS_DIR = Path(__file__).resolve().parent.parent / "assets" / "strings"


@lru_cache(maxsize=1)
def strings() -> dict[str, dict[str, str]]:
    """All strings, merged from every file (read once per process; immutable content)."""
    merged: dict[str, dict[str, str]] = {}
    for path in sorted(STRINGS_DIR.glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        for key, value in data.items():
            if key in merged:
                raise ValueError(f"string key {key!r} is defined twice (second time in {path.name})")
            merged[key] = value
    return merged


# ---- How the end of a value is read, for choosing a particle.

# The Korean names of the Latin letters, as a Korean teacher reads "W", "LSTM", "V×E".
LETTER_NAMES = MappingProxyType(dict(zip(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZ",
    ("에이 비 씨 디 이 에프 지 에이치 아이 제이 케이 엘 엠 엔 오 피 큐 알 에스 티 유 브이 더블유 엑스 와이 제트").split(),
)))

# Words the app puts in front of a particle whose reading the spelling rules below would miss
# or that are read as words although written in capitals (PAD 패드, UNK 언크, not letter names).
WORD_READINGS = MappingProxyType({
    "pad": "패드", "unk": "언크", "id": "아이디", "ids": "아이디스", "adam": "아담", "json": "제이슨",
    "torch": "토치", "pytorch": "파이토치", "python": "파이썬", "nan": "난", "inf": "인프",
    "none": "논", "true": "트루", "false": "폴스", "seed": "시드", "grad": "그래드", "cos": "코스",
    "step": "스텝", "loss": "로스", "token": "토큰", "tensor": "텐서", "vocab": "보캡",
    "embedding": "임베딩", "a": "어", "the": "더", "i": "아이",
})

_VOWEL_LETTERS = frozenset("aeiouy")


def _english_reading_ends_in(word: str) -> str:
    """The last sound of an English word as Korean transcribes it: a coda jamo, or '' for a vowel.

    >>> [_english_reading_ends_in(w) for w in ("movie", "fun", "acting", "dull", "time", "plot", "best")]
    ['', 'ㄴ', 'ㅇ', 'ㄹ', 'ㅁ', 'ㅅ', '']
    """
    w = word.lower()
    if w.endswith("ng"):
        return "ㅇ"  # acting 액팅, long 롱
    if w.endswith(("m", "me", "mb")):
        return "ㅁ"  # time 타임, film 필름
    if w.endswith(("n", "ne", "gn")):
        return "ㄴ"  # fun 펀, line 라인, design 디자인
    if w.endswith(("l", "le")):
        return "ㄹ"  # dull 덜, awful 오풀, table 테이블, file 파일
    if w.endswith(("ck", "ic")):
        return "ㄱ"  # back 백, music 뮤직
    last, before = w[-1], w[:-1]
    short_vowel = (len(before) >= 1 and before[-1] in "aeiou"
                   and (len(before) == 1 or before[-2] not in _VOWEL_LETTERS or before.endswith("oo")))
    if last in "ptkb" and short_vowel:
        return {"p": "ㅂ", "t": "ㅅ", "k": "ㄱ", "b": "ㅂ"}[last]  # top 톱, plot 플롯, book 북, web 웹
    return ""  # a vowel, r, s, x, d, g, f, v, silent e, or a cluster: movie 무비, bad 배드, best 베스트


def _latin_ends_in(run: str) -> str:
    """The last sound of a run of Latin letters: a known word, letter names, or an English word."""
    if run.lower() in WORD_READINGS:
        return pick_coda_from_letter(WORD_READINGS[run.lower()][-1])
    camel = re.search(r"[a-z]([A-Z]+)$", run)  # AdamW, nnE: the trailing capitals are letters
    if len(run) == 1 or run.isupper() or camel or not (set(run.lower()) & _VOWEL_LETTERS):
        return pick_coda_from_letter(LETTER_NAMES[run[-1].upper()][-1])  # W 더블유, LSTM …엠, sgd …디
    return _english_reading_ends_in(run)


def final_consonant(value: object) -> str:
    """The final consonant (jamo) of how ``value`` is read aloud in Korean, '' after a vowel.

    >>> [final_consonant(v) for v in ("영화", "책", 1, 2, "`padding_value=1`", "W[1, :]", "<PAD>(번호 1)", "L")]
    ['', 'ㄱ', 'ㄹ', '', 'ㄹ', 'ㄹ', '', 'ㄹ']
    """
    text = str(value).strip().strip("`'\"‘’“”")  # code marks and quotes are not read
    if text.endswith("%"):
        return ""  # 퍼센트
    call = re.search(r"[A-Za-z0-9_\]]\(([^()]*)\)$", text)
    if call and not re.search(r"[가-힣]", call.group(1)):  # code: emb(ids), N(0, 1) are read to the end
        inner = call.group(1).strip()
        return final_consonant(inner) if inner else final_consonant(text[: call.start() + 1])
    coda = guess_coda(text)  # Hangul, numerals (1 일, 10 십, 10000 만), brackets and code skipped
    if coda is not None:
        return coda
    run = re.search(r"[A-Za-z]+$", filter_only_significant(text))
    return _latin_ends_in(run.group(0)) if run else ""


# A particle spec: the consonant-final form of a particle whose form depends on the word before.
PARTICLE_SPEC = re.compile(r"(을|은|과|아|으로\w*|이\w*)$")


def particle_for(value_text: str, particle: str) -> str:
    """The form of ``particle`` (written after-a-consonant, e.g. '을') that follows ``value_text``.

    >>> particle_for("영화", "을"), particle_for("1", "으로"), particle_for("PAD", "이다")
    ('를', '로', '다')
    """
    return tossi.pick(value_text, particle, guess_coda=final_consonant)


class _Code(str):
    """A value its template shows as code (`` `{token}` ``): escaped as a code span, not as text."""


class _Formatter(string.Formatter):
    """``str.format`` plus particles in the spec: ``{token:을}``, ``{n:,과}``.

    With ``markdown=True`` every string value is shown literally in Markdown (components.safe_text):
    the particle is still chosen from the value as typed.
    """

    def __init__(self, markdown: bool = False):
        self.markdown = markdown

    def format_field(self, value, format_spec: str) -> str:
        m = re.search(r"(`?)([가-힣]*)$", format_spec)
        code, particle = m.group(1), m.group(2)
        if particle and not PARTICLE_SPEC.fullmatch(particle):
            raise ValueError(f"{particle!r} is not a particle written in its after-a-consonant form (을, 과, 으로, 이…)")
        text = super().format_field(value, format_spec[: m.start()] if (code or particle) else format_spec)
        read = f"`{text}`" if code else text  # what the particle follows
        if self.markdown and isinstance(value, str):
            shown = md_code(text) if code or isinstance(value, _Code) else md_escape(text)
        else:
            shown = read
        return shown + (particle_for(read, particle) if particle else "")


_FORMATTER = _Formatter()
_MARKDOWN = _Formatter(markdown=True)


def fill(text: str, **params) -> str:
    """``text.format(**params)`` with Korean particles chosen for each value (see the module doc)."""
    if _plain(text):  # no particle and no code mark in any spec: str.format writes the same
        return text.format(**params)
    return _FORMATTER.vformat(text, (), params)


@lru_cache(maxsize=4096)
def _plain(text: str) -> bool:
    """Whether no placeholder of ``text`` has a particle or a code mark in its format spec (whose
    text is then ``str.format``'s, written in C, rather than `_Formatter`'s Python)."""
    return not any(spec and re.search(r"`|[가-힣]$", spec) for _, _, spec, _ in string.Formatter().parse(text)
                   if spec is not None)


def t(lang: str, key: str, **params) -> str:
    """The string ``key`` in ``lang`` with ``params`` filled in. A missing key shows as ``[key]``."""
    entry = strings().get(key)
    if entry is None:
        return f"[{key}]"
    text = entry.get(lang) or entry.get("en") or f"[{key}]"
    return fill(text, **params) if params else text


def md(lang: str, key: str, **params) -> str:
    """`t` for a Markdown sink (st.markdown, captions, alerts, labels): every string param, which
    may be a learner's token or a file's text, is shown as text (components.safe_text), and one
    written as `` `{token}` `` as a code span that its own backticks cannot break."""
    entry = strings().get(key)
    if entry is None:
        return f"[{key}]"
    template, code = code_placeholders(entry.get(lang) or entry.get("en") or f"[{key}]")
    wrapped = {k: _Code(v) if k in code and isinstance(v, str) else v for k, v in params.items()}
    return _MARKDOWN.vformat(template, (), wrapped)


def problem_text(lang: str, problem: Problem) -> str:
    """A sentence naming what is wrong and how to fix it, from ``errors.json`` (key ``err.<code>``),
    for a Markdown sink: the problem's params (tokens, labels, file text) are shown as text."""
    try:
        return md(lang, f"err.{problem.code}", **problem.params)
    except (KeyError, IndexError, ValueError):
        return f"{t(lang, f'err.{problem.code}')} {md_escape(str(problem.params))}"


def lang_from_locale(locale: str | None) -> str:
    """'ko-KR' → 'ko'; anything else → 'en'; no locale (AppTest) → 'ko', the first audience."""
    if not locale:
        return "ko"
    return "ko" if locale.lower().startswith("ko") else "en"

