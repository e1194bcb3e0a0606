"""core.downloads: each download's bytes from a script, the same bytes the page's button gives.

Answer keys: the file formats read back (W as CSV and the Projector's vectors against the lab's W
bit for bit, the state through the app's own import path, the script run and its printed losses and
W against the lab's), and the notebook against the builder the page used before with the page's own
strings (components.i18n.t).
"""

from __future__ import annotations

import contextlib
import io
import json
from functools import partial

import numpy as np
import pytest

from components.i18n import t
from core import downloads
from core.notebook import notebook_for
from core.sheet_cells import read_weights_csv
from core.state import parse_state, restore
from support.labs import CHAPTER_TEXT, make_lab
from tests.test_exports import download, media  # noqa: F401 (media is a fixture)


@pytest.fixture(scope="module")
def lab():
    lab = make_lab(optimizer="momentum", lr=0.2, batch_size=1)
    lab.run(4)
    lab.set_pad_row([0.5, -1.0, 2.0])
    lab.run(2)
    return lab


def test_every_kind_has_a_file_name_and_bytes(lab):
    class Ex:  # what explorer_files reads of an Explorer
        text = CHAPTER_TEXT

    Ex.lab = lab
    files = downloads.explorer_files(Ex, "en")
    assert set(files) == set(downloads.KINDS) == set(downloads.FILE_NAMES)
    assert all(isinstance(b, bytes) and b for b in files.values())
    with pytest.raises(ValueError):
        downloads.file_bytes("pickle", lab, CHAPTER_TEXT, "en")


def test_w_as_csv_and_the_projector_vectors_read_back_as_w(lab):
    w = lab.weight.detach().numpy()
    rows, read = read_weights_csv(downloads.file_bytes("w_csv", lab, CHAPTER_TEXT, "en"))
    assert np.array_equal(read.view(np.int32), w.view(np.int32)) and [r[1] for r in rows] == list(lab.recipe.vocab.tokens)
    text = downloads.file_bytes("projector_vectors", lab, CHAPTER_TEXT, "en").decode("utf-8")
    vectors = np.array([[np.float32(x) for x in line.split("\t")] for line in text.splitlines()], dtype=np.float32)
    assert np.array_equal(vectors.view(np.int32), w.view(np.int32))
    meta = downloads.file_bytes("projector_metadata", lab, CHAPTER_TEXT, "en").decode("utf-8").splitlines()
    assert len(meta) == lab.recipe.vocab.size + 1  # a header, then one row per token


def test_the_state_replays_to_the_same_weights(lab):
    restored = restore(parse_state(downloads.file_bytes("state", lab, CHAPTER_TEXT, "ko")))
    assert restored.lab.steps == 6
    assert np.array_equal(restored.lab.weight_numpy().view(np.int32), lab.weight_numpy().view(np.int32))


def test_the_script_prints_the_labs_losses_and_w(lab):
    code = downloads.file_bytes("code", lab, CHAPTER_TEXT, "en").decode("utf-8")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "embedding_explorer.py", "exec"), {"__name__": "__main__"})
    printed = json.loads(out.getvalue().splitlines()[-1])
    assert np.array_equal(np.float32(printed["losses"]), np.float32(lab.losses))
    assert np.array_equal(np.asarray(printed["W"], dtype=np.float32), lab.weight_numpy())


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_the_notebook_is_the_one_the_page_built_with_its_own_strings(lab, lang):
    code = downloads.script(lab, lang)
    def cells(data: bytes) -> list[dict]:  # nbformat gives each cell a random id: compare the rest
        return [{k: v for k, v in c.items() if k != "id"} for c in json.loads(data)["cells"]]

    assert cells(downloads.file_bytes("notebook", lab, CHAPTER_TEXT, lang)) == cells(notebook_for(code, partial(t, lang)))
    assert downloads.file_bytes("code", lab, CHAPTER_TEXT, lang) == code.encode("utf-8")



def test_each_button_of_the_share_view_gives_these_bytes(media):  # noqa: F811 (media: the fixture)
    """The page's download buttons, clicked through Streamlit's media storage (as tests/test_exports.py
    does), give exactly what core.downloads gives a script for the session's explorer."""
    from tests.apptest_helpers import start

    at = start("en")
    at.number_input(key="batch_size").set_value(1).run()
    at.button_group(key="section").set_value("train").run()
    at.button(key="step").click().run()
    at.button_group(key="section").set_value("share").run()
    ex = at.session_state["_ws"]
    assert not at.exception and ex.lab.steps == 1
    for kind in downloads.KINDS:
        expected = downloads.file_bytes(kind, ex.lab, ex.text, "en")
        if kind == "code":  # previewed, so built on every run: its bytes are stored before any click
            (button,) = [b for b in at.get("download_button") if b.key == "export_code"]
            stored = media[-1][1].get_file(button.proto.url.rsplit("/", 1)[-1].split(".")[0])
            data, name = stored.content, stored.filename
        else:
            data, name = download(at, media, f"export_{kind}")
        assert name == downloads.FILE_NAMES[kind]
        if kind == "notebook":
            data, expected = ([{k: v for k, v in c.items() if k != "id"} for c in json.loads(d)["cells"]]
                              for d in (data, expected))
        assert data == expected, kind
