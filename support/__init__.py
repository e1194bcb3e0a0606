"""The support kit the tests (tests/, tests/e2e/) and the benchmarks (bench/) share; never imported by the app.

- `support.labs`: the chapter's example and lab builders (from rows and text, or from a preset).
- `support.torch_reference`: the answer key, a hand-written torch training loop with its own init.
- `support.server`: ``streamlit run`` on a free loopback port, waited for through its health check.
- `support.browser`: Debian's Chromium for Playwright (its path, its flags, why it cannot run here).
- `support.apptest`: reading the page under AppTest by public API (a custom component's data by its key),
  for tests and for scripts written from docs/scripting.md.
- `support.stage_sample`, `support.stage_contract`: sample data for the stage and the checks of its data contract.
"""
