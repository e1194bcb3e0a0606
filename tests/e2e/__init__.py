"""Real-browser end-to-end tests: Playwright (sync API) drives Debian's Chromium against a live `streamlit run`.

Run with ``python -m pytest tests/e2e -q``. Every test is marked ``e2e``; the modules skip, saying
why, when /usr/bin/chromium or the playwright package is missing. Screenshots land in
``artifacts/screenshots/`` (gitignored), the server's log in ``artifacts/e2e-streamlit.log``.
"""
