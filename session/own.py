"""What one session owns beside its widgets and its explorer: one typed object under one key.

Widgets need string keys (session/keys.py, a public interface); everything else a session keeps
between runs — requests queued for the next run, what was last applied, the keeper's answers,
the Play clock — is a field here, so a reader finds it all, with its type, in one place.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from typing import Any

import streamlit as st

from session.keys import Private


@dataclass
class Own:
    editor: Any = None  # the vocabulary editor's base table (session.workspace.EditorBase)
    editors_label: str | None = None  # the inputs box's label last drawn, and the default it was drawn with (page.editors)
    editors_default: bool = False
    built: dict[str, tuple] = field(default_factory=dict)  # name → (inputs, figure): see session.state.memo
    pending: tuple | None = None  # an imported (state, restored, notice), applied at the top of the next run
    pending_preset: str | None = None  # the preset the Load button asked for: loaded at the top of the next run
    from_link: str | None = None  # the ?s= value this session's explorer was opened from (it stays in the address)
    cell_seen: list | None = None  # the id-matrix selection last applied
    stage_cell_seen: dict | None = None  # the stage's id-matrix cell last applied
    stage_selected_seen: Any = None  # the stage's selected token last applied
    keeper_token: str = field(default_factory=lambda: secrets.token_urlsafe(12))  # the browser keeps work under it
    keeper_opened: str | None = None  # the kept form of the state this session opened with (nothing new to keep)
    keeper_answered: int = -1  # the number of the browser's last report the learner answered
    kept: dict[str, Any] = field(default_factory=dict)  # widget key → value chosen in a widget drawn only while open
    clicked: str | None = None  # the training bar's click ("step", "run", "reset"), for the stage part's run it starts
    playing: bool = False  # Play is on (Play's click sets it, Pause's clears it: session.play_taken)
    play_asked: bool | None = None  # Play's or Pause's click (Play on or off), until a run of the view or the page
    play_clock: tuple | None = None  # (when the last Play tick ran, the fraction of a step it still owes)
    full_run: bool = False  # a callback inside a fragment asked for a run of the whole page
    timeline_follows: bool = False  # the last run drew the timeline under its key (its value is then the browser's)
    present_switched_on: int = 0  # how many times presentation mode was switched on (the sidebar folds each time)
    guide_reopen: int = 0  # how many times the guide was asked for again (it opens when this changes)
    guide_seen: int | None = None  # the guide's step whose view the page last showed
    undo_offered: bool = False  # the last run of the page offered to undo a restart (page.py)
    knobs_drawn: set[str] = field(default_factory=set)  # the knob widgets this run of the page drew (session.show_knobs)
    knobs_drawn_last: frozenset[str] = frozenset()  # … and those the run before drew

    def take_full_run(self) -> bool:
        """Whether a run of the whole page was asked for, asked once."""
        asked, self.full_run = self.full_run, False
        return asked

    def take_play(self) -> bool | None:
        """Play's or Pause's kept click, taken once."""
        on, self.play_asked = self.play_asked, None
        return on

    def take_click(self) -> str | None:
        """The training bar's kept click, taken once."""
        click, self.clicked = self.clicked, None
        return click


def own() -> Own:
    """This session's `Own`, made on its first run."""
    return st.session_state.setdefault(Private.OWN, Own())
