"""Help on every input: each widget a learner can change carries a tooltip (``help=``), in Korean and English.

The app is walked in AppTest, view by view, in both languages, with the states that draw the
widgets which only appear later: the training view after two Steps (the timeline), the lessons in
both modes, each lesson that asks a question first (its answers and reveal switch) and C11 (its
try box), and a vocabulary of more than 2,000 tokens (the editor's window controls). Every widget element on the page (the
protos with a ``help`` field and a widget id), every popover, and every column of an editable
table (``st.data_editor``, whose header tooltips are its help) must have non-empty help.
"""

from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

from components.inputs import EDITOR_MAX_ROWS
from components.lessons import TRYING
from core.lessons import LESSON_IDS, lesson
from tests.apptest_helpers import start

VIEWS = ("lookup", "train", "lessons", "share")
ASKING = tuple(i for i in LESSON_IDS if lesson(i).predict or i in TRYING)  # lessons with widgets of their own


def _nodes(node):
    children = getattr(node, "children", None)
    if isinstance(children, dict):
        for child in children.values():
            yield from _nodes(child)
    yield node


def missing_help(at: AppTest) -> list[str]:
    """Widgets (by key or label), popovers and editor columns on the page that have no help text."""
    missing, widgets = [], 0
    for node in _nodes(at._tree):
        proto = getattr(node, "proto", None)
        if proto is None or not hasattr(proto, "DESCRIPTOR"):
            continue
        fields = proto.DESCRIPTOR.fields_by_name
        if "help" in fields and "id" in fields and proto.id:  # a widget
            widgets += 1
            if not proto.help.strip():
                missing.append(f"{node.type} {getattr(node, 'key', None) or getattr(proto, 'label', '')}")
        elif proto.DESCRIPTOR.name == "Block" and proto.WhichOneof("type") == "popover":
            widgets += 1
            if not proto.popover.help.strip():
                missing.append(f"popover {proto.popover.label}")
        elif node.type == "dataframe" and getattr(proto, "editing_mode", 0):  # st.data_editor
            for name, column in json.loads(proto.columns or "{}").items():
                if not column.get("hidden") and not str(column.get("help", "")).strip():
                    missing.append(f"data editor column {name}")
    assert widgets > 0, "no widget found: the walk no longer reaches the page's elements"
    return missing


def _walk(lang: str):
    """(what, AppTest) for each view and each state that draws more widgets."""
    at = start(lang)
    for view in VIEWS:
        at.button_group(key="section").set_value(view).run()
        if view == "train":
            at.button(key="step").click().run()
            at.button(key="step").click().run()
            assert at.select_slider(key="timeline"), "two Steps should draw the timeline"
        if view == "lessons":
            for lesson_id in ASKING:
                at.selectbox(key="lesson").set_value(lesson_id).run()
                yield f"lessons ({lesson_id})", at
            at.radio(key="mode").set_value("free").run()
            view = "lessons (free)"
        yield view, at
    at.button_group(key="section").set_value("lookup").run()
    at.text_area(key="token_list").input("\n".join(f"w{i}" for i in range(EDITOR_MAX_ROWS + 10))).run()
    at.button(key="token_list_load").click().run()
    assert at.number_input(key="vocab_start"), "a vocabulary above EDITOR_MAX_ROWS should draw the window"
    yield "lookup (large vocabulary)", at


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_every_input_has_help(lang):
    found = {}
    for what, at in _walk(lang):
        assert not at.exception, f"{what}: {at.exception}"
        gaps = missing_help(at)
        if gaps:
            found[what] = gaps
    assert not found, f"widgets without help ({lang}): {found}"


def test_the_check_finds_a_widget_without_help():
    """The walk itself can fail: a button, a data editor column and a popover with no help are reported."""

    def script():
        import pandas as pd
        import streamlit as st

        st.button("plain")
        st.text_input("with help", help="explained")
        st.data_editor(pd.DataFrame({"a": [1]}), key="ed",
                       column_config={"a": st.column_config.NumberColumn("a")})
        with st.popover("more"):
            st.write("x")

    at = AppTest.from_function(script, default_timeout=30).run()
    gaps = missing_help(at)
    assert any(g.startswith("button") for g in gaps), gaps
    assert "data editor column a" in gaps, gaps
    assert "popover more" in gaps, gaps
    assert not any("with help" in g for g in gaps), gaps
