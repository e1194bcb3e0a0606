"""The field's formats, read back: the Embedding Projector's TSVs and the Jupyter notebook.

Answer keys: W of a lab trained here with torch (the TSVs must parse to it bit for bit, at float32,
the way numpy and the Projector's JavaScript read them); counts made here from the sentences (the
metadata's class column); and a fresh `Lab` run (the executed notebook's losses and W).
"""

from __future__ import annotations

import ast
import collections
import csv
import io
import json
import re
from pathlib import Path

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from components.i18n import t
from core.codegen import script_for
from core.notebook import notebook_for, split_script
from core.projector_tsv import metadata_tsv, vectors_size_bound, vectors_tsv
from core.state import export_state
from support.labs import CHAPTER_ROWS, CHAPTER_TEXT, CLASSES, make_lab

# PAD and UNK away from ids 0 and 1; within T=3 "a" and "c" tie (c would win "pos" if the truncated
# tail were counted); "b" is in no sentence; "zz" is out of vocabulary (→ <UNK>).
ROWS = [("a", 0, ""), ("<PAD>", 1, "pad"), ("b", 2, ""), ("<UNK>", 3, "unk"), ("c", 4, ""), ("d", 5, "")]
TEXT = "a c zz | neg\na d | pos\nd zz c c c c | pos\nzz | neg"
TWO = ("neg", "pos")
FIXED = 3
PAD_VECTOR = [0.5, -0.25, 2.0, -0.0]


def trained_lab():
    lab = make_lab(ROWS, TEXT, TWO, embedding_dim=4, seed=7, optimizer="adamw", lr=0.05, weight_decay=0.01,
                   batch_size=2, fixed_len=FIXED)
    lab.run(3)
    lab.set_pad_row(PAD_VECTOR)
    lab.run(2)
    return lab


def bits(a) -> np.ndarray:
    return np.ascontiguousarray(np.asarray(a, dtype=np.float32)).view(np.int32)


def parse_vectors(data: bytes) -> tuple[np.ndarray, np.ndarray]:
    """vectors.tsv read twice: by numpy at float32, and as JavaScript does (a double, then Float32Array)."""
    text = data.decode("utf-8")
    by_numpy = np.loadtxt(io.StringIO(text), dtype=np.float32, delimiter="\t", ndmin=2)
    as_js = np.array([[float(x) for x in line.split("\t")] for line in text.split("\n") if line],
                     dtype=np.float64).astype(np.float32)
    return by_numpy, as_js


# ---- vectors.tsv --------------------------------------------------------------------------------
def test_vectors_parse_back_to_the_trained_w_bitwise():
    lab = trained_lab()
    w = lab.weight.detach()  # (V, E)
    data = vectors_tsv(lab.weight)
    lines = data.decode("utf-8").split("\n")
    assert lines[-1] == "" and len(lines) - 1 == w.shape[0]  # one line per token, no header
    assert all(len(line.split("\t")) == w.shape[1] for line in lines[:-1])
    for parsed in parse_vectors(data):
        assert np.array_equal(bits(parsed), bits(w.numpy()))
    assert lines[1].split("\t")[3] == "-0"  # the PAD row (id 1) set by hand keeps its sign bit


EDGE = [-0.0, 1e-45, 1.1754942e-38, 3.4028235e38, -1e-30, 0.1, 1 / 3, 16777217.0, -2.5]


def test_vectors_keep_edge_values_and_are_shortest():
    w = torch.tensor([EDGE], dtype=torch.float32)
    data = vectors_tsv(w)
    for parsed in parse_vectors(data):
        assert np.array_equal(bits(parsed), bits(w.numpy()))
    fields = data.decode().strip().split("\t")
    assert fields[5] == "0.1"  # the shortest text that reads back as float32(0.1), not 0.100000001
    for text, x in zip(fields, w[0].tolist()):
        digits = len(re.sub(r"[^0-9]", "", text.split("e")[0]).strip("0"))
        assert digits <= 9  # float32 never needs more than 9 significant digits


@settings(max_examples=60, deadline=None)
@given(hnp.arrays(np.float32, hnp.array_shapes(min_dims=2, max_dims=2, max_side=6),
                  elements=st.floats(width=32, allow_nan=False, allow_infinity=False)))
def test_any_finite_float32_table_round_trips(w):
    """By whichever writer the table's magnitudes choose (core/float_text.py), within the size bound."""
    data = vectors_tsv(torch.from_numpy(w.copy()))
    for parsed in parse_vectors(data):
        assert np.array_equal(bits(parsed).reshape(w.shape), bits(w))
    assert len(data) <= vectors_size_bound(*w.shape)


# ---- metadata.tsv -------------------------------------------------------------------------------
def expected_classes(rows, text, classes, fixed_len) -> list[str]:
    """By hand: count each id in the labelled sentences' first `fixed_len` tokens; a unique maximum wins."""
    token_id = {tok: i for tok, i, _ in rows}
    unk = next(i for _, i, role in rows if role == "unk")
    counts = collections.defaultdict(collections.Counter)  # id -> class -> count
    for line in text.splitlines():
        words, _, label = line.partition("|")
        if not label.strip():
            continue
        for tok in words.split()[:fixed_len]:
            counts[token_id.get(tok, unk)][label.strip()] += 1
    out = []
    for _, i, _ in sorted(rows, key=lambda r: r[1]):
        ranked = counts[i].most_common()
        unique_top = ranked and (len(ranked) == 1 or ranked[0][1] > ranked[1][1])
        out.append(ranked[0][0] if unique_top else "")
    return out


def read_tsv(data: bytes) -> list[list[str]]:
    return list(csv.reader(io.StringIO(data.decode("utf-8")), delimiter="\t", quoting=csv.QUOTE_NONE))


def test_metadata_names_every_row_with_role_and_class():
    lab = trained_lab()
    r = lab.recipe
    table = read_tsv(metadata_tsv(r.vocab, lab.batch, r.labels, r.classes))
    assert table[0] == ["token", "id", "role", "class"]
    roles = {"": "normal", "unk": "unk", "pad": "pad"}
    expected = [[tok, str(i), roles[role], cls] for (tok, i, role), cls in
                zip(sorted(ROWS, key=lambda x: x[1]), expected_classes(ROWS, TEXT, TWO, FIXED))]
    assert table[1:] == expected
    by_token = {row[0]: row[3] for row in table[1:]}
    # The cases the recipe was built for, spelled out:
    assert by_token["a"] == "" and by_token["b"] == "" and by_token["<PAD>"] == ""
    assert by_token["c"] == ""  # 1 neg, 1 pos within T=3; its three later uses in "pos" were cut off
    assert by_token["<UNK>"] == "neg" and by_token["d"] == "pos"  # "zz": twice in neg, once in pos


def test_metadata_of_the_chapter_example():
    lab = make_lab()
    r = lab.recipe
    table = read_tsv(metadata_tsv(r.vocab, lab.batch, r.labels, r.classes))
    assert table[1:] == [[tok, str(i), {"unk": "unk", "pad": "pad"}.get(role, "normal"), cls] for (tok, i, role), cls
                         in zip(CHAPTER_ROWS, expected_classes(CHAPTER_ROWS, CHAPTER_TEXT, CLASSES, None))]
    assert [row[3] for row in table[1:]] == ["긍정", "", "", "긍정", "부정", ""]  # 정말 → <UNK>; 영화 ties


def test_metadata_counts_only_labelled_sentences():
    text = "b b c | pos\nb c c d\nd | neg"  # the second line has no label: it says nothing about classes
    lab = make_lab(ROWS, text, TWO)
    r = lab.recipe
    table = read_tsv(metadata_tsv(r.vocab, lab.batch, r.labels, r.classes))
    assert [row[3] for row in table[1:]] == expected_classes(ROWS, text, TWO, None)
    assert {row[0]: row[3] for row in table[1:]}["c"] == "pos"


def test_metadata_fields_never_split():
    lab = make_lab(ROWS, "a b | x\ty\nc | z", ("x\ty", "z"))
    r = lab.recipe
    table = read_tsv(metadata_tsv(r.vocab, lab.batch, r.labels, r.classes))
    assert len(table) == len(ROWS) + 1 and all(len(row) == 4 for row in table)
    assert table[1][3] == "x y"


# ---- the notebook -------------------------------------------------------------------------------
def test_notebook_is_the_script_in_cells_with_notes_in_the_page_language():
    import nbformat

    lab = trained_lab()
    script = script_for(lab.recipe, lab.steps, lab.pad_edits)
    for lang in ("ko", "en"):
        nb = nbformat.reads(notebook_for(script, lambda key: t(lang, key)).decode("utf-8"), as_version=4)
        nbformat.validate(nb)
        kinds = [c.cell_type for c in nb.cells]
        assert kinds == ["markdown", "code"] + ["markdown", "code"] * 6
        code = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
        # The same program as the script without its docstring, comments included, line for line.
        module = ast.parse(script)
        assert isinstance(module.body[0].value, ast.Constant)  # the docstring
        after_docstring = script.splitlines()[module.body[0].end_lineno:]
        assert [l for l in code.splitlines() if l.strip()] == [l for l in after_docstring if l.strip()]
        module.body = module.body[1:]
        assert ast.dump(ast.parse(code)) == ast.dump(module)
        notes = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
        hangul = re.search("[가-힣]", notes) is not None
        assert hangul == (lang == "ko")
        assert all(f"## {n}." in notes for n in range(1, 7))


def test_a_part_the_strings_do_not_know_is_titled_by_its_comment():
    import nbformat

    script = script_for(make_lab().recipe, 0) + "\n# ---- 7. Extra: a part added later\nprint(1)\n"
    nb = nbformat.reads(notebook_for(script, lambda key: f"[{key}]").decode("utf-8"), as_version=4)
    assert nb.cells[-2].source == "## 7. Extra: a part added later"


def execute(nb_bytes: bytes, sockets: Path):
    """Run every cell in a fresh Python kernel, over local sockets (IPC) under ``sockets``, within a bounded time."""
    import nbformat
    from jupyter_client.manager import KernelManager
    from nbclient import NotebookClient

    nb = nbformat.reads(nb_bytes.decode("utf-8"), as_version=4)
    km = KernelManager(kernel_name="python3", transport="ipc", ip=str(sockets / "kernel"))
    NotebookClient(nb, km=km, timeout=180, startup_timeout=120, allow_errors=False).execute()
    return nb


def test_notebook_runs_and_reproduces_a_fresh_lab(tmp_path):
    pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    lab = trained_lab()
    nb = execute(notebook_for(script_for(lab.recipe, lab.steps, lab.pad_edits, lang="en"), lambda key: t("en", key)), tmp_path)
    printed = "".join(o.get("text", "") for o in nb.cells[-1].outputs if o.output_type == "stream")
    result = json.loads(printed.strip().splitlines()[-1])
    fresh = make_lab(ROWS, TEXT, TWO, embedding_dim=4, seed=7, optimizer="adamw", lr=0.05, weight_decay=0.01,
                     batch_size=2, fixed_len=FIXED)
    fresh.run(3)
    fresh.set_pad_row(PAD_VECTOR)
    fresh.run(2)
    assert result["losses"] == fresh.losses and len(result["losses"]) == 5
    assert result["ids"] == fresh.batch.ids.tolist()
    assert np.array_equal(bits(result["W"]), bits(fresh.weight.detach().numpy()))
    train_cell = next(c for c in nb.cells if c.cell_type == "code" and "loss_fn" in c.source)
    shown = re.findall(r"step (\d+): loss ([0-9.]+)", "".join(o.get("text", "") for o in train_cell.outputs))
    assert [int(s) for s, _ in shown] == [1, 2, 3, 4, 5]


# ---- the share view's buttons (AppTest) ---------------------------------------------------------
@pytest.fixture
def media(monkeypatch):
    """The media storage of the next AppTest runs: deferred downloads are executed into it."""
    import streamlit.testing.v1.app_test as app_test_module
    from streamlit.runtime.media_file_manager import MediaFileManager

    made = []

    class Recording(MediaFileManager):
        def __init__(self, storage):
            super().__init__(storage)
            made.append((self, storage))

    monkeypatch.setattr(app_test_module, "MediaFileManager", Recording)
    return made


def download(at, media, key: str) -> tuple[bytes, str]:
    """Click-equivalent of a deferred download button: run its callable, return (bytes, file name)."""
    button = next(b for b in at.get("download_button") if b.key == key)
    assert button.proto.HasField("deferred_file_id"), f"{key} builds its bytes before any click"
    manager, storage = media[-1]
    url = manager.execute_deferred(button.proto.deferred_file_id)
    stored = storage.get_file(url.rsplit("/", 1)[-1].split(".")[0])
    return stored.content, stored.filename


def test_share_view_offers_the_three_formats_of_the_current_state(media):
    import nbformat

    from tests.apptest_helpers import start

    lab = trained_lab()
    at = start("ko")
    at.button_group(key="section").set_value("share").run()
    at.file_uploader(key="import_state").set_value(("s.json", export_state(lab.recipe, TEXT, "ko", lab),
                                                    "application/json")).run()
    at.button(key="import_apply").click().run()
    assert not at.exception and at.session_state["_ws"].lab.steps == lab.steps
    vectors, name = download(at, media, "export_projector_vectors")
    assert name == "vectors.tsv"
    for parsed in parse_vectors(vectors):
        assert np.array_equal(bits(parsed), bits(lab.weight.detach().numpy()))
    metadata, name = download(at, media, "export_projector_metadata")
    assert name == "metadata.tsv"
    assert [row[3] for row in read_tsv(metadata)[1:]] == expected_classes(ROWS, TEXT, TWO, FIXED)
    notebook, name = download(at, media, "export_notebook")
    assert name.endswith(".ipynb")
    cells = nbformat.reads(notebook.decode("utf-8"), as_version=4).cells
    head, parts = split_script(script_for(lab.recipe, lab.steps, lab.pad_edits))
    assert [c.source for c in cells if c.cell_type == "code"] == [head] + [p for _, p in parts]
    assert re.search("[가-힣]", cells[0].source)  # the page is Korean


def test_the_scripts_preview_is_built_only_while_open_and_is_the_script():
    """④'s preview of the PyTorch script: no code block until its expander is opened (highlighting a
    long script is the browser's longest task on that view), then exactly the downloadable script."""
    from session import Keys
    from tests.apptest_helpers import start

    at = start("ko")
    at.session_state[Keys.SECTION] = "share"
    at.run()
    assert not [c for c in at.code if c.language == "python"]
    at.session_state[Keys.CODE_PREVIEW] = True
    at.run()
    (code,) = [c for c in at.code if c.language == "python"]
    ex = at.session_state["_ws"]
    assert code.value.rstrip("\n") == script_for(ex.recipe, ex.lab.steps, ex.lab.pad_edits, lang="ko").rstrip("\n")
