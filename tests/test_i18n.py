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


# ---- Particles after placeholders: the expected forms are Korean grammar, written out by hand.

import pytest  # noqa: E402

from components.i18n import fill, final_consonant, particle_for, t  # noqa: E402

# (value, how a teacher reads its end, 을/를, 과/와, 으로/로, 은/는, 이/가)
READINGS = [
    ("영화", "영화", "를", "와", "로", "는", "가"),
    ("책", "책", "을", "과", "으로", "은", "이"),
    ("하늘", "하늘", "을", "과", "로", "은", "이"),  # ㄹ: 로, not 으로
    (1, "일", "을", "과", "로", "은", "이"),
    (0, "영", "을", "과", "으로", "은", "이"),
    (2, "이", "를", "와", "로", "는", "가"),
    (3, "삼", "을", "과", "으로", "은", "이"),
    (10, "십", "을", "과", "으로", "은", "이"),
    (100000, "십만", "을", "과", "으로", "은", "이"),
    ("1,000", "천", "을", "과", "으로", "은", "이"),
    (2.5, "이 점 오", "를", "와", "로", "는", "가"),
    ("0.0", "영 점 영", "을", "과", "으로", "은", "이"),
    ("`padding_value=1`", "패딩 밸류 일", "을", "과", "로", "은", "이"),  # backticks are not read
    ("W[1, :]", "더블유 일 콜론", "을", "과", "로", "은", "이"),
    ("<PAD>(번호 1)", "패드", "를", "와", "로", "는", "가"),  # a trailing parenthesis is an aside
    ("`영화`", "영화", "를", "와", "로", "는", "가"),
    ("PAD", "패드", "를", "와", "로", "는", "가"),
    ("<UNK>", "언크", "를", "와", "로", "는", "가"),
    ("W", "더블유", "를", "와", "로", "는", "가"),
    ("E", "이", "를", "와", "로", "는", "가"),
    ("L", "엘", "을", "과", "로", "은", "이"),
    ("M", "엠", "을", "과", "으로", "은", "이"),
    ("LSTM", "엘에스티엠", "을", "과", "으로", "은", "이"),
    ("SGD", "에스지디", "를", "와", "로", "는", "가"),
    ("AdamW", "아담 더블유", "를", "와", "로", "는", "가"),
    ("Adam", "아담", "을", "과", "으로", "은", "이"),
    ("(B, T, E)", "비 티 이", "를", "와", "로", "는", "가"),
    ("token", "토큰", "을", "과", "으로", "은", "이"),
    ("nn.Embedding", "임베딩", "을", "과", "으로", "은", "이"),
    ("movie", "무비", "를", "와", "로", "는", "가"),
    ("fun", "펀", "을", "과", "으로", "은", "이"),
    ("acting", "액팅", "을", "과", "으로", "은", "이"),
    ("dull", "덜", "을", "과", "로", "은", "이"),
    ("wonderful", "원더풀", "을", "과", "로", "은", "이"),
    ("time", "타임", "을", "과", "으로", "은", "이"),
    ("plot", "플롯", "을", "과", "으로", "은", "이"),
    ("music", "뮤직", "을", "과", "으로", "은", "이"),
    ("predictable", "프리딕터블", "을", "과", "로", "은", "이"),
    ("great", "그레이트", "를", "와", "로", "는", "가"),
    ("best", "베스트", "를", "와", "로", "는", "가"),
    ("recommend", "리코멘드", "를", "와", "로", "는", "가"),
    ("50%", "오십 퍼센트", "를", "와", "로", "는", "가"),
    ("N(0, 1)", "엔 영 일", "을", "과", "로", "은", "이"),  # a call's arguments are read; an aside is not
    ("nn.Embedding(V, E)", "임베딩 브이 이", "를", "와", "로", "는", "가"),
    ("`emb(ids)`", "엠비 아이디스", "를", "와", "로", "는", "가"),
    ("torch.tensor([문자열])", "토치 텐서", "를", "와", "로", "는", "가"),
]


@pytest.mark.parametrize("row", READINGS, ids=[str(r[0]) for r in READINGS])
def test_particle_follows_how_the_value_is_read(row):
    value, _reading, *forms = row
    rendered = fill("{v:을}|{v:과}|{v:으로}|{v:은}|{v:이}", v=value)
    assert rendered == "|".join(f"{value}{f}" for f in forms)


def test_copula_and_longer_particles_follow_the_same_rule():
    assert fill("{a:이다} {b:이다} {a:이어야} {b:이어야} {a:이에요} {b:이에요}", a="책", b="영화") == \
        "책이다 영화다 책이어야 영화여야 책이에요 영화예요"
    assert fill("{a:으로서} {b:으로서} {c:으로서}", a="책", b=2, c="L") == "책으로서 2로서 L로서"


def test_ordinary_format_specs_keep_working_alone_and_before_a_particle():
    assert fill("{n:,} {x:.4g} {y!r}", n=100000, x=0.16623426973819733, y="a") == "100,000 0.1662 'a'"
    assert fill("{n:,을} {x:.4g과}", n=12345, x=0.16623426973819733) == "12,345를 0.1662와"  # 오, 이
    assert fill("{n:,을}", n=1000) == "1,000을"


def test_a_backtick_in_the_spec_shows_the_value_as_code_before_the_particle():
    assert fill("{t:`을} {n:`} {p:`과}", t="영화", n=3, p="padding_value=1") == "`영화`를 `3` `padding_value=1`과"


def test_nothing_unreadable_gets_a_fallback_form():
    for value in ("漢", "😀", "x=", "", " ", "V×E", "ß", "<>"):
        out = fill("{v:을} {v:은} {v:이} {v:과} {v:으로}", v=value)
        assert "(" not in out.replace(str(value), ""), out


def test_a_particle_in_its_after_a_vowel_form_or_a_non_particle_is_refused():
    with pytest.raises(ValueError):
        fill("{v:를}", v="책")
    with pytest.raises(ValueError):
        fill("{v:개}", v=1)


def test_final_consonant_is_the_jamo_of_the_reading():
    assert [final_consonant(v) for v in ("영화", "책", 1, 2, 3, "L", "W", "`padding_value=1`")] == \
        ["", "ㄱ", "ㄹ", "", "ㅁ", "ㄹ", "", "ㄹ"]
    assert particle_for("1", "으로") == "로" and particle_for("0", "으로") == "으로"


def test_t_fills_particles_and_leaves_strings_without_params_as_written():
    assert t("ko", "app.title") == "nn.Embedding 탐험기"
    assert t("ko", "no.such.key", x=1) == "[no.such.key]"


def test_str_format_writes_every_plain_template_as_the_particle_formatter_does():
    """fill's fast path (`_plain`: no particle, no code mark): for every string of the catalogue, in
    both languages, with numbers and with text as values, str.format gives the formatter's text (or
    the same error)."""
    from components import i18n

    class Values(dict):
        def __init__(self, value):
            super().__init__()
            self.value = value

        def __missing__(self, key):
            return self.value

    def outcome(write):
        try:
            return write()
        except (ValueError, TypeError, IndexError, KeyError) as e:
            return type(e)

    plain = 0
    for entry in strings().values():
        for lang in LANGS:
            text = entry[lang]
            if not i18n._plain(text):
                assert re.search(r"\{[^{}]*:[^{}]*(`|[가-힣])\}", text), text  # only particles and code marks go the slow way
                continue
            plain += 1
            for value in (1234, 0.5, "영화 <PAD>"):
                assert outcome(lambda: text.format_map(Values(value))) == \
                    outcome(lambda: i18n._FORMATTER.vformat(text, (), Values(value))), text
    assert plain > 100
    assert i18n.fill("{n:,} 개 {t}", n=1000, t="책") == "1,000 개 책" and not i18n._plain("{t:을}")
