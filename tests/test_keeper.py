"""The keeper: the work kept in the browser comes back bitwise, and nothing else the browser sends gets in.

core.saved is checked against torch (a fresh Lab trained the same steps); the component through
AppTest (tests/e2e/keeper_app.py): its data is the current state, and a state "found" in the
browser (set as the component's state before a run, as the browser would) is offered and restored.
"""

from __future__ import annotations

import base64
import hashlib
import json
import zlib
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
import torch
from streamlit.testing.v1 import AppTest

from assets import presets
from components.i18n import strings, t
from core.batch import parse_sentences
from core.explorer import Explorer
from core.problems import InputError
from core.saved import MAX_SAVED_CHARS, is_current, read_found, restore_found, saved_at_text, saved_entry
from core.share_link import MAX_SHARE_PARAM_CHARS
from core.training import Config, Lab, Recipe
from core.vocab import Vocab

ROOT = Path(__file__).resolve().parent.parent
APP = str(ROOT / "tests" / "e2e" / "keeper_app.py")
ROWS = [("<PAD>", 0, "pad"), ("영화", 1, ""), ("<UNK>", 2, "unk"), ("좋다", 3, ""), ("나쁘다", 4, "")]
TEXT = "영화 좋다 | 긍정\n영화 나쁘다 | 부정\n나쁘다 나쁘다 영화 | 부정\n"
CLASSES = ("부정", "긍정")
NOW_MS = 1_764_524_400_000  # 2025-11-30 17:40 UTC


def make_recipe() -> Recipe:
    lines = parse_sentences(TEXT, CLASSES)
    cfg = Config(embedding_dim=4, seed=11, optimizer="adam", lr=0.05, weight_decay=0.01, batch_size=2)
    return Recipe(Vocab.from_rows(ROWS), tuple(l.tokens for l in lines), tuple(l.label for l in lines), CLASSES, cfg)


def bits(w: torch.Tensor) -> bytes:
    return w.detach().to(torch.float32).contiguous().numpy().tobytes()


@pytest.fixture(scope="module")
def worked():
    """A lab trained by hand as a learner would: 3 steps, a PAD row set, 5 more, one step back."""
    recipe = make_recipe()
    lab = Lab(recipe)
    for _ in range(3):
        lab.step()
    lab.set_pad_row([0.5, -1.0, 2.0, 0.25])
    lab.run(5)
    lab.back_to(7)
    return recipe, lab


def fresh_w(recipe: Recipe) -> torch.Tensor:
    """The answer key: a new Lab, trained the same way, step by step."""
    lab = Lab(recipe)
    lab.run(3)
    lab.set_pad_row([0.5, -1.0, 2.0, 0.25])
    lab.run(4)
    return lab.weight


# ---- core.saved ---------------------------------------------------------------------------------
def test_a_valid_entry_restores_bitwise_the_same_w(worked):
    recipe, lab = worked
    entry = saved_entry(recipe, TEXT, "en", lab, now_ms=NOW_MS)
    assert entry["steps"] == 7 and entry["at"] == NOW_MS
    assert len(json.dumps(entry)) < MAX_SAVED_CHARS
    found = read_found(json.loads(json.dumps(entry)))  # as it comes back from the browser
    assert found.steps == 7 and found.saved_at_ms == NOW_MS and found.state.lang == "en"
    restored = restore_found(found)
    assert restored.lab.steps == 7
    assert bits(restored.lab.weight) == bits(fresh_w(recipe)) == bits(lab.weight)
    assert restored.lab.pad_edits == lab.pad_edits


def test_the_entry_of_a_restored_state_is_the_entry_it_came_from(worked):
    """So the page stops offering it once restored, and the browser does not rewrite it."""
    recipe, lab = worked
    entry = saved_entry(recipe, TEXT, "ko", lab, now_ms=NOW_MS)
    found = read_found(entry)
    r = restore_found(found)
    again = saved_entry(r.recipe, found.state.sentences, found.state.lang, r.lab, now_ms=NOW_MS + 1)
    assert is_current(found, again)
    assert not is_current(found, saved_entry(recipe, TEXT, "en", lab, now_ms=NOW_MS))
    assert not is_current(found, None)


def test_an_edited_step_count_is_replayed_not_believed(worked):
    """The claimed "steps" is not used: the state inside the parameter decides."""
    recipe, lab = worked
    entry = saved_entry(recipe, TEXT, "ko", lab, now_ms=NOW_MS) | {"steps": 99}
    assert read_found(entry).steps == 7


def _packed(obj: object) -> str:
    raw = json.dumps(obj).encode()
    return base64.urlsafe_b64encode(zlib.compress(raw, 9)).rstrip(b"=").decode()


def _tampered(entry: dict) -> list[tuple[str, object]]:
    """(what, entry) pairs: each one changes a valid entry the way a hand in devtools could."""
    raw = json.loads(zlib.decompress(base64.urlsafe_b64decode(entry["s"] + "=" * (-len(entry["s"]) % 4))))
    out = []
    for what, change in [("steps far past the budget", {"steps": 10**9}),
                         ("lr not finite as text", {"config": {**raw["config"], "lr": "nan"}}),
                         ("extra field", {"evil": "<img src=x onerror=alert(1)>"}),
                         ("version", {"version": 99}),
                         ("pad edit past the steps", {"pad_edits": [{"step": 50, "vector": [1, 2, 3, 4]}]}),
                         ("vocabulary without PAD", {"vocab": [["a", 0, ""], ["<UNK>", 1, "unk"]]})]:
        out.append((what, entry | {"s": _packed(raw | change)}))
    flipped = bytearray(entry["s"].encode())
    flipped[len(flipped) // 2] ^= 0x01
    out.append(("one flipped character", entry | {"s": flipped.decode()}))
    out.append(("cut short", entry | {"s": entry["s"][: len(entry["s"]) // 2]}))
    return out


def test_tampered_entries_are_refused_with_a_problem(worked):
    recipe, lab = worked
    entry = saved_entry(recipe, TEXT, "ko", lab, now_ms=NOW_MS)
    for what, bad in _tampered(entry):
        with pytest.raises(InputError) as e:
            read_found(bad)
        assert e.value.problems, what
        for p in e.value.problems:
            assert f"err.{p.code}" in strings(), (what, p.code)


@pytest.mark.parametrize("garbage", [
    None, 3, "eNo9", [], ["s", "x"], {}, {"steps": 3}, {"s": 12}, {"s": None}, {"s": ""},
    {"s": "!!!!"}, {"s": "eNo9", "extra": 1}, {"s": "<script>alert(1)</script>"},
    {"s": "A" * (MAX_SHARE_PARAM_CHARS + 1)}, {"s": "A" * 5_000_000}, {"s": ["eNo9"]},
    {"s": base64.urlsafe_b64encode(zlib.compress(b"\x00" * 50_000_000)).decode()},  # a zlib bomb, 48 kB
    {"s": _packed({"version": 1})},
])
def test_garbage_and_oversized_entries_raise_input_error_only(garbage):
    with pytest.raises(InputError) as e:
        read_found(garbage)
    assert all(f"err.{p.code}" in strings() for p in e.value.problems)


@pytest.mark.parametrize("at", [None, "12:00", float("nan"), float("inf"), -1, 10**20, True])
def test_a_bad_time_is_dropped_not_trusted(worked, at):
    recipe, lab = worked
    entry = saved_entry(recipe, TEXT, "ko", lab, now_ms=NOW_MS) | {"at": at}
    assert read_found(entry).saved_at_ms is None


def test_a_state_too_large_for_a_link_is_not_kept():
    """A 20,000-token vocabulary makes a link longer than a URL can carry: nothing is kept (and the banner says so)."""
    rows = [("<PAD>", 0, "pad"), ("<UNK>", 1, "unk")] + [(f"w{i:05d}x{i * 7919 % 10007}", i, "") for i in range(2, 20_000)]
    lines = parse_sentences("w00002x15838 | a\n", ("a", "b"))
    recipe = Recipe(Vocab.from_rows(rows), tuple(l.tokens for l in lines), tuple(l.label for l in lines), ("a", "b"),
                    Config(embedding_dim=2))
    assert saved_entry(recipe, "w00002x15838 | a\n", "en", Lab(recipe), now_ms=NOW_MS) is None


def test_saved_at_is_shown_in_the_browsers_time_zone():
    when = datetime.fromtimestamp(NOW_MS / 1000, timezone.utc)
    for offset in (-540, 0, 300, None):  # Seoul, UTC, New York (winter), unknown (UTC)
        local = when - timedelta(minutes=offset or 0)
        assert saved_at_text(NOW_MS, offset) == f"{local.hour:02d}:{local.minute:02d}"
    assert saved_at_text(None, -540) == ""


def test_every_keeper_string_is_in_korean_and_english():
    keys = [k for k in strings() if k.startswith("keeper.")] + ["err.saved_invalid"]
    assert len(keys) >= 7
    for k in keys:
        assert strings()[k].get("ko") and strings()[k].get("en"), k


# ---- the component through AppTest --------------------------------------------------------------
def keeper_data(at: AppTest) -> dict:
    (el,) = [e for e in at.main if type(e).__name__ == "UnknownElement" and e.type == "bidi_component"]
    assert el.proto.component_name == "work_keeper"
    return json.loads(el.proto.json)


def shown(at: AppTest) -> tuple[int, str]:
    steps, w = at.code[0].value.split()
    return int(steps.removeprefix("steps=")), w.removeprefix("w=")


@pytest.fixture
def at():
    app = AppTest.from_file(APP, default_timeout=60)
    app.run()
    assert not app.exception
    return app


def _default_explorer() -> Explorer:
    return Explorer.from_preset(presets.load(presets.DEFAULT))


def test_the_browser_gets_the_current_state_after_each_step(at):
    for _ in range(3):
        at.button(key="keeper_step").click().run()
    data = keeper_data(at)
    assert data["saved"]["steps"] == 3 == shown(at)[0]
    found = read_found(data["saved"])
    lab = restore_found(found).lab
    assert hashlib.sha256(bits(lab.weight)).hexdigest() == shown(at)[1]
    ex = _default_explorer()  # the answer key: the default example trained 3 steps afresh
    ex.run(3)
    assert bits(ex.lab.weight) == bits(lab.weight)
    assert data["text"]["kept"] == t("ko", "keeper.offline_kept", steps=3)
    assert data["max_chars"] == MAX_SAVED_CHARS


def test_no_offer_without_a_found_state(at):
    assert not [b for b in at.button if b.key == "keeper_restore"]


def test_a_found_state_is_offered_and_restored_bitwise(at):
    trained = AppTest.from_file(APP, default_timeout=60)  # another page (the one before the reload) trains 4 steps
    trained.run()
    for _ in range(4):
        trained.button(key="keeper_step").click().run()
    entry = keeper_data(trained)["saved"]
    before = shown(trained)

    at.session_state["keeper"] = {"found": entry}  # what the browser reports after the reload
    at.run()
    assert not at.exception
    (offer,) = [b for b in at.button if b.key == "keeper_restore"]
    assert offer.label == t("ko", "keeper.offer", steps=4, at=saved_at_text(entry["at"], None))
    assert shown(at)[0] == 0
    offer.click().run()
    assert not at.exception
    assert shown(at) == before  # same steps, same W bits
    assert at.info[0].value == t("ko", "keeper.restored", steps=4)
    assert not [b for b in at.button if b.key == "keeper_restore"]  # restored: nothing left to offer
    assert keeper_data(at)["saved"]["s"] == entry["s"]


def test_a_tampered_found_state_is_named_and_changes_nothing(at):
    at.button(key="keeper_step").click().run()
    before = shown(at)
    at.session_state["keeper"] = {"found": {"s": _packed({"version": 1, "lang": "ko"}), "steps": 500, "at": 0}}
    at.run()
    assert not at.exception
    assert not [b for b in at.button if b.key == "keeper_restore"]
    assert at.caption[0].value.startswith(t("ko", "keeper.unreadable", why="")[:20])
    assert shown(at) == before


@pytest.mark.parametrize("found", [None, "x", 7, ["s"], {"s": "A" * 9000}])
def test_garbage_reported_by_a_client_never_crashes_the_page(at, found):
    at.session_state["keeper"] = {"found": found}
    at.run()
    assert not at.exception
    assert not [b for b in at.button if b.key == "keeper_restore"]
    assert shown(at)[0] == 0


def test_the_size_bound_never_exceeds_the_state_it_bounds(worked):
    """`min_state_chars` skips building an entry only when the state's JSON is surely too long."""
    from core.saved import min_state_chars
    from core.state import export_state

    recipe, lab = worked
    for rows in (ROWS, [("<PAD>", 0, "pad"), ("<UNK>", 1, "unk")] + [(chr(0x4E00 + i), i + 2, "") for i in range(300)]):
        r = Recipe(Vocab.from_rows(rows), recipe.sentences, recipe.labels, CLASSES, recipe.config) if rows is not ROWS else recipe
        small = export_state(r, TEXT, "ko", Lab(r), include_weights=False)
        assert min_state_chars(r) <= len(small.decode("utf-8")), (min_state_chars(r), len(small))


def test_a_table_too_large_for_a_link_keeps_nothing_without_building_it(monkeypatch):
    rows = [("<PAD>", 0, "pad"), ("<UNK>", 1, "unk")] + [(f"t{i}", i + 2, "") for i in range(99_998)]
    recipe = Recipe(Vocab.from_rows(rows), (("t1", "t2"),), (None,), CLASSES, Config(embedding_dim=2))
    import core.saved

    monkeypatch.setattr(core.saved, "export_state", lambda *a, **k: pytest.fail("built the state"))
    assert saved_entry(recipe, "t1 t2", "ko", Lab(recipe), now_ms=NOW_MS) is None
