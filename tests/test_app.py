"""The app through Streamlit's AppTest: the documented keys drive it, torch is the answer key."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from components.i18n import t
from support.labs import chapter_w, preset_lab
from support.torch_reference import PlainLoop
from tests.apptest_helpers import array, errors, figure, figures, id_matrix, shown, stage, stage_w, stage_xy, start


@pytest.fixture
def at():
    return start("ko")


def test_default_page_is_the_chapter_example(at):
    assert not at.exception and not errors(at)
    assert id_matrix(at) == [[2, 0, 3], [2, 4, 1]]
    rows, w = stage_w(at)
    assert rows == list(range(6))
    np.testing.assert_array_equal(w, chapter_w())
    assert any("18" in m.value and "PAD" in m.value for m in at.markdown)  # V·E = 18 with the PAD row


def test_selecting_the_pad_cell_shows_a_zero_output_vector(at):
    at.session_state["lookup_tables"] = True
    at.session_state["id_cell"] = {"selection": {"cells": [[1, "t=2"]], "rows": [], "columns": []}}
    at.run()
    data = stage(at)
    assert data["selected"] == 1 and data["out"]["b"] == 1
    out = np.asarray(data["out"]["values"], dtype=np.float32)
    ref = torch.nn.Embedding.from_pretrained(torch.from_numpy(chapter_w()), padding_idx=1)(torch.tensor([[2, 0, 3], [2, 4, 1]]))
    np.testing.assert_array_equal(out, ref[1].numpy())
    assert not out[2].any()  # vectors[1, 2] is all zeros (C16)
    assert any("W[1, :]" in s.value for s in at.success)


def test_the_mask_table_is_drawn_only_when_opened_and_matches_torch(at):
    tables = lambda: [d.value for d in at.dataframe if "len" in d.value.columns]  # noqa: E731
    assert tables() == []  # closed: not built
    at.session_state["lookup_tables"] = True
    at.run()
    (shown,) = tables()
    ids = torch.tensor(id_matrix(at))
    np.testing.assert_array_equal(shown.drop(columns="len").to_numpy(), (ids != 1).int().numpy())
    assert shown["len"].tolist() == (ids != 1).sum(1).tolist() == [3, 2]


def test_the_stage_follows_a_new_seed_and_a_selected_cell(at):
    before = stage(at)
    at.run()  # nothing changed: the same data again
    assert stage(at) == before
    at.number_input(key="seed").set_value(7).run()
    np.testing.assert_array_equal(stage_w(at)[1], chapter_w(seed=7))
    at.session_state["lookup_tables"] = True
    at.session_state["id_cell"] = {"selection": {"cells": [[0, "t=1"]], "rows": [], "columns": []}}
    at.run()
    assert stage(at)["selected"] == 0  # <UNK>, the id in that cell, followed on the stage


def test_editing_sentences_updates_the_matrix(at):
    at.text_area(key="sentences").input("재미있다 영화 | 긍정\n나쁘다 | 부정\n팝콘 팝콘 팝콘 좋다 | 긍정").run()
    assert not at.exception and not errors(at)
    assert id_matrix(at) == [[5, 2, 1, 1], [4, 1, 1, 1], [0, 0, 0, 3]]


def test_editing_the_vocabulary_updates_the_matrix(at):
    at.session_state["vocab"] = {"edited_rows": {"3": {"token": "멋지다"}}, "added_rows": [{"token": "정말", "id": 6, "role": "normal"}],
                                 "deleted_rows": []}
    at.run()
    assert not at.exception and not errors(at)
    assert id_matrix(at) == [[2, 6, 0], [2, 4, 1]]  # 정말 is known now; 좋다 was renamed, so it is unknown
    assert stage_w(at)[1].shape == (7, 3)


def test_invalid_vocabulary_keeps_the_last_valid_state_and_says_why(at):
    at.session_state["vocab"] = {"edited_rows": {"3": {"id": 2}}, "added_rows": [], "deleted_rows": []}
    at.run()
    assert not at.exception
    msgs = " ".join(errors(at))
    assert "3행" in msgs and "번호 2" in msgs  # names the row and the id
    assert id_matrix(at) == [[2, 0, 3], [2, 4, 1]]  # the last valid vocabulary still drives the page
    assert at.session_state["vocab"]["edited_rows"] == {"3": {"id": 2}} or at.session_state["vocab"]["edited_rows"] == {3: {"id": 2}}


def test_invalid_sentences_keep_the_text_and_the_last_valid_batch(at):
    bad = "영화 좋다 |\n | 긍정"
    at.text_area(key="sentences").input(bad).run()
    assert not at.exception
    msgs = " ".join(errors(at))
    assert "1번째 줄" in msgs and "2번째 줄" in msgs
    assert at.text_area(key="sentences").value == bad
    assert id_matrix(at) == [[2, 0, 3], [2, 4, 1]]


@pytest.mark.parametrize("key, value, code_text", [
    ("embedding_dim", 0, "E"), ("embedding_dim", 100_000, "E"), ("lr", -1.0, "0.1"), ("lr", 0.0, "0.1"),
    ("weight_decay", -0.5, "0"), ("seed", -3, "0"),
])
def test_invalid_numbers_are_refused_with_a_message(at, key, value, code_text):
    at.number_input(key=key).set_value(value).run()
    assert not at.exception
    assert errors(at) and code_text in " ".join(errors(at))
    assert id_matrix(at) == [[2, 0, 3], [2, 4, 1]]


def test_changing_e_and_seed_rebuilds_reproducibly(at):
    at.number_input(key="embedding_dim").set_value(5).run()
    at.number_input(key="seed").set_value(42).run()
    np.testing.assert_array_equal(stage_w(at)[1], chapter_w(42, 5))


def test_step_and_run_advance_training(at):
    at.button_group(key="section").set_value("train").run()
    at.button(key="step").click().run()
    assert not at.exception
    assert at.session_state["_ws"].lab.steps == 1
    at.number_input(key="n_steps").set_value(20).run()
    at.button(key="run_steps").click().run()
    assert not at.exception and at.session_state["_ws"].lab.steps == 21
    data = stage(at)
    assert data["scatter"]["step"] == 21 and len(data["loss"]) == 21  # the sparkline: every step's loss
    ref = PlainLoop(preset_lab("chapter").recipe).run(21)  # the answer key: 21 steps of plain torch
    np.testing.assert_array_equal(np.float32(data["loss"]), np.float32(ref.losses))
    np.testing.assert_array_equal(stage_w(at)[1], ref.weight)
    at.button(key="reset").click().run()
    assert at.session_state["_ws"].lab.steps == 0


def test_english_page_renders(at):
    at.radio(key="lang").set_value("en").run()
    assert not at.exception
    assert at.sidebar.title[0].value == "nn.Embedding Explorer"
    for section in ("lookup", "train", "lessons", "share"):
        at.button_group(key="section").set_value(section).run()
        assert not at.exception, section


def test_two_sessions_side_by_side_share_nothing():
    a, b = start("ko"), start("en")
    w_b = stage_w(b)[1].copy()
    a.button_group(key="section").set_value("train").run()
    a.number_input(key="n_steps").set_value(30).run()
    a.button(key="run_steps").click().run()
    a.text_area(key="sentences").input("영화 영화 | 긍정").run()
    b.run()
    lab_a, lab_b = a.session_state["_ws"].lab, b.session_state["_ws"].lab
    assert lab_a is not lab_b and lab_b.steps == 0
    assert lab_a.weight.data_ptr() != lab_b.weight.data_ptr()
    assert id_matrix(b) == [[2, 0, 3], [2, 4, 1]]
    np.testing.assert_array_equal(stage_w(b)[1], w_b)
    np.testing.assert_array_equal(w_b, chapter_w())


def test_pad_row_set_by_hand_is_returned_by_lookups_and_reported(at):
    at.session_state["pad_editor"] = True  # the PAD editor's expander, built only while open
    at.button_group(key="section").set_value("train").run()
    at.text_input(key="pad_vector").input("0.5, -1, 2").run()
    at.button(key="set_pad").click().run()
    assert not at.exception and not errors(at)
    lab = at.session_state["_ws"].lab
    with torch.no_grad():
        np.testing.assert_array_equal(lab.model.embedding(torch.tensor([[2, 4, 1]]))[0, 2].numpy(), [0.5, -1.0, 2.0])
    rows, values = stage_w(at)  # the stage drawn in the same run as the click already shows it
    np.testing.assert_array_equal(values[rows.index(1)], np.float32([0.5, -1.0, 2.0]))
    at.text_input(key="pad_vector").input("1, nan, 3").run()
    at.button(key="set_pad").click().run()
    assert errors(at) and not at.exception
    np.testing.assert_array_equal(lab.weight[1].detach().numpy(), [0.5, -1.0, 2.0])  # unchanged by the bad input


def test_timeline_scrubs_back_and_the_pad_point_is_the_same_in_every_step(at):
    at.button_group(key="section").set_value("train").run()
    at.number_input(key="n_steps").set_value(10).run()
    at.button(key="run_steps").click().run()
    at.select_slider(key="timeline").set_value(3).run()
    assert not at.exception
    assert stage(at)["scatter"]["step"] == 3
    pad = stage_xy(at, 1)
    at.select_slider(key="timeline").set_value(10).run()
    assert stage(at)["scatter"]["step"] == 10 and stage_xy(at, 1) == pad
    assert any("PAD" in c.value for c in at.caption)


def test_a_long_history_is_drawn_through_a_bounded_number_of_steps(at, monkeypatch):
    """Past MAX_DRAWN_STEPS kept steps the trails are drawn through an even stride of them (first
    and newest always); the shown step projects exactly in the lab's one frame, fitted on a preview
    run of the same recipe (sklearn's PCA on a fresh lab's snapshots is the answer key), and the PAD
    caption still covers every kept step."""
    from sklearn.decomposition import PCA

    import core.projection
    from core.explorer import PREVIEW_STEPS
    from core.training import Lab

    monkeypatch.setattr(core.projection, "MAX_DRAWN_STEPS", 8)
    at.button_group(key="section").set_value("train").run()
    at.number_input(key="n_steps").set_value(40).run()
    at.button(key="run_steps").click().run()
    at.select_slider(key="timeline").set_value(17).run()  # not one of the drawn steps
    assert not at.exception
    lab = at.session_state["_ws"].lab
    drawn = [0, 6, 12, 18, 24, 30, 36, 40]  # stride ceil(40 / 7) = 6, and the newest step
    assert sorted(lab.snapshots) == list(range(41))
    scatter = stage(at)["scatter"]
    assert scatter["step"] == 17
    trail = scatter["trail"]
    assert all(len(x) == len([s for s in drawn if s < 17]) for x in trail["x"])  # through the drawn steps before 17
    xy = np.full((6, 2), np.nan)
    xy[scatter["ids"]] = np.stack([scatter["x"], scatter["y"]], axis=1)
    preview = Lab(lab.recipe)
    preview.run(PREVIEW_STEPS)
    fitted = core.projection.thin_steps(sorted(preview.snapshots), 16)
    pca = PCA(n_components=2).fit(np.concatenate([preview.snapshots[s] for s in fitted]).astype(np.float64))
    expected = pca.transform(lab.snapshots[17].astype(np.float64))
    signs = np.sign(np.sum(expected * xy, axis=0))  # PCA axes are defined up to sign
    np.testing.assert_allclose(xy, expected * signs, rtol=1e-4, atol=1e-5)
    assert any("41" in c.value and "PAD" in c.value for c in at.caption)
    assert any(t("ko", "proj.trails_thinned", n=41, shown=8) in c.value for c in at.caption)  # says the steps are thinned
    trail_ids = trail["ids"]
    past = [s for s in drawn if s < 17]
    exact = np.stack([pca.transform(lab.snapshots[s].astype(np.float64))[trail_ids] for s in past], axis=1) * signs
    spans = [hi - lo for lo, hi in scatter["range"]]  # the trails are a picture: within 1/16384 of each axis
    for j, name in enumerate("xy"):
        assert np.abs(np.array(trail[name]) - exact[..., j]).max() <= spans[j] / 16384 + 1e-5


def _pad_and_ranges(at, step: int) -> tuple[list, list, list]:
    scatter = stage(at)["scatter"]
    assert scatter["step"] == step
    return list(stage_xy(at, 1)), scatter["range"][0], scatter["range"][1]


def test_the_pca_frame_holds_still_across_steps_runs_and_the_timeline(at):
    """Five Steps, a Run of 20 and a timeline move: the PAD point is bitwise where it was, the axis
    ranges only widen, and the caption says so truthfully."""
    at.button_group(key="section").set_value("train").run()
    pad0, x0, y0 = _pad_and_ranges(at, 0)
    seen = []
    for _ in range(5):
        at.button(key="step").click().run()
        seen.append(_pad_and_ranges(at, len(seen) + 1))
    at.number_input(key="n_steps").set_value(20).run()
    at.button(key="run_steps").click().run()
    seen.append(_pad_and_ranges(at, 25))
    at.select_slider(key="timeline").set_value(3).run()
    seen.append(_pad_and_ranges(at, 3))
    assert not at.exception
    for pad, x, y in seen:
        assert pad == pad0
        assert x[0] <= x0[0] and x[1] >= x0[1] and y[0] <= y0[0] and y[1] >= y0[1]
        x0, y0 = x, y
    xy = ", ".join(f"{v:.4f}" for v in pad0)
    assert any(xy in c.value and "26" in c.value for c in at.caption)  # PAD at (x, y) in all 26 kept steps


def test_regression_refused_e_then_a_new_sentence_at_100k(at):
    """Issue 13's crash: the 100k example, E=401 refused, then a sentence added; no exception."""
    at.selectbox(key="preset").set_value("large").run()
    at.button(key="load_preset").click().run()
    at.number_input(key="embedding_dim").set_value(401).run()
    assert errors(at) and not at.exception
    at.text_area(key="sentences").input(at.text_area(key="sentences").value + "\nw000002 w000003 | 1").run()
    assert not at.exception
    lab = at.session_state["_ws"].lab
    assert lab.batch.ids.shape == (257, 50) and lab.recipe.config.embedding_dim == 300


def test_play_toggle_and_token_picker_render_without_error(at):
    at.button_group(key="section").set_value("train").run()
    at.button(key="play").click().run()
    assert not at.exception and at.session_state["_own"].playing
    assert at.button(key="step").disabled and at.button(key="run_steps").disabled and not at.button(key="reset").disabled
    with pytest.raises(Exception, match="disabled"):  # AppTest, like the browser, clicks no disabled button
        at.button(key="step").click()
    at.button(key="play").click().run()
    assert not at.session_state["_own"].playing
    assert not at.button(key="step").disabled and not at.button(key="run_steps").disabled
    at.selectbox(key="selected_token").set_value(4).run()
    assert not at.exception and at.session_state["_ws"].selected_token == 4
    assert stage(at)["selected"] == 4
    at.button_group(key="section").set_value("lookup").run()
    assert stage(at)["selected"] == 4  # the followed token, on the lookup stage too


def _nearest_by_torch(w: torch.Tensor, token: int, k: int = 5) -> tuple[list[int], np.ndarray]:
    sims = torch.nn.functional.cosine_similarity(w, w[token].unsqueeze(0), dim=1)
    ok = [i for i in range(len(w)) if i != token and w[i].norm() > 0]  # not itself; a zero row has no direction
    rank = sorted(ok, key=lambda i: -float(sims[i]))[:k]
    return rank, sims[rank].numpy()


def test_nearest_tokens_then_and_now_are_torch_cosine_similarities(at):
    at.session_state["details"] = True  # the table is in the details, built only while open
    at.session_state["pad_editor"] = True  # so is the PAD editor
    at.button_group(key="section").set_value("train").run()
    at.number_input(key="n_steps").set_value(7).run()
    at.button(key="run_steps").click().run()

    def check(now: int, n: int) -> None:
        lab = at.session_state["_ws"].lab
        token = at.session_state["selected_token"]
        (table,) = [d.value for d in at.dataframe if any(str(c).endswith("코사인 유사도") for c in d.value.columns)]
        for step in (0, now):
            rank, cos = _nearest_by_torch(torch.from_numpy(lab.snapshots[step]), token)
            shown = [int(str(x).split(" · ")[0]) for x in table[f"{step}단계 · 토큰"] if x]
            assert shown == rank and len(rank) == (4 if step == 0 else n)
            np.testing.assert_allclose(table[f"{step}단계 · 코사인 유사도"].to_numpy(dtype=float)[:len(rank)], cos, atol=5e-5)

    check(7, 4)  # V=6: not itself, not the zero PAD row
    at.text_input(key="pad_vector").input("1, 1, 1").run()
    at.button(key="set_pad").click().run()
    check(7, 5)  # the PAD row has a direction now, so it is a neighbour: the kept answer was not reused


def test_the_gradient_table_is_the_gradient_of_a_hand_written_forward_pass(at):
    at.button_group(key="section").set_value("train").run()
    lab = at.session_state["_ws"].lab  # step 0: W0 and the head before the click
    w = lab.weight.detach().clone().requires_grad_(True)
    ids, mask = lab.batch.ids, lab.batch.mask.unsqueeze(-1).float()
    pooled = (w[ids] * mask).sum(1) / lab.batch.lengths.unsqueeze(1).float()  # masked mean (the chapter's pooling)
    head = lab.model.head
    torch.nn.functional.cross_entropy(pooled @ head.weight.detach().T + head.bias.detach(),
                                      torch.tensor(lab.recipe.labels)).backward()
    at.session_state["details"] = True  # the last step's details, built only while open
    at.button(key="step").click().run()
    (table,) = [d.value for d in at.dataframe if "‖기울기‖" in d.value.columns]
    table = table.rename(columns={"번호": "id", "‖기울기‖": "‖grad‖", "기울기": "grad"})
    assert table["id"].tolist() == torch.unique(ids).tolist() == [0, 1, 2, 3, 4]  # looked-up rows only; 5 is not
    np.testing.assert_allclose(table["‖grad‖"].to_numpy(dtype=float), w.grad[[0, 1, 2, 3, 4]].norm(dim=1).numpy(), rtol=1e-5)
    first = [float(x) for x in table["grad"][2].strip("[]").split(", ")]  # row 2 (영화), 3 significant digits
    np.testing.assert_allclose(first, w.grad[2].numpy(), rtol=5e-3)
    assert table["grad"][1] == "[0, 0, 0]"  # PAD: exactly zero, written as such
    assert table["‖grad‖"][1] == 0.0 and not w.grad[[1, 5]].any()  # PAD and the unused row: exactly 0


def test_replay_is_built_only_when_its_expander_is_open(at):
    at.button_group(key="section").set_value("train").run()
    at.number_input(key="n_steps").set_value(5).run()
    at.button(key="run_steps").click().run()
    titles = [f["layout"].get("title", {}).get("text", "") for f in figures(at)]
    assert not any("재생" in x for x in titles)  # closed: not built, not sent
    at.session_state["replay"] = True
    at.run()
    replay = figure(at, "재생")
    assert not at.exception and len(replay["frames"]) == 6  # steps 0..5, one frame each


def test_the_replay_is_rebuilt_only_when_what_it_shows_changes(at, monkeypatch):
    from components import charts

    builds = []
    real = charts.pca_animation
    monkeypatch.setattr(charts, "pca_animation", lambda *a, **k: builds.append(1) or real(*a, **k))
    at.button_group(key="section").set_value("train").run()
    at.number_input(key="n_steps").set_value(5).run()
    at.button(key="run_steps").click().run()
    at.session_state["replay"] = True
    at.run()
    at.session_state["replay"] = False
    at.run()
    at.session_state["replay"] = True
    at.run()  # closed and opened again, nothing else changed: the kept figure
    assert len(builds) == 1
    at.button(key="step").click().run()  # a new step: a new frame of reference, a new frame
    assert len(builds) == 2 and len(figure(at, "재생")["frames"]) == 7
    at.radio(key="pca_dims").set_value(3).run()
    at.radio(key="pca_dims").set_value(2).run()  # the 3-D replay replaced the kept one: built again
    assert len(builds) == 4
    replay_pad = [tr for tr in figure(at, "재생")["frames"][-1]["data"] if tr.get("name") == "PAD"][0]
    assert [stage_xy(at, 1)[0]] == np.float32(array(replay_pad["x"])).tolist()  # one frame for both pictures


def test_a_preset_the_server_has_no_memory_for_is_refused_and_the_page_stays(at, monkeypatch):
    import gc

    import server.admission as memory

    gc.collect()  # earlier tests' labs, no longer referenced, leave the admission ledger

    at.text_area(key="sentences").input("영화 좋다 | 긍정\n영화 나쁘다 | 부정\n좋다 | 긍정").run()
    lab = at.session_state["_ws"].lab
    monkeypatch.setattr(memory, "CHECK_ABOVE_BYTES", 0)
    monkeypatch.setattr(memory, "available_bytes", lambda: 300 * 2**20)
    # Labs other tests in this process still hold are promised memory too: the message would name a
    # larger reserve than the server's own 512 MB (tests/test_budget.py covers the promises).
    monkeypatch.setattr(memory.ADMISSIONS, "promised", lambda: 0)
    at.session_state["preset"] = "reviews_ko"
    at.button(key="load_preset").click().run()
    assert not at.exception
    assert at.session_state["_ws"].lab is lab  # the learner's lab and text stay
    assert at.text_area(key="sentences").value.endswith("좋다 | 긍정")
    from components.i18n import t

    shown = " ".join(e.value for e in at.error)
    assert t("ko", "err.preset_title") in shown and "300 MB" in shown and "512 MB" in shown
    at.button_group(key="section").set_value("train").run()
    at.button(key="step").click().run()  # and it still trains
    assert not at.exception and at.session_state["_ws"].lab.steps == 1


def test_megabyte_pastes_are_refused_with_a_message_and_nothing_is_lost(at):
    paste = ("영화 " * 400_000)[:1_500_000]  # 1.5 MB in one line
    at.text_area(key="sentences").input(paste).run()
    assert not at.exception
    assert any("200,000" in e for e in errors(at))  # names the limit
    assert at.text_area(key="sentences").value == paste
    assert id_matrix(at) == [[2, 0, 3], [2, 4, 1]]


def test_run_progress_is_reported_at_most_once_per_interval():
    from components.busy import throttled

    seen = []
    every = throttled(lambda done, n: seen.append(done), every_s=0.0)
    never = throttled(lambda done, n: seen.append(-done), every_s=3600.0)
    for i in range(1, 6):
        every(i, 5)
        never(i, 5)
    assert seen == [1, 2, 3, 4, 5]


def test_kept_figures_and_demos_do_not_keep_an_old_lab_alive(at):
    import gc
    import weakref

    at.button_group(key="section").set_value("train").run()
    at.button(key="step").click().run()
    at.button_group(key="section").set_value("lessons").run()
    at.radio(key="mode").set_value("free").run()
    at.session_state["details"] = True  # the neighbours table is built inside the details
    at.button_group(key="section").set_value("train").run()
    assert "demo:C8" in at.session_state["_own"].built
    assert at.session_state["_ws"]._near[1]  # the explorer keeps the neighbours table's answers
    old = weakref.ref(at.session_state["_ws"].lab)
    at.button(key="reset").click().run()
    gc.collect()
    assert old() is None  # a 100k×300 lab is ~1 GB: the caches name labs by uid, never hold them


def test_a_custom_axis_from_two_tokens_is_drawn_and_named_on_the_stage(at):
    at.button_group(key="section").set_value("train").run()
    at.button(key="step").click().run()
    at.session_state["axis_picker"] = True  # the axis's popover, built only while open
    at.run()
    at.selectbox(key="axis_from").set_value(4).run()
    at.selectbox(key="axis_to").set_value(3).run()
    at.button(key="axis_set").click().run()
    assert not at.exception
    scatter = stage(at)["scatter"]
    assert scatter["axes"][0].startswith("나쁘다 → 좋다")
    lab = at.session_state["_ws"].lab
    gap = float(torch.linalg.vector_norm(torch.from_numpy(lab.snapshots[1][3] - lab.snapshots[1][4])))
    x = dict(zip(scatter["ids"], scatter["x"]))
    assert abs((x[3] - x[4]) - gap) < 1e-4
    assert any("나쁘다 → 좋다" in c.value for c in at.caption)


def test_a_divergence_is_a_message_not_a_crash_and_reset_works(at):
    """Issue 17's recipe through the page: AdamW, lr 10, weight decay 10, Run 50."""
    at.session_state["knobs"] = True  # the bar's popover of knobs, built only while open
    at.button_group(key="section").set_value("train").run()
    at.selectbox(key="optimizer").set_value("adamw").run()
    at.number_input(key="lr").set_value(10.0).run()
    at.number_input(key="weight_decay").set_value(10.0).run()
    at.button(key="run_steps").click().run()
    assert not at.exception
    lab = at.session_state["_ws"].lab
    assert lab.diverged is not None and torch.isfinite(lab.weight).all()
    shown = " ".join(e.value for e in at.error) + " ".join(i.value for i in at.info)
    assert f"{lab.diverged.params['step']}단계에서 학습이 발산" in shown and "가중치 감쇠" in shown
    at.run()
    assert at.button(key="step").disabled and at.button(key="back_to")  # until the learner goes on or resets
    data = stage(at)
    assert data["scatter"]["step"] == lab.steps and all(np.isfinite(data["scatter"]["x"]))
    at.button(key="reset").click().run()
    assert not at.exception and at.session_state["_ws"].lab.steps == 0 and not at.button(key="step").disabled


def test_a_sentence_tried_after_training_uses_the_trained_w_and_leaves_the_run_alone(at):
    at.button_group(key="section").set_value("train").run()
    at.number_input(key="n_steps").set_value(20).run()
    at.button(key="run_steps").click().run()
    lab = at.session_state["_ws"].lab
    ids_before = lab.batch.ids.clone()
    at.button_group(key="section").set_value("lookup").run()
    at.text_input(key="try_sentence").input("영화 팝콘 좋다").run()
    assert not at.exception and at.session_state["_ws"].lab is lab
    assert lab.steps == 20 and torch.equal(lab.batch.ids, ids_before)
    (table,) = [d.value for d in at.dataframe if len(d.value) == 3 and "팝콘" in d.value.to_string()]
    w20 = torch.from_numpy(lab.snapshots[20])
    vectors = torch.nn.Embedding.from_pretrained(w20, padding_idx=1)(torch.tensor([2, 0, 3]))  # 팝콘 → <UNK>
    shown = np.array([[float(x) for x in str(v).strip("[]").split(",")] for v in table.iloc[:, -1]])
    np.testing.assert_allclose(shown, vectors.numpy(), rtol=1e-3, atol=1e-4)  # written to 4 significant digits
    assert [str(i).split(" ")[0] for i in table.iloc[:, -2]] == ["2", "0", "3"]


@pytest.mark.parametrize("value, would", [(2.5, "2"), (float("nan"), None), (1e300, None)])
def test_an_integer_knob_refuses_what_it_cannot_use_exactly(at, value, would):
    """Issue 17: no silent coercion. 2.5 is refused naming the 2 a coercion would have used; NaN
    and 1e300 never break the session; the chapter's lab keeps running."""
    lab = at.session_state["_ws"].lab
    at.number_input(key="embedding_dim").set_value(value).run()
    assert not at.exception and at.session_state["_ws"].lab is lab
    if would is not None:
        assert any("2.5" in shown(e) and would in shown(e) for e in errors(at))
    at.run()
    assert not at.exception and id_matrix(at) == [[2, 0, 3], [2, 4, 1]]


def test_a_token_list_becomes_the_vocabulary_in_one_go(at):
    tokens = ["<UNK>", "<PAD>", "영화", "좋다", "정말"] + [f"단어{i}" for i in range(3000)]
    at.text_area(key="token_list").input("\n".join(tokens)).run()
    at.button(key="token_list_load").click().run()
    assert not at.exception and not errors(at)
    vocab = at.session_state["_ws"].vocab
    assert vocab.size == 3005 and vocab.tokens[:5] == tuple(tokens[:5]) and (vocab.unk_id, vocab.pad_id) == (0, 1)
    assert id_matrix(at) == [[2, 4, 3], [2, 0, 1]]  # 정말 is known now; 나쁘다 is not


def test_the_bar_knobs_keep_their_values_while_their_popover_is_closed(at):
    """The training bar's knobs are drawn only while their popover is open; closed, they keep the
    value in effect (never Streamlit's default), and the sidebar shows it on the other views."""
    at.session_state["knobs"] = True
    at.button_group(key="section").set_value("train").run()
    at.number_input(key="lr").set_value(0.05).run()
    at.selectbox(key="optimizer").set_value("sgd").run()
    at.session_state["knobs"] = False
    at.run()
    at.button(key="step").click().run()
    ex = at.session_state["_ws"]
    assert (ex.config.lr, ex.config.optimizer, ex.lab.steps) == (0.05, "sgd", 1) and not errors(at)
    at.button_group(key="section").set_value("lookup").run()
    assert at.number_input(key="lr").value == 0.05 and at.selectbox(key="optimizer").value == "sgd"
    assert (ex.config.lr, ex.config.optimizer) == (0.05, "sgd") and not errors(at)
