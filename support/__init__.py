"""The support kit the tests (tests/, tests/e2e/) and the benchmarks (bench/) share; never imported by the app.

- `support.labs`: the chapter's example and lab builders (from rows and text, or from a preset).
- `support.torch_reference`: the answer key, a hand-written torch training loop with its own init.
- `support.server`: ``streamlit run`` on a free loopback port, waited for through its health check.
- `support.browser`: Debian's Chromium for Playwright (its path, its flags, why it cannot run here).
- `support.stage_sample`, `support.stage_contract`: sample data for the stage and the checks of its data contract.
"""
