"""Embedding Explorer: ``streamlit run app.py``. The page is composed in page.py.

This file stays this small on purpose: Streamlit's test harness (AppTest) parses and compiles the
script itself again on every run (the server caches it), and with the page's code in this file that
was ~5 ms of each scripted rerun. Imported modules are compiled once.
"""

import page

page.main()
