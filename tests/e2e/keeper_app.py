"""A tiny app around the keeper, for its tests: the real session (session.explorer), a Step button, the keeper.

It prints what the tests check against a fresh torch computation: ``steps=<n> w=<sha256 of W's
float32 bytes>``. The "step" button trains one step; ``?lang=en`` switches the language.
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import streamlit as st  # noqa: E402

import session  # noqa: E402
from sections import keeper_section  # noqa: E402
from components.i18n import t  # noqa: E402

KEEPER, STEP = "keeper", "keeper_step"  # this test app's keys (the offer's buttons: session.Keys)

ex = session.explorer()
top = st.container()  # where the offer appears: above the work, as on the app's page
lang = st.query_params.get("lang", "ko")
for key, params in ex.notices:
    st.info(t(lang, key, **params))
ex.notices.clear()
if st.button("step", key=STEP):
    ex.step()
keeper_section.offer(lang, ex, keeper_section.watch(lang, ex, key=KEEPER), where=top)  # after the work of this run, as at the end of the page
w = ex.lab.weight.detach().contiguous().numpy().tobytes()
st.code(f"steps={ex.lab.steps} w={hashlib.sha256(w).hexdigest()}", language=None)
