"""Pretrained vectors (issue 36, part 3): torch's own claims, the untrusted file's parser, the lab's
frozen and trained tables, the saved state, and the script, with torch and numpy as the answer key."""

from __future__ import annotations

import time
from dataclasses import replace

import numpy as np
import pytest
import torch
from torch import nn

from core import limits
from core.explorer import Explorer
from core.pretrained import match
from core.pretrained_apply import apply_file, found_counts, remove, set_freeze
from core.problems import InputError
from core.projector_tsv import metadata_tsv, vectors_tsv
from core.share_link import MAX_SHARE_PARAM_CHARS, from_query_params, to_query_params
from core.state import export_state, parse_state, restore
from core.training import Lab
from core.vector_file import read_vectors
from support.labs import CHAPTER_TEXT, make_lab

RNG = np.random.default_rng(36)


def chapter_explorer() -> Explorer:
    from assets import presets

    return Explorer.from_preset(presets.load("chapter"))


def seeded(v: int, e: int, pad: int, seed: int) -> torch.Tensor:
    """nn.Embedding(v, e, padding_idx=pad)'s table drawn from torch.manual_seed(seed): the fresh table."""
    torch.manual_seed(seed)
    return nn.Embedding(v, e, padding_idx=pad).weight.detach().clone()


def f32(texts: list[str]) -> np.ndarray:
    """The answer key for a number's text: numpy's float64 of the text, cast to float32."""
    return np.array(texts, dtype=np.float64).astype(np.float32)


def bits(a) -> np.ndarray:
    return np.asarray(a, dtype=np.float32).view(np.int32)


# ---- torch's own claims (torch 2.13), which the app and lesson X9 rely on ------------------------
def test_from_pretrained_is_frozen_by_default_and_keeps_the_pad_row_it_is_given():
    w = torch.arange(12, dtype=torch.float32).reshape(4, 3) + 1  # no zero row
    emb = nn.Embedding.from_pretrained(w, padding_idx=1)
    assert emb.weight.requires_grad is False  # freeze=True is the default
    assert torch.equal(emb.weight[1], w[1]) and bool(emb.weight[1].any())  # PAD row NOT zeroed
    assert nn.Embedding.from_pretrained(w, freeze=False).weight.requires_grad is True
    fresh = nn.Embedding(4, 3, padding_idx=1)
    assert not bool(fresh.weight[1].any())  # a fresh nn.Embedding does zero it


def test_the_pad_row_given_to_from_pretrained_gets_exactly_zero_gradient():
    w = torch.randn(5, 3, generator=torch.Generator().manual_seed(0)) + 2
    emb = nn.Embedding.from_pretrained(w.clone(), freeze=False, padding_idx=1)
    ids = torch.tensor([[2, 1, 1], [1, 3, 4]])
    (emb(ids) ** 2).sum().backward()
    assert emb.weight.grad[1].abs().max().item() == 0.0  # exactly zero, though its row is not
    assert bool(emb.weight.grad[[2, 3, 4]].ne(0).any(dim=1).all())
    assert torch.equal(emb(torch.tensor([1]))[0], w[1])  # the lookup returns the kept row


# ---- the parser ---------------------------------------------------------------------------------
def _w2v(tokens, rows, header=True) -> bytes:
    lines = [f"{len(tokens)} {rows.shape[1]}"] if header else []
    lines += [t + " " + " ".join(r) + " " for t, r in zip(tokens, rows)]  # fastText ends each line with a space
    return ("\n".join(lines) + "\n").encode("utf-8")


@pytest.mark.parametrize("header", [True, False])
def test_word2vec_values_are_float32_of_pythons_float_bitwise(header):
    texts = np.array([[repr(float(x)) for x in RNG.normal(size=5)] for _ in range(4)])  # doubles: need rounding
    texts[0, 0], texts[1, 1], texts[2, 2] = "1e-3", "-0", "3.4028235e38"  # exponent, minus zero, float32's max
    tokens = ["영화", "좋다", "<PAD>", "zzz"]
    f = read_vectors([("a.vec", _w2v(tokens, texts, header))], {"영화", "좋다", "<PAD>"})
    assert (f.dim, f.rows, sorted(f.vectors)) == (5, 4, sorted(["영화", "좋다", "<PAD>"]))
    for i, t in enumerate(tokens[:3]):
        np.testing.assert_array_equal(bits(f.vectors[t]), bits(f32(list(texts[i]))))
        from_torch = torch.tensor([float(x) for x in texts[i]], dtype=torch.float64).to(torch.float32)
        np.testing.assert_array_equal(bits(f.vectors[t]), from_torch.view(torch.int32).numpy())


def test_the_shortest_text_of_a_float32_reads_back_as_that_float32():
    w = torch.from_numpy(RNG.normal(size=(6, 7)).astype(np.float32))
    text = vectors_tsv(w).decode()
    f = read_vectors([("vectors.tsv", text.encode()), ("metadata.tsv", "\n".join(f"t{i}" for i in range(6)).encode())],
                     {f"t{i}" for i in range(6)})
    got = np.stack([f.vectors[f"t{i}"] for i in range(6)])
    np.testing.assert_array_equal(bits(got), bits(w.numpy()))
    np.testing.assert_array_equal(bits(got), bits(np.array(text.split(), dtype=np.float32).reshape(6, 7)))  # numpy's own


def test_a_projector_pair_from_one_example_loads_into_another_by_token_and_by_role():
    lab = make_lab()
    lab.set_pad_row([0.5, -0.25, 2.0])  # the file's PAD row is not zero
    lab.run(3)
    vec = vectors_tsv(lab.weight)
    meta = metadata_tsv(lab.recipe.vocab, lab.batch, lab.recipe.labels, lab.recipe.classes)
    other = make_lab([("[PAD]", 0, "pad"), ("나쁘다", 1, ""), ("[UNK]", 2, "unk"), ("영화", 3, ""), ("새말", 4, "")],
                     "영화 나쁘다 | 부정\n새말 | 긍정", embedding_dim=3)
    m = match(read_vectors([("metadata.tsv", meta), ("vectors.tsv", vec)], other.recipe.vocab.index), other.recipe.vocab)
    assert (m.found, m.missing, m.file_rows) == (4, 1, 6)
    built = Lab(replace(other.recipe, pretrained=m.pretrained)).weight.detach()
    src = lab.weight.detach()
    for mine, theirs in ((0, 1), (1, 4), (2, 0), (3, 2)):  # PAD and UNK by role, the others by token
        assert torch.equal(built[mine].view(torch.int32), src[theirs].view(torch.int32))
    assert torch.equal(built[4], seeded(5, 3, 0, 0)[4])  # not in the file: as a fresh table


def hostile_cases() -> dict[str, tuple[list[tuple[str, bytes]], str, int | None]]:
    """name → (files, the problem's code, the line it names)."""
    ok = "영화 0.1 0.2 0.3\n좋다 1 2 3\n"
    million = ("영화 " + " ".join(["0"] * 1_000_000) + "\n").encode()
    junk = bytes(RNG.integers(0, 256, size=4096, dtype=np.uint8))
    junk = junk[:100] + b"\x00" + junk[100:]
    return {
        "nan": ([("a.vec", (ok + "나쁘다 0 nan 1\n").encode())], "vec_not_finite", 3),
        "inf": ([("a.vec", (ok + "나쁘다 0 -inf 1\n").encode())], "vec_not_finite", 3),
        "overflow": ([("a.vec", (ok + "나쁘다 0 1e39 1\n").encode())], "vec_not_finite", 3),
        "dimension": ([("a.vec", (ok + "나쁘다 0 1\n").encode())], "vec_columns", 3),
        "header_dimension": ([("a.vec", ("2 4\n" + ok).encode())], "vec_columns", 2),
        "count": ([("a.vec", ("3 3\n" + ok).encode())], "vec_count", None),
        "million_columns": ([("a.vec", million)], "vec_too_wide", 1),
        "binary": ([("a.bin", junk)], "vec_binary", junk[:100].count(b"\n") + 1),
        "utf8": ([("a.vec", ok.encode() + b"\xed\x95 0 0 0\n")], "vec_not_utf8", 3),
        "duplicate": ([("a.vec", (ok + "영화 1 1 1\n").encode())], "vec_duplicate", 3),
        "word": ([("a.vec", (ok + "나쁘다 0 x 1\n").encode())], "vec_number", 3),
        "underscore": ([("a.vec", (ok + "나쁘다 0 1_0 1\n").encode())], "vec_number", 3),
        "python": ([("a.vec", (ok + "나쁘다 __import__('os') 0 1\n").encode())], "vec_number", 3),
        "too_large": ([("a.vec", b"0" * (limits.MAX_IMPORT_BYTES + 1))], "vec_too_large", None),
        "empty": ([("a.vec", b"\n\n")], "vec_empty", None),
        "pair_rows": ([("vectors.tsv", b"1\t2\n3\t4\n"), ("metadata.tsv", b"a\n")], "vec_pair_rows", None),
        "meta_alone": ([("metadata.tsv", b"a\n")], "vec_pair_missing", None),
        "pair_columns": ([("vectors.tsv", b"1\t2\n3\t4\t5\n"), ("metadata.tsv", b"a\nb\n")], "vec_columns", 2),
        "none_found": ([("a.vec", b"xyz 1 2 3\n")], "pretrained_none_found", None),
    }


@pytest.mark.parametrize("name", list(hostile_cases()))
def test_a_hostile_file_is_refused_naming_the_line_and_changes_nothing(name):
    files, code, line = hostile_cases()[name]
    ex = chapter_explorer()
    ex.run(2)
    lab, w, text, config = ex.lab, ex.lab.weight.detach().clone(), ex.text, ex.config
    started = time.process_time()
    problems = apply_file(ex, files, freeze=True)
    assert time.process_time() - started < 5  # bounded work, not a timing claim: a runaway parse would be minutes
    assert [p.code for p in problems] == [code] and ex.problems["pretrained"] == problems
    if line is not None:
        assert problems[0].params["line"] == line
    assert ex.lab is lab and lab.steps == 2 and torch.equal(lab.weight.detach(), w)
    assert (ex.text, ex.config, ex.recipe.pretrained) == (text, config, None)


# ---- the lab: frozen and trained ----------------------------------------------------------------
def _applied(freeze: bool, **config) -> tuple[Explorer, np.ndarray]:
    """The chapter with 영화, <PAD> and 나쁘다 from a 4-dimensional file; the file's values, parsed by numpy."""
    texts = [["0.5", "-1.25", "2", "0.125"], ["1", "2", "3", "4"], ["-0.3", "0.7", "1e-2", "3"]]
    ex = chapter_explorer()
    if config:
        assert ex.apply_config({**ex.config_values(), **config}) == []
    assert apply_file(ex, [("w.vec", _w2v(["영화", "<PAD>", "나쁘다"], np.array(texts)))], freeze) == []
    return ex, f32(sum(texts, [])).reshape(3, 4)


def _expected_table(file_rows: np.ndarray, seed: int = 0) -> torch.Tensor:
    w = seeded(6, 4, 1, seed)
    w[[2, 1, 4]] = torch.from_numpy(file_rows)  # 영화=2, <PAD>=1, 나쁘다=4
    return w


def test_found_rows_take_the_file_the_others_start_fresh_and_e_follows_the_file():
    ex, rows = _applied(True)
    assert ex.config.embedding_dim == 4 and found_counts(ex) == (3, 3)
    assert torch.equal(ex.lab.weight.detach().view(torch.int32), _expected_table(rows).view(torch.int32))
    assert ("pretrained.dim_changed", {"old": 3, "e": 4}) in ex.notices
    assert ex.apply_config({**ex.config_values(), "embedding_dim": 3})[0].code == "pretrained_dim"
    assert ex.config.embedding_dim == 4


def test_frozen_five_steps_leave_every_row_bitwise_while_the_loss_moves():
    ex, rows = _applied(True, optimizer="adam", lr=0.1)
    w0 = ex.lab.weight.detach().clone()
    head0 = ex.lab.model.head.weight.detach().clone()
    for _ in range(5):
        assert ex.step() == []
    assert torch.equal(ex.lab.weight.detach().view(torch.int32), w0.view(torch.int32))
    assert len(set(ex.lab.losses)) == 5 and ex.lab.losses[-1] < ex.lab.losses[0]
    assert not torch.equal(ex.lab.model.head.weight.detach(), head0)
    assert ex.lab.last.unused_grad_max == 0.0 and not bool(ex.lab.last.grad_rows.any())  # W gets no gradient
    assert torch.equal(w0.view(torch.int32), _expected_table(rows).view(torch.int32))


def test_unfrozen_the_looked_up_rows_move_and_pad_keeps_its_file_vector():
    ex, rows = _applied(False)
    w0 = ex.lab.weight.detach().clone()
    ex.run(5)
    moved = (ex.lab.weight.detach() != w0).any(dim=1)
    assert moved[[0, 2, 3, 4]].all() and not moved[1] and not moved[5]  # PAD (1) and 재미있다 (5, unused) stay
    assert torch.equal(ex.lab.weight.detach()[1], torch.tensor([1.0, 2.0, 3.0, 4.0]))  # not zeroed, never moved


def test_toggling_freeze_rebuilds_from_step_zero_and_remove_goes_back_to_a_fresh_table():
    ex, rows = _applied(True)
    ex.run(3)
    assert set_freeze(ex, False) == [] and ex.lab.steps == 0 and ex.lab.weight.requires_grad
    assert ex.recipe.pretrained.freeze is False
    assert ex.apply_text(CHAPTER_TEXT + "\n재미있다 영화 | 긍정") == [] and ex.recipe.pretrained is not None
    assert remove(ex) == [] and ex.recipe.pretrained is None
    assert torch.equal(ex.lab.weight.detach(), seeded(6, 4, 1, 0))


# ---- carried by the state, the link and the script ------------------------------------------------
@pytest.mark.parametrize("freeze", [True, False])
def test_a_state_file_and_a_share_link_carry_the_rows_bitwise(freeze):
    ex, _ = _applied(freeze)
    ex.run(4)
    data = export_state(ex.recipe, ex.text, "en", ex.lab)
    restored = restore(parse_state(data))
    assert restored.recipe == ex.recipe and restored.weights_verified is True
    assert torch.equal(restored.lab.weight.detach().view(torch.int32), ex.lab.weight.detach().view(torch.int32))
    linked = restore(from_query_params(to_query_params(parse_state(data))))
    assert linked.recipe == ex.recipe and torch.equal(linked.lab.weight.detach(), ex.lab.weight.detach())


def test_a_share_link_cannot_carry_a_large_table_and_says_so():
    vocab = [("<UNK>", 0, "unk"), ("<PAD>", 1, "pad")] + [(f"w{i}", i + 2, "") for i in range(60)]
    ex = Explorer(make_lab(vocab, "w1 w2 | 긍정\nw3 | 부정", embedding_dim=3), "w1 w2 | 긍정\nw3 | 부정")
    rows = RNG.normal(size=(60, 50)).astype(np.float32).astype(str)
    assert apply_file(ex, [("big.vec", _w2v([f"w{i}" for i in range(60)], rows))], True) == []
    state = parse_state(export_state(ex.recipe, ex.text, "ko", ex.lab, include_weights=False))
    with pytest.raises(InputError) as e:
        to_query_params(state)
    assert e.value.problems[0].code == "share_too_large" and e.value.problems[0].params["max"] == MAX_SHARE_PARAM_CHARS


def test_the_notice_names_the_vocabulary_tokens_the_file_has_no_vector_for_in_id_order():
    vocab = [("<UNK>", 0, "unk"), ("<PAD>", 1, "pad")] + [(f"w{i}", i + 2, "") for i in range(20)]
    ex = Explorer(make_lab(vocab, "w1 w2 | 긍정\nw3 | 부정", embedding_dim=3), "w1 w2 | 긍정\nw3 | 부정")
    given = ["w0", "w5", "<PAD>"]
    assert apply_file(ex, [("some.vec", _w2v(given, RNG.normal(size=(3, 4)).astype(str)))], True) == []
    missed = [tok for tok, _, _ in vocab if tok not in given]  # <UNK> too: the count is the first notice's
    key, params = next(n for n in ex.notices if n[0].startswith("pretrained.missing"))
    assert key == "pretrained.missing_more" and params["n"] == len(missed) == 19
    assert params["tokens"].split(" · ") == missed[:12] and params["more"] == 7
    applied = next(p for k, p in ex.notices if k == "pretrained.applied")
    assert applied["missing"] == params["n"]

    few = [("<UNK>", 0, "unk"), ("<PAD>", 1, "pad"), ("a", 2, ""), ("b", 3, "")]
    ex = Explorer(make_lab(few, "a b | 긍정", embedding_dim=3), "a b | 긍정")
    assert apply_file(ex, [("one.vec", _w2v(["b"], RNG.normal(size=(1, 3)).astype(str)))], True) == []
    assert ("pretrained.missing", {"n": 3, "tokens": "<UNK> · <PAD> · a", "more": 0}) in ex.notices
    ex.notices.clear()
    every = _w2v(["a", "b", "<UNK>", "<PAD>"], RNG.normal(size=(4, 3)).astype(str))
    assert apply_file(ex, [("all.vec", every)], True) == []
    assert not [n for n in ex.notices if n[0].startswith("pretrained.missing")]  # every row has its vector


@pytest.mark.parametrize("bad, code", [
    ({"vectors": {"shape": [1, 3], "data": "AADAfwAAgD8AAIA/"}}, "import_weights_nonfinite"),  # NaN
    ({"vectors": {"shape": [1, 2], "data": "AACAPwAAgD8="}}, "import_weights_shape"),
    ({"tokens": ["영화", "영화"], "vectors": {"shape": [2, 3], "data": "A" * 32}}, "import_pretrained_duplicate"),
])
def test_a_state_with_bad_pretrained_rows_is_refused(bad, code):
    import json

    lab = make_lab()
    obj = json.loads(export_state(lab.recipe, CHAPTER_TEXT, "ko", lab))
    obj["pretrained"] = {"tokens": ["영화"], "vectors": {"shape": [1, 3], "data": "AACAPwAAgD8AAIA/"}, "freeze": True} | bad
    with pytest.raises(InputError) as e:
        parse_state(json.dumps(obj).encode())
    assert code in [p.code for p in e.value.problems]


@pytest.fixture(scope="module")
def printed(tmp_path_factory) -> dict[str, tuple[dict, Lab]]:
    from core.codegen import script_for
    from tests.test_codegen import finish, start_script

    d = tmp_path_factory.mktemp("pretrained_scripts")
    labs, procs = {}, {}
    for name, freeze, config in (("frozen", True, dict(optimizer="adam", lr=0.1)),
                                 ("trained", False, dict(optimizer="momentum", pooling="lstm", batch_size=1))):
        ex, _ = _applied(freeze, **config)
        ex.run(5)
        labs[name] = ex.lab
        procs[name] = start_script(script_for(ex.recipe, 5, ex.lab.pad_edits, lang="en"), d / f"{name}.py")
    return {name: (finish(p), labs[name]) for name, p in procs.items()}


@pytest.mark.parametrize("name", ["frozen", "trained"])
def test_the_exported_script_reproduces_the_pretrained_table_bitwise(name, printed):
    out, lab = printed[name]
    assert out["losses"] == lab.losses
    w = torch.tensor(out["W"], dtype=torch.float32)
    assert torch.equal(w.view(torch.int32), lab.weight.detach().view(torch.int32))
    assert (name == "frozen") == torch.equal(lab.weight.detach(), torch.from_numpy(lab.snapshots[0]))


def test_the_keeper_keeps_the_rows_within_a_links_size():
    from core.saved import read_found, restore_found, saved_entry

    ex, _ = _applied(False)
    ex.run(3)
    entry = saved_entry(ex.recipe, ex.text, "ko", ex.lab, now_ms=1764524400000)
    restored = restore_found(read_found(entry))
    assert restored.recipe == ex.recipe and restored.recipe.pretrained.freeze is False
    assert torch.equal(restored.lab.weight.detach().view(torch.int32), ex.lab.weight.detach().view(torch.int32))


def test_a_frozen_table_above_the_small_model_size_steps_too():
    from core.training import SMALL_MODEL_FLOATS

    vocab = [("<UNK>", 0, "unk"), ("<PAD>", 1, "pad")] + [(f"w{i}", i + 2, "") for i in range(200)]
    text = "w1 w2 w3 | 긍정\nw4 zz | 부정"
    ex = Explorer(make_lab(vocab, text, embedding_dim=3), text)
    rows = RNG.normal(size=(3, 400)).astype(np.float32).astype(str)
    assert apply_file(ex, [("big.vec", _w2v(["w1", "w4", "<PAD>"], rows))], True) == []
    assert ex.lab.weight.numel() > SMALL_MODEL_FLOATS
    w0 = ex.lab.weight.detach().clone()
    assert ex.run(3) == [] and ex.lab.steps == 3 and ex.lab.losses[-1] < ex.lab.losses[0]  # the head learns
    assert torch.equal(ex.lab.weight.detach(), w0) and ex.lab.last.unused_grad_max == 0.0


def test_reading_a_file_is_a_job_estimated_by_its_size_and_stopped_between_chunks_of_lines():
    from contextlib import contextmanager

    from core import vector_file
    from core.cost import vector_file_cost
    from core.problems import Problem
    from core.work import FREE, Cancelled

    class Counting:  # a Work that records the job and stops it at its third checkpoint
        def __init__(self):
            self.jobs, self.checks = [], 0

        def admit(self, recipe):
            return FREE.admit(recipe)

        @contextmanager
        def job(self, kind, seconds, nbytes=0, wait_seconds=None):
            self.jobs.append((kind, seconds, nbytes))
            yield

        def checkpoint(self):
            self.checks += 1
            if self.checks == 3:
                raise Cancelled([Problem("job_cancelled", {"kind": "pretrained"})])

    ex = chapter_explorer()
    work = Counting()
    ex.lab.work = work
    rows = 3 * vector_file.CHECK_LINES
    data = "".join(f"w{i} 1 2 3\n" for i in range(rows)).encode()
    lab, w = ex.lab, ex.lab.weight.detach().clone()
    problems = apply_file(ex, [("big.vec", data)], freeze=True)
    assert work.jobs == [("pretrained", *vector_file_cost(len(data)))]
    assert [p.code for p in problems] == ["job_cancelled"] and work.checks == 3  # stopped part-way
    assert ex.lab is lab and ex.recipe.pretrained is None and torch.equal(ex.lab.weight, w)  # nothing changed
