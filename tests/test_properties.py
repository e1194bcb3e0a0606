"""Property-based tests (hypothesis): arbitrary vocabularies and texts never crash core.

Every input either builds a valid object or raises `InputError` whose every problem has a
message in both languages; a failed input leaves the previous valid state untouched.
Profiles: ``ci`` (default, fast) and ``thorough`` (HYPOTHESIS_PROFILE=thorough, ≥10,000 cases).
"""

from __future__ import annotations

import os
import string

import torch
from hypothesis import HealthCheck, given, settings, strategies as st

from components.i18n import problem_text, strings
from tests.apptest_helpers import shown  # noqa: E402
from core import limits
from core.batch import make_batch, parse_sentences
from core.classes import classes_of, key as class_key
from core.problems import InputError
from core.training import Config, Lab, Recipe
from core.vocab import Vocab

settings.register_profile("ci", max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("thorough", max_examples=10_000, deadline=None, suppress_health_check=list(HealthCheck))
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

CLASSES = ("neg", "pos")
text_chars = st.characters(codec="utf-8", exclude_categories=("Cs",))  # any Unicode a browser can send
tokens = st.one_of(st.text(text_chars, max_size=8), st.sampled_from(["<UNK>", "<PAD>", "영화", "😀", "שלום", "a|b", " ", ""]))
ids = st.one_of(st.integers(-3, 12), st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=3), st.none(),
                st.booleans())
roles = st.one_of(st.sampled_from(["", "normal", "unk", "pad", "<UNK>", "PAD"]), st.text(max_size=4), st.none())
rows = st.lists(st.tuples(tokens, ids, roles), max_size=10)
texts = st.one_of(
    st.text(text_chars, max_size=200),
    st.lists(st.tuples(st.lists(tokens, max_size=6), st.sampled_from(["", " | pos", " | 0", " | 7", " |", "|neg"])),
             max_size=6).map(lambda ls: "\n".join(" ".join(t) + lab for t, lab in ls)),
)


def assert_explained(e: InputError) -> None:
    assert e.problems, "an InputError must carry at least one problem"
    for p in e.problems:
        assert f"err.{p.code}" in strings(), p.code
        for lang in ("ko", "en"):
            template = strings()[f"err.{p.code}"][lang]
            fields = {f for _, f, _, _ in string.Formatter().parse(template) if f}
            assert fields <= set(p.params), (p, fields)  # every placeholder is filled
            text = shown(problem_text(lang, p))
            assert text and "[err." not in text, (p, text)


@given(rows)
def test_any_vocabulary_is_valid_or_explained(r):
    try:
        v = Vocab.from_rows(r)
    except InputError as e:
        assert_explained(e)
        return
    assert sorted(v.index.values()) == list(range(v.size))
    assert v.unk_id != v.pad_id and 0 <= v.unk_id < v.size and 0 <= v.pad_id < v.size


@given(texts)
def test_any_text_is_valid_or_explained(text):
    try:
        lines = parse_sentences(text, CLASSES)
    except InputError as e:
        assert_explained(e)
        return
    assert lines and all(l.tokens for l in lines)
    classes = classes_of(lines, CLASSES)  # the example's, or the labels' own (core/classes.py)
    assert 1 <= len(classes) <= limits.MAX_CLASSES
    assert all(l.label is None or class_key(classes[l.label]) == class_key(l.label_text) or
               (classes == CLASSES and l.label_text.isdigit() and int(l.label_text) == l.label) for l in lines)


@given(rows, texts, st.integers(-2, 9), st.floats(allow_nan=True, allow_infinity=True, min_value=None))
@settings(max_examples=int(os.environ.get("HYPOTHESIS_LAB_EXAMPLES", "60")))
def test_lab_builds_from_any_valid_input_and_matches_torch(r, text, dim, lr):
    try:
        vocab = Vocab.from_rows(r)
        lines = parse_sentences(text, CLASSES)
        lab = Lab(Recipe.of(vocab, lines, CLASSES, Config(embedding_dim=dim, lr=lr)))
    except InputError as e:
        assert_explained(e)
        return
    batch = make_batch(vocab, [l.tokens for l in lines])
    assert torch.equal(lab.batch.ids, batch.ids)
    assert ((batch.ids == vocab.pad_id) == ~batch.mask).all() or vocab.pad_id in batch.ids[batch.mask]
    with torch.no_grad():
        assert torch.equal(lab.vectors(), lab.weight[batch.ids])  # lookup == row selection (C2)
    assert torch.count_nonzero(lab.weight[vocab.pad_id]) == 0


@given(rows, rows)
def test_a_failed_edit_leaves_the_previous_state_untouched(good, bad):
    try:
        before = Vocab.from_rows(good)
    except InputError:
        return
    snapshot = (before.tokens, before.unk_id, before.pad_id)
    try:
        Vocab.from_rows(bad)
    except InputError:
        pass
    assert (before.tokens, before.unk_id, before.pad_id) == snapshot


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from([0.0, 0.5, -0.5, 1.0, 2.0, -1.0, 3.0]), min_size=6, max_size=40),
       st.integers(1, 8), st.integers(0, 5), st.integers(0, 2**31 - 1))
def test_nearest_tokens_are_the_first_k_of_a_full_stable_sort(values, k, token_id, seed):
    """training.neighbours sorts only the k best (np.partition); ties included, the answer must be
    the first k of a stable sort of every other row by cosine (zero rows have no direction)."""
    import numpy as np

    from core.neighbours import neighbours

    rng = np.random.default_rng(seed)
    w = np.array(values[:len(values) // 2 * 2], dtype=np.float32).reshape(-1, 2)  # few values: many tied cosines
    w = w[rng.permutation(len(w))]
    token_id %= len(w)
    ids, cos = neighbours(w, token_id, k)
    norms = np.sqrt((w * w).sum(1))
    if norms[token_id] == 0:
        assert len(ids) == 0
        return
    with np.errstate(invalid="ignore", divide="ignore"):
        sims = (w @ w[token_id]) / (norms * norms[token_id])
    others = [i for i in range(len(w)) if i != token_id and np.isfinite(sims[i])]
    expected = sorted(others, key=lambda i: -sims[i])[:k]  # Python's sort is stable
    assert ids.tolist() == expected
    assert cos.tolist() == sims[expected].astype(float).tolist()


token_lists = st.one_of(
    st.text(text_chars, max_size=200),
    st.lists(st.tuples(tokens, st.sampled_from(["", " unk", " pad", "\tnormal", " PAD", " x", " a b"])), max_size=12)
    .map(lambda ls: "\n".join(t + role for t, role in ls)),
)


@given(token_lists)
def test_any_token_list_is_a_vocabulary_or_explained_and_the_table_agrees(text):
    """The bulk path and the table build the same vocabularies: a list's Vocab, written back as rows,
    is valid in the table and equal; written back as a marked list, it is the same again."""
    try:
        v = Vocab.from_token_list(text)
    except InputError as e:
        assert_explained(e)
        return
    assert Vocab.from_rows(v.rows()) == v
    marked = "\n".join(f"{t} {r or 'normal'}" for t, _, r in v.rows())
    assert Vocab.from_token_list(marked) == v
    assert all(p.code == "lookalike_tokens" for p in v.warnings)


ACTIONS = st.lists(st.one_of(
    st.tuples(st.just("step"), st.just(0)), st.tuples(st.just("run"), st.integers(1, 30)),
    st.tuples(st.just("pad"), st.floats(-1e38, 1e38, allow_nan=False)), st.tuples(st.just("back"), st.integers(0, 60)),
), max_size=8)


@settings(max_examples=int(os.environ.get("HYPOTHESIS_LAB_EXAMPLES", "40")), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(ACTIONS, st.sampled_from(["sgd", "momentum", "adam", "adamw"]), st.sampled_from([0.1, 1.0, 10.0]),
       st.sampled_from([0.0, 0.5, 10.0]))
def test_any_sequence_of_actions_keeps_the_lab_finite_and_replayable(actions, optimizer, lr, wd):
    """Steps, runs, hand-set PAD rows (huge ones too) and going back, with settings that may diverge:
    nothing but an explained InputError is raised, no kept W is non-finite, and the lab always
    equals a fresh lab given the same history (back_to to the current step rebuilds it bitwise)."""
    from support.labs import make_lab

    lab = make_lab(optimizer=optimizer, lr=lr, weight_decay=wd)
    for kind, arg in actions:
        try:
            if kind == "step":
                lab.step()
            elif kind == "run":
                lab.run(arg)
            elif kind == "pad":
                lab.set_pad_row([arg, -arg, arg / 2])
            else:
                lab.back_to(arg)
        except InputError as e:
            assert_explained(e)
            assert kind in ("step", "run") and lab.diverged is not None or kind == "back" and arg > lab.steps
        assert all(torch.isfinite(p).all() for p in lab.model.parameters())
        assert all(bool(torch.isfinite(torch.from_numpy(w)).all()) for w in lab.snapshots.values())
        assert len(lab.losses) == lab.steps and max(lab.snapshots) == lab.steps
        if lab.diverged is not None:
            assert lab.diverged.params["step"] == lab.steps + 1
    params = [p.detach().clone() for p in lab.model.parameters()]
    diverged = lab.diverged
    lab.back_to(lab.steps)
    for p, q in zip(lab.model.parameters(), params):
        assert torch.equal(p.detach(), q)
    assert diverged is None or lab.diverged is None  # going back clears it
