"""Folds the sidebar when presentation mode is switched on, so the stage gets the whole screen.

``st.set_page_config(initial_sidebar_state="collapsed")`` folds it only while this browser has no
choice of its own saved: once the learner has opened or closed the sidebar by hand, Streamlit keeps
that choice in localStorage and applies it over the page's config. So a custom component with no
visible output presses the sidebar's own fold button, as the teacher would, once each time the
mode is switched on (``switched_on`` counts the times), and once when a page opens presenting; the
sidebar's » button opens it again.
"""

from __future__ import annotations

import streamlit as st

JS = """const SEEN = new WeakMap(); // mount point -> the count it last acted on
export default function ({ data, parentElement }) {
  const n = data && Number.isInteger(data.switched_on) ? data.switched_on : 0;
  const seen = SEEN.get(parentElement);
  SEEN.set(parentElement, n);
  if (seen === undefined && !(data && data.fold_on_open)) return; // mounted while not presenting
  if (seen !== undefined && n <= seen) return; // a rerun that switched nothing on
  const sidebar = document.querySelector('[data-testid="stSidebar"]');
  const fold = document.querySelector('[data-testid="stSidebarCollapseButton"] button');
  if (sidebar && sidebar.getAttribute("data-collapsed") === "false" && fold) fold.click();
}"""

_mount = st.components.v2.component("sidebar_fold", html="<span hidden></span>", js=JS)


def sidebar_fold(switched_on: int, key: str, fold_on_open: bool = False) -> None:
    """Fold the sidebar each time ``switched_on`` grows, and when the page opens (the component is
    mounted) with ``fold_on_open``: presentation mode already on (an address with ``present=1``)."""
    _mount(key=key, data={"switched_on": int(switched_on), "fold_on_open": bool(fold_on_open)}, height=0)
