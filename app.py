"""Embedding Explorer: ``streamlit run app.py``. The page is composed in page.py.

This file stays this small on purpose: Streamlit's test harness (AppTest) parses and compiles the
script itself again on every run (the server caches it), so the page's code here would be compiled
again for each scripted rerun (bench/RESULTS.md). Imported modules are compiled once.
"""

import page

page.main()
