"""Keeps a quick Enter in the vocabulary table from dropping what was just typed into a cell.

Glide's overlay editor (the cell editor of Streamlit's data editor) schedules a zero-delay timer on
every key pressed in it; the timer commits or cancels the edit for Enter, Escape and Tab. A plain
key's timer that runs after Enter's key event, as it does on a busy machine when Enter follows the
last letter quickly, cancels the edit: the cell keeps its old text and nothing reaches the app
(glideapps/glide-data-grid#1201, open). The overlay's handler does nothing else with a plain key,
so this component with no visible output stops plain keys typed into a cell editor's text box
before they reach it; the text box still takes them (their default action is not prevented).
tests/e2e/test_vocab_cells.py sends a letter and Enter in one task, the order that loses the edit.
"""

from __future__ import annotations

import streamlit as st

JS = """const MOTION = new Set(["Enter", "Escape", "Tab"]); // the keys the overlay commits or cancels on
function plainKeyInCellEditor(event) {
  const box = event.target;
  if (!(box instanceof HTMLTextAreaElement) || !box.classList.contains("gdg-input")) return;
  if (!box.closest(".gdg-clip-region") || MOTION.has(event.key)) return;
  event.stopPropagation(); // not preventDefault: the letter is still typed
}
export default function () {
  if (window.__gridKeys) return;
  window.__gridKeys = true;
  window.addEventListener("keydown", plainKeyInCellEditor, true);
}"""

_mount = st.components.v2.component("grid_keys", html="<span hidden></span>", js=JS)


def grid_keys(key: str) -> None:
    _mount(key=key, height=0)
