"""Save · share: export the state as JSON, import it in another session, open a share link.

The link format is core.share_link's: ``?s=`` + base64url(zlib(JSON)) (`to_query_params`).
"""

from __future__ import annotations

import base64
import json
import urllib.parse

import numpy as np
import pytest

from core.state_schema import SCHEMA_VERSION

from .helpers import (alerts, assert_healthy, export_button, import_state, label, lookup_tables,
                      run_steps, section, set_sentences, stage, stage_ids, step_once, unavailable_reason, wait_js,
                      wait_stage, wait_step)

_reason = unavailable_reason()
if _reason:
    pytest.skip(_reason, allow_module_level=True)

pytestmark = pytest.mark.e2e

CHAPTER_TEXT = "영화 정말 좋다 | 긍정\n영화 나쁘다 | 부정"
CHAPTER_IDS = [[2, 0, 3], [2, 4, 1]]


def open_share(page, lang: str) -> None:
    """Go to the share view and wait for its export button."""
    section(page, lang, "share")
    export_button(page, lang).wait_for()


def w_matrix(page, lang: str = "ko") -> np.ndarray:
    """W as the lookup view's table holds it (every float32 digit); switches to the lookup view."""
    section(page, lang, "lookup")
    w = lookup_tables(page, lang)["w"]
    return np.stack([w[i] for i in sorted(w)])


def train(page, lang: str, n: int) -> None:
    """Step once, then Run n − 1 steps: n steps in all."""
    section(page, lang, "train")
    step_once(page, 1)
    if n > 1:
        run_steps(page, lang, n - 1, start=1)


def wait_info(page, text: str) -> None:
    wait_js(page, "(s) => texts('stAlertContentInfo').some(x => x.includes(s))", text)


def test_export_then_import_restores_the_same_weights(new_page, tmp_path):
    a = new_page("ko-KR")
    train(a, "ko", 12)
    open_share(a, "ko")
    with a.expect_download() as download:
        export_button(a, "ko").click()
    path = tmp_path / "state.json"
    download.value.save_as(str(path))
    state = json.loads(path.read_text(encoding="utf-8"))
    assert state["version"] == SCHEMA_VERSION and state["steps"] == 12 and state["lang"] == "ko"
    assert [row[:2] for row in state["vocab"]] == [["<UNK>", 0], ["<PAD>", 1], ["영화", 2], ["좋다", 3], ["나쁘다", 4],
                                                   ["재미있다", 5]]
    assert state["sentences"] == CHAPTER_TEXT
    assert state["weights"]["shape"] == [6, 3]
    w_file = np.frombuffer(base64.b64decode(state["weights"]["data"]), "<f4").reshape(6, 3)
    np.testing.assert_array_equal(w_matrix(a), w_file)  # the file holds what A's screen shows
    assert not w_file[1].any()

    # Learner B: a file that is not a state is refused and changes nothing.
    b = new_page("ko-KR")
    w_b = w_matrix(b)
    open_share(b, "ko")
    bad = tmp_path / "bad.json"
    bad.write_text('{"version": 2}', encoding="utf-8")
    import_state(b, bad)
    wait_js(b, "(t) => texts('stAlertContentError').some(x => x.includes(t))", label("ko", "err.import_title"))
    np.testing.assert_array_equal(w_matrix(b), w_b)

    # ... and A's file restores A's state bit for bit, replayed to the same step.
    open_share(b, "ko")
    import_state(b, path)
    wait_info(b, label("ko", "share.imported", steps=12))
    np.testing.assert_array_equal(w_matrix(b), w_file)
    section(b, "ko", "train")
    wait_step(b, 12)
    assert_healthy(a)
    assert_healthy(b)


def test_the_share_link_on_the_page_opens_the_same_state(new_page, app_url):
    a = new_page("ko-KR")
    set_sentences(a, "영화 좋다 | 긍정\n나쁘다 영화 | 부정\n재미있다 | 긍정")
    wait_stage(a, "s => s.ids.length === 3")
    matrix = stage_ids(a)
    train(a, "ko", 5)
    open_share(a, "ko")
    code = a.locator("[data-testid='stCode']", has_text="?s=")
    code.first.wait_for()
    link = code.first.inner_text().strip()
    parts = urllib.parse.urlsplit(link)
    assert f"{parts.scheme}://{parts.netloc}" == app_url, f"the link does not point at this app: {link}"
    s = urllib.parse.parse_qs(parts.query)["s"][0]

    b = new_page("ko-KR", url=f"{app_url}/?{urllib.parse.urlencode({'s': s})}")
    wait_info(b, label("ko", "share.loaded_from_link"))
    assert stage_ids(b) == matrix == [[2, 3], [4, 2], [5, 1]]
    assert b.locator(".st-key-sentences textarea").input_value() == "영화 좋다 | 긍정\n나쁘다 영화 | 부정\n재미있다 | 긍정"
    np.testing.assert_array_equal(w_matrix(b), w_matrix(a))  # replayed to the same weights
    section(b, "ko", "train")
    wait_step(b, 5)
    assert_healthy(a)
    assert_healthy(b)


def test_a_link_in_the_documented_format_opens_in_its_language(new_page, app_url):
    from core.share_link import to_query_params
    from core.state import parse_state

    state = {"version": 1, "lang": "en",
             "vocab": [["<UNK>", 0, "unk"], ["<PAD>", 1, "pad"], ["영화", 2, ""], ["좋다", 3, ""], ["나쁘다", 4, ""],
                       ["재미있다", 5, ""]],
             "classes": ["부정", "긍정"], "sentences": "좋다 영화 | 긍정\n나쁘다 | 부정",
             "config": {"embedding_dim": 3, "seed": 0, "pooling": "masked_mean", "optimizer": "adam", "lr": 0.1,
                        "weight_decay": 0.0, "batch_size": 0, "fixed_len": None},
             "steps": 3}
    query = urllib.parse.urlencode(to_query_params(parse_state(json.dumps(state))))
    page = new_page("ko-KR", url=f"{app_url}/?{query}")  # a Korean browser; the link says English
    wait_info(page, label("en", "share.loaded_from_link"))
    assert page.locator("[data-testid='stSidebar'] h1").first.inner_text() == label("en", "app.title")
    assert stage(page)["lang"] == "en"
    assert stage_ids(page) == [[3, 2], [4, 1]]
    section(page, "en", "train")
    wait_step(page, 3)
    assert_healthy(page)


def test_a_damaged_link_shows_the_default_example_and_says_why(new_page, app_url):
    page = new_page("ko-KR", url=f"{app_url}/?s=eNq-this-is-not-a-state")
    wait_js(page, "(t) => texts('stAlertContentError').some(x => x.includes(t))", label("ko", "err.link_title"))
    assert stage_ids(page) == CHAPTER_IDS
    assert label("ko", "share.loaded_from_link") not in " ".join(alerts(page, "Info"))
    assert_healthy(page)
