"""This session's state, by job. The only package that touches ``st.session_state``.

- session/keys.py: every key, named once (`Keys`: the widgets' keys, a public interface that AppTest
  scripts and the docs use; `Private`: the explorer's key and `Own`'s).
- session/own.py: `Own`, the one typed object of everything else a session keeps between runs.
- session/state.py: reading and writing a value (`get`, `set_value`, `forget`, `ensure`, `memo`).
- session/workspace.py: this session's explorer and the vocabulary editor's base.
- session/address.py: the address (URL state): opening what it asks for, writing what the page shows.
- session/selection.py: the followed token, picked anywhere.
- session/keeper.py: the keeper's session token.
- session/kept.py: what the learner chose in a widget drawn only while its popover is open, and a
  click made in a run that handed over to the next.
- session/editor.py: the vocabulary editor's pending edit and window.

Everything is re-exported here (``import session; session.Keys``, ``session.get``). `explorer` is
each run's way in: it applies what earlier runs queued and what the address asks for.
"""

from __future__ import annotations

from contextlib import nullcontext

from assets import presets
from core.explorer import Explorer
from server.budget import BUDGET
from session.address import Busy, follow_address, history_navigation, write_address
from session.editor import edit_pending, find_in_editor, refuse_edit
from session.kept import keep, kept, show_kept
from session.keeper import answer_keeper, keeper_answered, keeper_opened, keeper_token
from session.keys import TRANSLATED_CHOICES, Keys, Private
from session.own import Own, own
from session.selection import (select_cell_from_stage, select_token_from_cell, select_token_from_chart, select_token_from_picker,
                               select_token_from_stage, sentence_shown, sync_token_picker)
from session.state import (ensure, forget, get, has, keep_choices_across_language, memo, play_asked, play_taken, pop,
                           presentation_switched, set_value, update)
from session.workspace import (EditorBase, config_widgets, editor_base, install, load_chosen_preset, load_preset,
                               queue_state, rebase_editor, set_widgets, show_knobs, undo_restart, vocab_frame)
from session import workspace

__all__ = ("Busy", "EditorBase", "Keys", "Private", "TRANSLATED_CHOICES", "answer_keeper", "config_widgets",
           "edit_pending", "editor_base", "ensure", "explorer", "find_in_editor", "follow_address", "forget",
           "get", "has", "history_navigation", "install", "keep", "keep_choices_across_language",
           "keeper_answered", "keeper_opened", "keeper_token", "kept", "load_chosen_preset", "load_preset", "Own", "own",
           "memo", "play_asked", "play_taken", "pop", "presentation_switched", "queue_state", "rebase_editor", "refuse_edit",
           "select_cell_from_stage", "select_token_from_cell", "select_token_from_chart", "select_token_from_picker",
           "select_token_from_stage", "sentence_shown", "set_value", "set_widgets", "show_kept", "show_knobs",
           "sync_token_picker", "undo_restart", "update", "vocab_frame", "write_address")


def explorer(busy: Busy = lambda key: nullcontext(), langs: tuple[str, ...] = ("ko", "en")) -> Explorer:
    """This session's explorer: what the address asks for on the first run (a share link ``?s=…``, an
    example, knobs; see `follow_address`), else the default preset.

    A state queued by an import (`queue_state`) or a preset asked for by the Load button is applied
    here, before any widget is drawn. ``busy`` shows what is being done while it takes time.
    """
    kept = own()
    pending, kept.pending = kept.pending, None
    if pending is not None:
        install(workspace.from_state(*pending))
    preset, kept.pending_preset = kept.pending_preset, None
    if preset is not None:
        with busy("urlstate.loading_preset"):
            workspace.replace_with_preset(preset)
    first = workspace.current() is None
    if first:
        ex = Explorer.from_preset(presets.load(presets.DEFAULT), BUDGET)
        install(ex)
        set_widgets(ex)
    if first or history_navigation():
        follow_address(busy, langs)
    return workspace.current()
