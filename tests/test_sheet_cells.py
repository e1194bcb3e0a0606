"""Spreadsheet-safe CSV and TSV (core/sheet_cells.py): hostile tokens neutralised, read back exactly.

The answer keys: the tokens as typed, and W of the lab as torch holds it (bitwise at float32).
Every cell is read with the csv module, as a spreadsheet's importer splits it, and no text cell may
start with a character a spreadsheet runs as a formula.
"""

from __future__ import annotations

import csv
import io

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.projector_tsv import metadata_tsv
from core.sheet_cells import ESCAPED_FIRST, from_cell, read_metadata_tsv, read_weights_csv, to_cell
from core.vocab import ROLE_NAMES
from core.weights_csv import csv_size_bound, weights_csv
from core import exports
from support.labs import make_lab

HOSTILE = ["=1+1", "+SUM(A1)", "-2", "@cmd", "'=quoted", "''", "=HYPERLINK(\"http://x\")", "a,b", 'q"q',
           "-", "@", "==", "%d", "%s%s"]
FORMULA = ("=", "+", "-", "@", "\t", "\r")


def hostile_lab():
    rows = [("<UNK>", 0, "unk"), ("<PAD>", 1, "pad")] + [(tok, i + 2, "") for i, tok in enumerate(HOSTILE)]
    text = " ".join(HOSTILE[:5]) + " | =neg\n" + " ".join(HOSTILE[5:]) + " | +pos"
    lab = make_lab(rows, text, ("=neg", "+pos"), embedding_dim=5, seed=3)
    lab.run(3)
    return lab


@given(st.text(max_size=30))
@settings(max_examples=300, deadline=None)
def test_a_cell_reads_back_and_never_starts_like_a_formula(text):
    cell = to_cell(text)
    assert from_cell(cell) == text
    assert not cell.startswith(FORMULA)


def test_w_as_csv_neutralises_hostile_tokens_and_reads_back_exactly():
    lab = hostile_lab()
    data = weights_csv(lab.recipe.vocab, lab.weight)
    cells = list(csv.reader(io.StringIO(data.decode("utf-8-sig"))))
    assert all(not row[1].startswith(FORMULA) for row in cells[1:])  # what a spreadsheet sees
    rows, w = read_weights_csv(data)
    assert rows == [(i, tok, ROLE_NAMES[role]) for tok, i, role in lab.recipe.vocab.rows()]
    r = lab.recipe  # the two files a person reads name the roles alike ("normal", "unk", "pad")
    metadata = read_metadata_tsv(metadata_tsv(r.vocab, lab.batch, r.labels, r.classes))
    assert [role for _, _, role in rows] == [row[2] for row in metadata[1:]]
    expect = lab.weight.detach().numpy()
    assert w.dtype == np.float32 and np.array_equal(w.view(np.int32), expect.view(np.int32))
    assert len(data) <= csv_size_bound(*expect.shape, exports.token_bytes(lab.recipe.vocab.tokens))


def test_metadata_tsv_neutralises_tokens_and_classes_and_reads_back_exactly():
    lab = hostile_lab()
    r = lab.recipe
    data = metadata_tsv(r.vocab, lab.batch, r.labels, r.classes)
    raw = [line.split("\t") for line in data.decode("utf-8").splitlines()]
    assert all(not cell.startswith(FORMULA) for row in raw[1:] for cell in (row[0], row[3]))
    table = read_metadata_tsv(data)
    assert [row[0] for row in table[1:]] == list(r.vocab.tokens)
    assert {row[3] for row in table[1:]} <= {"", "=neg", "+pos"} and "=neg" in {row[3] for row in table[1:]}


@pytest.mark.parametrize("first", ESCAPED_FIRST)
def test_every_escaped_first_character(first):
    assert from_cell(to_cell(first + "x")) == first + "x" and to_cell(first + "x").startswith("'")


@given(st.lists(st.floats(width=32, allow_nan=False, allow_infinity=False), min_size=1, max_size=40))
@settings(max_examples=300, deadline=None)
def test_every_float32_reads_back_exactly_and_within_the_size_bound(values):
    """Any finite float32 (subnormals, -0.0, the longest decimal forms) read back bit for bit, by
    whichever writer the table's magnitudes choose, and the file stays within csv_size_bound."""
    import torch

    from core.vocab import Vocab

    w = torch.tensor(values, dtype=torch.float32).reshape(len(values), 1)
    rows = [("<UNK>", 0, "unk"), ("<PAD>", 1, "pad")] + [(f"t{i}", i, "") for i in range(2, len(values))]
    vocab = Vocab.from_rows(rows[:len(values)] if len(values) >= 2 else rows[:2])
    if vocab.size != len(values):
        w = torch.cat([w, torch.zeros(vocab.size - len(values), 1)])
    data = weights_csv(vocab, w)
    _, back = read_weights_csv(data)
    assert np.array_equal(back.view(np.int32), w.numpy().view(np.int32))
    assert len(data) <= csv_size_bound(vocab.size, 1, exports.token_bytes(vocab.tokens))


def test_a_table_arrow_would_write_too_long_is_written_with_nine_digits_and_reads_back():
    """|x| ≥ 1e9 (Arrow would print every integer digit, up to 21): the fallback writer, same cells."""
    lab = hostile_lab()
    w = lab.weight.detach().clone()
    w[2, 0] = 1.2345678e20
    data = weights_csv(lab.recipe.vocab, w)
    cells = list(csv.reader(io.StringIO(data.decode("utf-8-sig"))))
    assert cells[3][3] == "%.9g" % float(w[2, 0]) and "e+20" in cells[3][3]  # not all 21 digits
    rows, back = read_weights_csv(data)
    assert rows == [(i, tok, ROLE_NAMES[role]) for tok, i, role in lab.recipe.vocab.rows()]
    assert np.array_equal(back.view(np.int32), w.numpy().view(np.int32))
    assert len(data) <= csv_size_bound(*w.shape, exports.token_bytes(lab.recipe.vocab.tokens))
