"""The server's machinery, apart from the domain (core/): the work budget and its lanes (budget.py),
the interpreter's turn (turn.py), memory admission (admission.py), the downloads as jobs
(download_jobs.py), the upkeep thread (upkeep.py), the warm-up at start (warm.py), the hooks into
Streamlit's runtime (hooks.py) and every use of Streamlit's private API (streamlit_private.py).

core/ imports none of this: the app gives a lab its work (core/work.py) when it builds one.
"""
