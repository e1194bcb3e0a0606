"""The stage's text alternative: what a screen reader hears for each panel, and the scatter's numbers
as a table (issue 16: every chart with a text alternative and its numbers reachable as a table).

The answer key is a fresh torch lab and sklearn's PCA on a fresh preview run, never the app's numbers.
"""

from __future__ import annotations

import numpy as np
import torch
from sklearn.decomposition import PCA

import core.projection
from components.i18n import t
from core.explorer import PREVIEW_STEPS
from core.training import Lab
from tests.apptest_helpers import stage, start


def trained(lang: str, n: int = 5):
    at = start(lang)
    at.button_group(key="section").set_value("train").run()
    for _ in range(n):
        at.button(key="step").click().run()
    at.session_state["details"] = True  # the details, with the coordinates table, are built only while open
    at.run()
    assert not at.exception
    return at


def frame_xy(recipe, w: np.ndarray) -> np.ndarray:
    """``w`` in the lab's frame as a fresh computation finds it: PCA fitted on a preview run of the recipe."""
    preview = Lab(recipe)
    preview.run(PREVIEW_STEPS)
    fitted = core.projection.thin_steps(sorted(preview.snapshots), 16)
    pca = PCA(n_components=2).fit(np.concatenate([preview.snapshots[s] for s in fitted]).astype(np.float64))
    return pca.transform(w.astype(np.float64))


def coords_table(at, lang: str):
    title = t(lang, "train.coords_title", step=5)
    assert any(title in m.value for m in at.markdown), title
    frames = [d.value for d in at.dataframe]
    (table,) = [f for f in frames if "PC1" in f.columns and t(lang, "train.col.role") in f.columns]
    return table


def test_the_coordinates_table_is_w_in_the_frame_a_fresh_pca_finds():
    at = trained("ko")
    lab = at.session_state["_ws"].lab
    table = coords_table(at, "ko")
    fresh = Lab(lab.recipe)
    fresh.run(5)
    expected = frame_xy(lab.recipe, fresh.weight.detach().numpy())  # (V, 2)
    ids = table[t("ko", "train.col.id")].to_numpy()
    got = table[["PC1", "PC2"]].to_numpy(dtype=np.float64)
    signs = np.sign(np.sum(expected[ids] * got, axis=0))  # PCA axes are defined up to sign
    np.testing.assert_allclose(got, expected[ids] * signs, rtol=1e-4, atol=1e-5)
    assert sorted(ids.tolist()) == list(range(lab.recipe.vocab.size))
    tokens = table[t("ko", "train.col.token")].tolist()
    assert tokens == [lab.recipe.vocab.tokens[i] for i in ids]


def test_each_panel_says_what_it_shows_in_the_page_language():
    for lang in ("ko", "en"):
        at = trained(lang)
        lab = at.session_state["_ws"].lab
        alt = stage(at)["alt"]
        vocab = lab.recipe.vocab
        fresh = Lab(lab.recipe)
        fresh.run(4)
        before = fresh.weight.detach().clone()
        fresh.step()
        grad_rows = int((fresh.last.grad_rows.abs().sum(dim=1) > 0).sum())  # rows whose gradient is not zero
        assert t(lang, "stage.alt.w", rows=vocab.size, v=vocab.size, e=lab.recipe.config.embedding_dim,
                 touched=grad_rows) == alt["w"]
        pad = frame_xy(lab.recipe, fresh.weight.detach().numpy())[vocab.pad_id]
        table = coords_table(at, lang)
        row = table[table[t(lang, "train.col.id")] == vocab.pad_id]
        x, y = float(row["PC1"].iloc[0]), float(row["PC2"].iloc[0])
        assert abs(abs(x) - abs(pad[0])) < 1e-4 and abs(abs(y) - abs(pad[1])) < 1e-4
        assert f"{x:.2f}".replace("-", "\u2212") in alt["scatter"] and f"{y:.2f}".replace("-", "\u2212") in alt["scatter"]
        assert "5" in alt["scatter"] and f"{fresh.losses[-1]:.4f}" in alt["loss"]
        assert torch.equal(before[vocab.pad_id], fresh.weight.detach()[vocab.pad_id])  # PAD's row did not move


def test_the_lookup_panels_say_their_shapes():
    at = start("en")
    data = stage(at)
    b, tlen = np.asarray(data["ids"]).shape
    assert data["alt"]["ids"] == t("en", "stage.alt.ids", b=b, t=tlen, where=t("en", "pipe.tables"))
    assert f"b={data['out']['b']}" in data["alt"]["out"]
