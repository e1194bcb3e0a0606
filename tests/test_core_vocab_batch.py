"""Vocabulary validation and batching, checked against plain torch (C6, C11, C12, C16, X1)."""

from __future__ import annotations

import pytest
import torch
from torch import nn

from core.batch import make_batch, parse_sentences
from core.problems import InputError
from core.vocab import Vocab
from support.labs import CHAPTER_ROWS, CLASSES


def codes(rows) -> list[str]:
    with pytest.raises(InputError) as e:
        Vocab.from_rows(rows)
    return [p.code for p in e.value.problems]


def test_chapter_example_encodes_and_pads_as_written(chapter_vocab):
    lines = parse_sentences("영화 정말 좋다\n영화 나쁘다", CLASSES)
    batch = make_batch(chapter_vocab, [l.tokens for l in lines])
    # The chapter's own code, run as written, is the answer key (C16).
    vocab = {"<UNK>": 0, "<PAD>": 1, "영화": 2, "좋다": 3, "나쁘다": 4, "재미있다": 5}
    tokens = [["영화", "정말", "좋다"], ["영화", "나쁘다"]]
    encoded = [[vocab.get(t, vocab["<UNK>"]) for t in seq] for seq in tokens]
    max_len = max(len(s) for s in encoded)
    padded = [s + [vocab["<PAD>"]] * (max_len - len(s)) for s in encoded]
    assert torch.equal(batch.ids, torch.tensor(padded, dtype=torch.long))
    assert batch.ids.tolist() == [[2, 0, 3], [2, 4, 1]]
    assert batch.lengths.tolist() == [3, 2]
    assert batch.mask.tolist() == [[True, True, True], [True, True, False]]


def test_padding_uses_pad_id_not_zero_like_pad_sequence_default():
    # PAD anywhere but 0: pad_sequence's default 0 would write another token (X1).
    v = Vocab.from_rows([("a", 0, ""), ("<UNK>", 1, "unk"), ("b", 2, ""), ("<PAD>", 3, "pad")])
    batch = make_batch(v, [("a", "b", "b"), ("b",)])
    seqs = [torch.tensor(v.encode(s)) for s in [("a", "b", "b"), ("b",)]]
    assert torch.equal(batch.ids, nn.utils.rnn.pad_sequence(seqs, batch_first=True, padding_value=3))
    assert not torch.equal(batch.ids, nn.utils.rnn.pad_sequence(seqs, batch_first=True))


def test_fixed_length_truncates_and_pads():
    v = Vocab.from_rows(CHAPTER_ROWS)
    batch = make_batch(v, [("영화", "좋다", "좋다", "나쁘다"), ("영화",)], fixed_len=2)
    assert batch.ids.tolist() == [[2, 3], [2, 1]]
    assert batch.truncated == (2, 0)
    assert batch.lengths.tolist() == [2, 1]


def test_unknown_tokens_become_the_unk_role_not_the_unk_name():
    v = Vocab.from_rows([("<PAD>", 0, "pad"), ("<UNK>", 1, ""), ("?", 2, "unk"), ("x", 3, "")])
    assert v.encode(["zzz", "x", "<UNK>"]) == [2, 3, 1]  # the role decides (C12)


@pytest.mark.parametrize("rows, code", [
    ([], "vocab_empty"),
    ([("a", 0, "unk"), ("a", 1, "pad")], "duplicate_token"),
    ([("a", 0, "unk"), ("b", 0, "pad")], "duplicate_id"),
    ([("a", 0, "unk"), ("b", 2, "pad")], "id_out_of_range"),
    ([("a", 1, "unk"), ("b", 2, "pad"), ("c", 3, "")], "id_missing"),
    ([("a", 0, "unk"), ("b", 1, "")], "no_pad"),
    ([("a", 0, ""), ("b", 1, "pad")], "no_unk"),
    ([("a", 0, "unk"), ("b", 1, "unk"), ("c", 2, "pad")], "many_unk"),
    ([("a", 0, "unk"), ("b", 0, "pad")], "unk_is_pad"),
    ([("a", 0, "unk"), ("  ", 1, "pad")], "token_empty"),
    ([("a", 0, "unk"), (None, 1, "pad")], "token_empty"),
    ([("a", 0, "unk"), ("a b", 1, "pad")], "token_space"),
    ([("a", 0, "unk"), ("b\x07", 1, "pad")], "token_control"),
    ([("a", 0, "unk"), ("x" * 65, 1, "pad")], "token_too_long"),
    ([("a", 0, "unk"), ("b", "one", "pad")], "id_not_integer"),
    ([("a", 0, "unk"), ("b", 1.5, "pad")], "id_not_integer"),
    ([("a", 0, "unk"), ("b", float("nan"), "pad")], "id_empty"),  # an empty cell of the table
    ([("a", 0, "unk"), ("b", 1, "boss")], "role_unknown"),
    ([("a", 0, "unk"), ("b|c", 1, "pad")], "token_bar"),
])
def test_each_invalid_vocabulary_is_named(rows, code):
    assert code in codes(rows)


def test_numeric_id_forms_are_accepted():
    v = Vocab.from_rows([("a", "0", "unk"), ("b", 1.0, "pad"), ("c", " 2 ", "normal")])
    assert v.tokens == ("a", "b", "c") and (v.unk_id, v.pad_id) == (0, 1)


def test_emoji_and_right_to_left_tokens_are_tokens():
    v = Vocab.from_rows([("<UNK>", 0, "unk"), ("<PAD>", 1, "pad"), ("🎬", 2, ""), ("שלום", 3, ""), ("👩‍💻", 4, "")])
    assert v.encode(["🎬", "שלום", "👩‍💻", "?"]) == [2, 3, 4, 0]


@pytest.mark.parametrize("text, code", [
    ("", "no_sentences"),
    ("\n  \n", "no_sentences"),
    ("영화 좋다 | ", "label_empty"),
    ("영화 좋다 | " + "긴" * 41, "label_too_long"),
    ("영화 | \u200b", "label_unprintable"),
    ("\n".join(f"영화 | c{i}" for i in range(21)), "too_many_classes"),
    (" | 긍정", "line_only_label"),
    ("a\x00b", "line_control"),
    ("x" * 200_001, "text_too_long"),
    (" ".join(["a"] * 257), "line_too_long"),
    ("\n".join(["a"] * 513), "too_many_sentences"),
])
def test_each_invalid_text_is_named(text, code):
    with pytest.raises(InputError) as e:
        parse_sentences(text, CLASSES)
    assert code in [p.code for p in e.value.problems]


def test_labels_by_name_or_number_and_optional():
    lines = parse_sentences("a | 긍정\nb | 0\nc\n\n", CLASSES)
    assert [l.label for l in lines] == [1, 0, None]
    assert [l.line_no for l in lines] == [1, 2, 3]


def test_lookup_is_row_selection_for_batch_sentence_and_scalar(chapter_vocab):
    # C2, C3: emb(ids) == W[ids] for (B,T), (T,) and scalar input.
    from support.labs import make_lab

    lab = make_lab(embedding_dim=4, seed=7)
    w = lab.weight.detach()
    emb = lab.model.embedding
    with torch.no_grad():
        assert torch.equal(emb(lab.batch.ids), w[lab.batch.ids])
        assert emb(lab.batch.ids).shape == (2, 3, 4)
        assert emb(lab.batch.ids[0]).shape == (3, 4)
        assert emb(torch.tensor(2)).shape == (4,)
        assert torch.equal(emb(torch.tensor(2)), w[2])
    assert [n for n, _ in emb.named_parameters()] == ["weight"]
    assert sum(p.numel() for p in emb.parameters()) == 6 * 4  # V·E with the PAD row, no bias (C5, C14)
