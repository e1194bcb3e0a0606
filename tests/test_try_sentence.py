"""Try a sentence on the current W (core.try_sentence): torch recomputes the lookup; the lab stays as it was."""

from __future__ import annotations

import torch
import torch.nn.functional as F

from core.try_sentence import try_sentence
from support.labs import make_lab
from tests.test_lessons import ROWS_A, TEXT_A, lab_state, same


def test_after_20_steps_a_tried_sentence_is_W20_looked_up_and_the_lab_is_unchanged():
    lab = make_lab(ROWS_A, TEXT_A, ("neg", "pos"), embedding_dim=4, seed=3, optimizer="adam", lr=0.1)
    lab.run(20)
    before = lab_state(lab)
    tried = try_sentence(lab, "d  zz a\n<PAD> qq  | pos")  # line breaks are spaces; a class label is ignored
    assert tried.problems == () and tried.step == 20
    index = {tok: i for tok, i, _ in ROWS_A}
    unk = index["<UNK>"]
    expected_ids = [index.get(tok, unk) for tok in ["d", "zz", "a", "<PAD>", "qq"]]
    assert list(tried.ids) == expected_ids == [5, 3, 1, 0, 3]  # unknown words → <UNK>; typed <PAD> is PAD
    assert tried.unknown == (False, True, False, False, True) and tried.tokens[1] == "zz"
    w20 = before["params"]["embedding.weight"]  # W after 20 steps, read before trying
    emb = torch.nn.Embedding.from_pretrained(w20.clone())
    assert torch.equal(torch.from_numpy(tried.vectors), emb(torch.tensor(expected_ids)))  # bitwise
    assert torch.equal(torch.from_numpy(tried.vectors), F.embedding(torch.tensor(expected_ids), w20))
    assert same(before, lab_state(lab))  # W, optimizer, step count, batch, snapshots, RNG: all as they were
    assert lab.steps == 20 and torch.equal(lab.batch.ids, before["ids"])
    tried.vectors[0, 0] = 123.0  # the result is a copy: writing into it does not reach W
    assert torch.equal(lab.weight.detach(), w20)


def test_bad_text_gives_problems_never_an_exception():
    lab = make_lab()
    for text, code in (("   ", "no_sentences"), ("영화 | " + "긴" * 41, "label_too_long"),
                       ("x" * 65, "line_token_too_long"), ("영화\u0007", "line_control"),
                       (" ".join(["영화"] * 300), "line_too_long")):
        tried = try_sentence(lab, text)
        assert [p.code for p in tried.problems] == [code] and tried.ids == () and tried.vectors.shape == (0, 3)
    assert lab.steps == 0
