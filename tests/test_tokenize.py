"""core/tokenize.py, core/preprocessing.py and lesson X8: raw text → tokens → vocabulary, three ways.

The answers are computed here independently: Kiwi itself for the morphemes, a plain Counter for the
vocabulary, a fresh `tokenizers` WordPiece for the pieces, and the lab's ids against a vocabulary
looked up by hand. The morpheme analyzer is the process's one (core.morphemes), loaded once.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
import torch

from assets import presets
from core import morphemes, tokenize
from core.batch import parse_sentences
from core.explorer import Explorer
from core.lessons import run_demo
from core.lessons.tokens import Source
from core.state import export_state, parse_state, recipe_of
from support.stage_contract import contract_errors
from views.lookup import lookup_data
from views.tokens import lesson_source, rates, raw_rows

ROOT = Path(__file__).resolve().parent.parent
CLASSES = ("부정", "긍정")


@pytest.fixture(scope="module")
def analyzer():
    loaded = morphemes.wait(300)
    assert loaded is not None, morphemes.error()
    return loaded


@pytest.fixture(scope="module")
def kiwi():
    from kiwipiepy import Kiwi

    return Kiwi()


def chapter(analyzer=None) -> Explorer:
    ex = Explorer.from_preset(presets.load("chapter"))
    if analyzer is not None:
        ex.prep.morphemes = lambda: analyzer
    return ex


def with_knobs(ex: Explorer, **knobs) -> list:
    return ex.apply_config({**ex.config_values(), **knobs})


def test_morpheme_splits_the_issue_sentence_and_builds_the_vocabulary_from_its_tokens(analyzer, kiwi):
    ex = chapter(analyzer)
    assert ex.apply_text("영화가 정말 좋았다 | 긍정") == []
    assert ex.recipe.sentences == (("영화가", "정말", "좋았다"),)  # whitespace: today's behaviour
    assert ex.vocab.tokens == ("<UNK>", "<PAD>", "영화", "좋다", "나쁘다", "재미있다")  # the learner's table
    assert with_knobs(ex, tokenizer="morpheme") == []
    expected = tuple(t.form for t in kiwi.tokenize("영화가 정말 좋았다"))  # Kiwi itself is the answer key
    assert ex.recipe.sentences == (expected,)
    assert expected[:2] == ("영화", "가") and "었" in expected
    assert ex.vocab.tokens == ("<UNK>", "<PAD>", *dict.fromkeys(expected))
    assert (ex.vocab.unk_id, ex.vocab.pad_id) == (0, 1)
    ids = [ex.vocab.tokens.index(t) for t in expected]
    assert ex.lab.batch.ids.tolist() == [ids]


def test_english_words_pass_through_the_morpheme_tokenizer(analyzer):
    spans = tokenize.split("a great 영화가", "morpheme", analyzer)
    assert [t for t, _, _ in spans][:3] == ["a", "great", "영화"]
    text = "a great 영화가"
    assert all(text[s:e] in (tok, "가") or tok == text[s:e] for tok, s, e in spans)


def test_the_analyzer_is_a_dependency_a_fake_one_is_enough():
    fake = lambda text: [("X", 0, 1), ("Y", 1, 1)]  # noqa: E731  what any analyzer gives: (form, start, length)
    assert tokenize.split("가나 word", "morpheme", fake) == [("X", 0, 1), ("Y", 1, 2), ("word", 3, 7)]
    with pytest.raises(ValueError):
        tokenize.split("가나", "morpheme", None)


def test_morpheme_refused_while_the_analyzer_loads_changes_nothing():
    ex = chapter()
    ex.prep.morphemes = lambda: None
    before = ex.recipe
    problems = with_knobs(ex, tokenizer="morpheme")
    assert [p.code for p in problems] == ["tokenizer_loading"]
    assert ex.recipe is before and ex.config.tokenizer == "whitespace"


def test_subword_gives_pieces_the_same_on_every_run():
    ex = chapter()
    assert ex.apply_text("영화가 정말 좋았다 | 긍정") == []
    assert with_knobs(ex, tokenizer="subword", subword_vocab=10) == []
    (tokens,) = ex.recipe.sentences
    assert any(t.startswith("##") for t in tokens) and tokens[0] == "영"
    assert "".join(t.removeprefix("##") for t in tokens) == "영화가정말좋았다"
    assert ex.vocab.tokens == ("<UNK>", "<PAD>", *dict.fromkeys(tokens))
    texts = [" ".join(line.rsplit("|", 1)[0].split()) for line in presets.load("reviews_ko")["sentences"].splitlines()]
    first = [tuple(t for t, _, _ in tokenize.train_subword(texts, 100).spans(s)) for s in texts]
    assert all(first == [tuple(t for t, _, _ in tokenize.train_subword(texts, 100).spans(s)) for s in texts]
               for _ in range(3))
    code = ("import json, sys; from core import tokenize; texts = json.loads(sys.stdin.read()); "
            "print(json.dumps([[t for t, _, _ in tokenize.train_subword(texts, 100).spans(s)] for s in texts]))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, input=json.dumps(texts), capture_output=True,
                         text=True, check=True)
    assert [tuple(x) for x in json.loads(out.stdout)] == first  # another process: the same pieces


def test_build_vocab_keeps_counts_at_least_min_count_most_frequent_first_within_max_size():
    sentences = [("b", "a", "a"), ("c", "b", "a"), ("d", "<UNK>")]
    counts = Counter(t for s in sentences for t in s)
    vocab = tokenize.build_vocab(sentences, min_count=2)
    assert vocab.tokens == ("<UNK>", "<PAD>", "a", "b")
    assert [counts[t] for t in vocab.tokens[2:]] == sorted((counts[t] for t in vocab.tokens[2:]), reverse=True)
    assert tokenize.build_vocab(sentences, min_count=1).tokens == ("<UNK>", "<PAD>", "a", "b", "c", "d")  # ties: first seen
    assert tokenize.build_vocab(sentences, min_count=1, max_size=3).tokens == ("<UNK>", "<PAD>", "a")
    assert (vocab.unk_id, vocab.pad_id, vocab.role_of(0), vocab.role_of(1)) == (0, 1, "unk", "pad")


def test_min_count_turns_rare_morphemes_into_unk_in_the_lab(analyzer):
    ex = chapter(analyzer)
    assert with_knobs(ex, tokenizer="morpheme", vocab_min_count=2) == []
    counts = Counter(t for s in ex.recipe.sentences for t in s)
    kept = {t for t, n in counts.items() if n >= 2}
    assert set(ex.vocab.tokens[2:]) == kept
    expected = torch.tensor([[ex.vocab.index.get(t, 0) for t in s] + [1] * (ex.lab.batch.ids.shape[1] - len(s))
                             for s in ex.recipe.sentences])
    assert torch.equal(ex.lab.batch.ids, expected)


def test_back_to_whitespace_brings_the_learners_own_table_back(analyzer):
    ex = chapter(analyzer)
    own = ex.vocab
    assert with_knobs(ex, tokenizer="morpheme") == [] and ex.vocab != own
    assert with_knobs(ex, tokenizer="subword") == [] and ex.vocab != own
    assert with_knobs(ex, tokenizer="whitespace") == []
    assert ex.vocab == own and ex.recipe.sentences == (("영화", "정말", "좋다"), ("영화", "나쁘다"))


def test_a_lr_change_keeps_the_built_vocabulary_and_the_sentences(analyzer):
    ex = chapter(analyzer)
    with_knobs(ex, tokenizer="morpheme")
    vocab, sentences = ex.vocab, ex.recipe.sentences
    assert with_knobs(ex, lr=0.05) == []
    assert ex.vocab is vocab and ex.recipe.sentences == sentences


def test_unk_rates_side_by_side_counted_by_hand(analyzer, kiwi):
    ex = chapter(analyzer)
    got = {r.tokenizer: r for r in rates(ex, "영화는 별로였다 | 부정", analyzer)}
    assert list(got) == ["whitespace", "morpheme", "subword"]
    table = set(ex.vocab.tokens)
    words = [w for s in ex.recipe.sentences for w in s]
    assert (got["whitespace"].unk, got["whitespace"].total) == (sum(w not in table for w in words), len(words))
    assert got["whitespace"].tried_tokens == ("영화는", "별로였다") and got["whitespace"].tried_unk == 2
    learned = Counter(t.form for s in ("영화 정말 좋다", "영화 나쁘다") for t in kiwi.tokenize(s))
    tried = [t.form for t in kiwi.tokenize("영화는 별로였다")]
    assert got["morpheme"].unk == 0 and got["morpheme"].tried_tokens == tuple(tried)
    assert got["morpheme"].tried_unk == sum(t not in learned for t in tried)
    assert got["whitespace"].tried_unk != got["morpheme"].tried_unk


@pytest.mark.parametrize("preset", ["chapter", "reviews_ko", "reviews_en"])
def test_X8_holds_on_each_example_with_counts_recomputed_here(preset, analyzer, kiwi):
    ex = Explorer.from_preset(presets.load(preset))
    d = run_demo("X8", ex.lab, lesson_source(ex, analyzer))
    assert d.verdict == "holds"
    lines = parse_sentences(ex.text, ex.classes)
    b = d.facts["line"] - 1
    table = set(ex.vocab.tokens)
    assert d.facts["unk_whitespace"] == sum(w not in table for w in lines[b].tokens)
    learned = Counter(t.form for l in lines for t in kiwi.tokenize(" ".join(l.tokens)))
    assert d.facts["unk_morpheme"] == sum(learned[t.form] < 1 for t in kiwi.tokenize(" ".join(lines[b].tokens)))
    assert len({d.facts["unk_whitespace"], d.facts["unk_morpheme"], d.facts["unk_subword"]}) > 1


def test_X8_fails_honestly_when_every_tokenizer_agrees(analyzer):
    ex = chapter(analyzer)
    ex.apply_vocab([("<UNK>", 0, "unk"), ("<PAD>", 1, "pad"), ("a", 2, ""), ("b", 3, "")])
    assert ex.apply_text("a b | 긍정\nb a | 부정") == []
    d = run_demo("X8", ex.lab, lesson_source(ex, analyzer))
    assert d.verdict == "fails" and d.facts["sentences_differing"] == 0


def test_X8_without_its_source_reads_the_lab_and_leaves_morpheme_out():
    ex = chapter()
    d = run_demo("X8", ex.lab)
    assert d.verdict == "holds" and "unk_morpheme" not in d.facts and d.facts["unk_whitespace"] == 1


def test_each_raw_sentence_is_sent_with_the_characters_each_token_came_from(analyzer, kiwi):
    ex = chapter(analyzer)
    ex.apply_text("영화가 정말 좋았다 | 긍정\n영화는 별로였다 | 부정")
    with_knobs(ex, tokenizer="morpheme")
    data = lookup_data(ex, "ko", sentence=1)
    assert not contract_errors(data)
    for b, raw in enumerate(data["raw"]):
        text = ["영화가 정말 좋았다", "영화는 별로였다"][b]
        assert raw["text"] == text and data["sentences"][b] == list(ex.recipe.sentences[b])
        found = kiwi.tokenize(text)  # Kiwi itself is the answer key
        assert [m.form for m in found] == data["sentences"][b]
        assert raw["spans"] == [[m.start, m.start + m.len] for m in found]
    first = data["raw"][0]
    assert [first["text"][s:e] for s, e in first["spans"]][:3] == ["영화", "가", "정말"]


def test_raw_rows_are_the_first_ones_and_the_shown_one_and_whitespace_is_the_words():
    ex = chapter()
    ex.apply_text("\n".join(f"영화 좋다 {i} | 긍정" for i in range(6)))
    rows = raw_rows(ex, shown=5, limit=2)
    assert [r is not None for r in rows] == [True, True, False, False, False, True]
    assert rows[5] == {"text": "영화 좋다 5", "spans": [[0, 2], [3, 5], [6, 7]]}


def test_a_saved_morpheme_state_reloads_to_the_same_recipe(analyzer):
    ex = chapter(analyzer)
    ex.apply_text("영화가 정말 좋았다 | 긍정\n영화는 별로였다 | 부정")
    with_knobs(ex, tokenizer="morpheme")
    ex.step()
    state = parse_state(export_state(ex.recipe, ex.text, "ko", ex.lab))
    assert state.config.tokenizer == "morpheme" and state.sentences == ex.text
    assert recipe_of(state) == ex.recipe


def test_an_old_saved_state_without_the_new_knobs_loads_as_whitespace():
    ex = chapter()
    data = json.loads(export_state(ex.recipe, ex.text, "ko", ex.lab))
    for name in ("tokenizer", "subword_vocab", "vocab_min_count", "vocab_max_size"):
        data["config"].pop(name)
    state = parse_state(json.dumps(data))
    assert state.config.tokenizer == "whitespace" and recipe_of(state) == ex.recipe


def test_a_morpheme_split_that_makes_a_line_too_long_is_refused_naming_it(analyzer):
    ex = chapter(analyzer)
    ex.apply_text(" ".join(["좋았다"] * 200) + " | 긍정")
    problems = with_knobs(ex, tokenizer="morpheme")
    assert [p.code for p in problems] == ["line_too_long"] and problems[0].params["line"] == 1
    assert ex.config.tokenizer == "whitespace"


def test_source_for_x8_is_plain_data(analyzer):
    src = lesson_source(chapter(analyzer), analyzer)
    assert isinstance(src, Source) and src.settings == tokenize.Settings()

