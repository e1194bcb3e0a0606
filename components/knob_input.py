"""One knob's widget, derived from its spec (core.knobs): the sidebar and the training bar draw them."""

from __future__ import annotations

import streamlit as st

from components.i18n import t
from core.knobs import Knob


def knob_input(lang: str, k: Knob, on_change=None, mode_key: str | None = None, disabled: bool = False):
    """One knob's widget, keyed by the knob's name; "longest or fixed T" is a radio and a number.
    ``on_change``: the widget's callback (the training bar's knobs ask for a run of the whole page).
    ``mode_key``: the key of that radio (the caller's, session.Keys.PAD_MODE), for an optional_int knob.
    ``disabled``: greyed out, its value kept (a knob the other knobs make irrelevant, `Knob.used`)."""
    label, help_text = t(lang, k.label), t(lang, k.help, max=k.hi, min=k.lo)
    if k.kind == "choice":
        return st.selectbox(label, k.choices, key=k.name, help=help_text, on_change=on_change,
                            format_func=lambda c: t(lang, f"{k.choice_prefix}.{c}"))
    if k.kind == "optional_int":
        if mode_key is None:
            raise ValueError(f"the knob {k.name} is two widgets: give the key of its mode (mode_key)")
        mode = st.radio(t(lang, "side.pad_mode"), ["longest", "fixed"], key=mode_key, horizontal=True,
                        format_func=lambda m: t(lang, f"side.pad_mode.{m}"), help=t(lang, "side.pad_mode_help"),
                        on_change=on_change)
        fixed = st.number_input(label, key=k.name, step=float(k.step), format="%g", disabled=mode != "fixed",
                                help=help_text, on_change=on_change)
        return fixed if mode == "fixed" else None
    if k.kind == "int":  # typed as a float, so 2.5 or NaN arrive as sent and core refuses them by name
        return st.number_input(label, key=k.name, step=float(k.step), format="%g", help=help_text,
                               on_change=on_change, disabled=disabled)
    return st.number_input(label, key=k.name, step=k.step, format=k.fmt, help=help_text, on_change=on_change)
