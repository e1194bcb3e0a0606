"""Korean (and English) wording a teacher would otherwise edit (issue 37, #8 and its list): each
string names what is on screen the way the screen names it."""

from __future__ import annotations

import pytest

from components.i18n import t
from components.stage_data import stage_text


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_the_guides_step_4_names_the_predict_button_as_it_is_labelled_and_where_it_is(lang):
    text = t(lang, "guide.step.text")
    button, step = t(lang, "predict.open"), t(lang, "train.step")
    quoted = (lambda s: f"‘{s}’") if lang == "ko" else (lambda s: f"'{s}'")  # Korean quotes with ‘ ’
    assert quoted(button) in text and quoted(step) in text, text
    assert ("오른쪽" in text) if lang == "ko" else ("right of" in text)
    assert "먼저 예측하기" not in text and "바로 아래" not in text and "just below" not in text


def test_buttons_say_what_they_do():
    assert t("ko", "train.run", n=50) == "50단계 학습"  # not "50단계" (read as "step 50")
    assert t("ko", "train.reset") == "처음으로 되돌리기"


def test_unk_is_the_id_an_unknown_token_gets_instead():
    assert "어휘 사전에 없는 토큰에 대신 붙는 번호" in t("ko", "vocab.col.role_help")
    assert "바뀌는 번호" not in t("ko", "vocab.col.role_help")


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_the_stage_names_the_output_by_its_sentence_and_explains_its_symbols(lang):
    words = stage_text(lang)
    assert "b={b}" in words["out_title"]
    assert "\u2016\u2207\u2016" in words["touched"] and "\u2016\u2207\u2016" in words["grad_col"]
    assert words["count_col"]
    assert "우세한" not in words["noclass"]  # said in plain words: the row shows up in several classes alike
