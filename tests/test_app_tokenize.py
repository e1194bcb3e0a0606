"""The tokenizer choice through AppTest: the keys `tokenizer`, `subword_vocab`, `vocab_min_count`,
`vocab_max_size` and `unk_rates` drive it, the stage (`stage`) shows each raw sentence → tokens → ids;
Kiwi and a fresh count are the answer key."""

from __future__ import annotations

from collections import Counter

import pytest

from components.i18n import t
from core import morphemes
from tests.apptest_helpers import errors, id_matrix, shown, stage, start

SENTENCE = "영화가 정말 좋았다 | 긍정"


@pytest.fixture(scope="module")
def kiwi():
    from kiwipiepy import Kiwi

    assert morphemes.wait(300) is not None  # the page's own loader: loaded once for the module
    return Kiwi()


@pytest.fixture
def at():
    return start("ko")


def explorer(at):
    return at.session_state["_ws"]


def with_sentence(at, text: str = SENTENCE):
    at.text_area(key="sentences").set_value(text).run()
    assert not at.exception and not errors(at)
    return at


def test_the_tokenizer_knobs_are_sidebar_widgets_with_whitespace_by_default(at):
    assert not at.exception and not errors(at)
    assert at.selectbox(key="tokenizer").value == "whitespace"
    assert at.selectbox(key="tokenizer").options == ["공백 기준", "형태소 (Kiwi)", "서브워드 (WordPiece)"]
    for key, value in (("subword_vocab", 100), ("vocab_min_count", 1), ("vocab_max_size", 100_000)):
        assert at.number_input(key=key).value == value
    assert at.query_params["tokenizer"] in ("whitespace", ["whitespace"])
    assert id_matrix(at) == [[2, 0, 3], [2, 4, 1]]  # whitespace: today's page, unchanged


def test_whitespace_keeps_the_word_whole(at):
    with_sentence(at)
    assert explorer(at).recipe.sentences == (("영화가", "정말", "좋았다"),)
    data = stage(at)
    assert data["sentences"] == [["영화가", "정말", "좋았다"]]
    assert data["raw"] == [{"text": "영화가 정말 좋았다", "spans": [[0, 3], [4, 6], [7, 10]]}]


def test_morpheme_gives_kiwis_morphemes_and_the_vocabulary_built_from_them(at, kiwi):
    with_sentence(at)
    at.selectbox(key="tokenizer").set_value("morpheme").run()
    assert not at.exception and not errors(at)
    expected = tuple(t.form for t in kiwi.tokenize("영화가 정말 좋았다"))
    ex = explorer(at)
    assert ex.recipe.sentences == (expected,) and expected[:2] == ("영화", "가")
    assert ex.vocab.tokens == ("<UNK>", "<PAD>", *dict.fromkeys(expected))
    assert id_matrix(at) == [[ex.vocab.tokens.index(t) for t in expected]]
    data = stage(at)  # raw sentence → tokens → ids, on the stage
    found = kiwi.tokenize("영화가 정말 좋았다")
    assert data["raw"] == [{"text": "영화가 정말 좋았다", "spans": [[m.start, m.start + m.len] for m in found]}]
    assert data["sentences"] == [list(expected)] and data["ids"] == id_matrix(at)
    assert "token_strip" not in [getattr(e, "key", None) for e in at.dataframe]  # one way to show it, not two
    assert at.query_params["tokenizer"] in ("morpheme", ["morpheme"])
    at.selectbox(key="tokenizer").set_value("whitespace").run()
    assert explorer(at).vocab.tokens == ("<UNK>", "<PAD>", "영화", "좋다", "나쁘다", "재미있다")  # the table is back


def test_subword_gives_pieces(at):
    with_sentence(at)
    at.selectbox(key="tokenizer").set_value("subword").run()
    at.number_input(key="subword_vocab").set_value(10).run()  # enabled once subwords are chosen
    assert not at.exception and not errors(at)
    (tokens,) = explorer(at).recipe.sentences
    assert tokens[0] == "영" and any(t.startswith("##") for t in tokens)
    assert "".join(t.removeprefix("##") for t in tokens) == "영화가정말좋았다"


def test_min_count_and_max_size_shape_the_built_vocabulary(at, kiwi):
    with_sentence(at, "영화가 좋았다 | 긍정\n영화는 별로였다 | 부정")
    at.selectbox(key="tokenizer").set_value("morpheme").run()
    at.number_input(key="vocab_min_count").set_value(2).run()  # enabled once the vocabulary is built
    counts = Counter(t.form for s in ("영화가 좋았다", "영화는 별로였다") for t in kiwi.tokenize(s))
    assert set(explorer(at).vocab.tokens[2:]) == {t for t, n in counts.items() if n >= 2}
    at.number_input(key="vocab_min_count").set_value(1)
    at.number_input(key="vocab_max_size").set_value(4).run()
    assert explorer(at).vocab.size == 4


def test_a_bad_min_count_is_refused_with_a_message_and_changes_nothing(at):
    at.selectbox(key="tokenizer").set_value("subword").run()
    before = id_matrix(at)
    at.number_input(key="vocab_min_count").set_value(0).run()
    assert not at.exception and errors(at) and "최소 등장 횟수" in " ".join(errors(at))
    assert id_matrix(at) == before


@pytest.mark.parametrize("tokenizer, enabled", [
    ("whitespace", set()),  # your own table: nothing is built, so none of the three changes anything
    ("subword", {"subword_vocab", "vocab_min_count", "vocab_max_size"}),
])
def test_a_tokenizers_knob_is_greyed_out_while_another_tokenizer_is_chosen(at, tokenizer, enabled):
    at.selectbox(key="tokenizer").set_value(tokenizer).run()
    assert not at.exception
    for key in ("subword_vocab", "vocab_min_count", "vocab_max_size"):
        assert at.number_input(key=key).disabled == (key not in enabled), key


def test_the_unk_rates_sit_side_by_side_for_the_learner_and_the_tried_sentence(at, kiwi):
    at.text_input(key="try_sentence").set_value("영화는 별로였다").run()
    at.session_state["unk_rates"] = True
    at.run()
    assert not at.exception and not errors(at)
    frames = [df.value for df in at.dataframe if "토큰화 방식" in list(df.value.columns)]
    (table,) = frames
    assert len(table) == 3
    assert table.iloc[0]["내 문장의 <UNK>"].startswith("1/5")  # 정말 is not in the chapter's table
    assert table.iloc[0]["새 문장의 <UNK>"].startswith("2/2")  # 영화는, 별로였다
    tried = [t.form for t in kiwi.tokenize("영화는 별로였다")]
    assert table.iloc[1]["새 문장의 토큰"].replace("*", "").split() == tried


def test_lesson_X8_runs_on_the_page_and_holds(at):
    at.session_state["section"] = "lessons"
    at.session_state["lesson"] = "X8"
    at.run()
    assert not at.exception
    assert any("<UNK>" in h.value for h in at.header)
    assert at.success and not at.error


def test_an_address_asking_for_morpheme_opens_with_it(kiwi):
    from streamlit.testing.v1 import AppTest

    from tests.apptest_helpers import APP

    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params["tokenizer"] = "morpheme"
    at.session_state["lang"] = "en"
    at.run()
    assert not at.exception and not errors(at)
    assert explorer(at).config.tokenizer == "morpheme"
    assert explorer(at).recipe.sentences[0] == tuple(t.form for t in kiwi.tokenize("영화 정말 좋다"))


def test_a_token_clicked_on_the_stage_selects_it_and_shows_its_sentence(at):
    with_sentence(at, "영화 좋다 | 긍정\n영화가 정말 좋았다 | 긍정")
    ids = id_matrix(at)
    at.session_state["stage"] = {"cell": {"id": ids[1][1], "b": 1, "t": 1, "n": 1}}  # 정말's chip, text or cell
    at.run()
    assert not at.exception and explorer(at).selected_token == ids[1][1]
    assert stage(at)["out"]["b"] == 1 and stage(at)["selected"] == ids[1][1]


def test_raw_sentences_mostly_outside_the_vocabulary_get_a_warning_under_the_sentences(at):
    at.text_area(key="sentences").input("축구 경기가 끝났다 | 스포츠\n선거 결과가 나왔다 | 정치\n영화 좋다 | 연예").run()
    assert not at.exception and not errors(at)
    said = [shown(w.value) for w in at.warning]
    assert said == [t("ko", "err.mostly_unk", unk=6, total=8, percent=75)], said  # 8 tokens, 6 not in the table
    at.selectbox(key="tokenizer").set_value("subword").run()
    assert not at.warning  # the vocabulary is built from the tokens now
