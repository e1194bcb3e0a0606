"""Embedding Explorer: ``streamlit run app.py``. The page is composed in page.py.

This one file is both the page and the server. Streamlit runs it as each session's script, under
the name ``__main__``: that draws the page. ``streamlit run app.py`` first finds ``app`` below by
reading this file, imports it as the module ``app`` and serves it (Streamlit's ``st.App``), whose
start warms the server in the background (server/warm.py) and whose health check says "warming up" until
then. The page's code stays out of this file on purpose: Streamlit's test harness (AppTest)
compiles the script itself again on every run (the server caches it); imported modules are
compiled once.
"""

if __name__ == "__main__":
    import page

    page.main()
else:
    from starlette.middleware import Middleware
    import streamlit as st

    from server import warm

    app = st.App("app.py", lifespan=warm.lifespan, middleware=[Middleware(warm.WarmingHealth)])
