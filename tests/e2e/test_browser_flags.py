"""The switches the browser tests' Chromium runs with (support/browser.py): Playwright's own list of
disabled features is kept whole when the tests add theirs (what the added ones save:
bench/diagnostics/context_cost.py).

Chromium reads only the last ``--disable-features`` switch, so adding one would silently drop
Playwright's (PaintHolding, HttpsUpgrades, ... each disabled there for a reason tests rely on).
"""

from __future__ import annotations

import pytest

from support.browser import UNSEEN_UI, browser_command_lines, disabled_features

from .helpers import unavailable_reason

pytestmark = pytest.mark.e2e
if unavailable_reason():
    pytest.skip(unavailable_reason(), allow_module_level=True)


def test_the_tests_chromium_keeps_playwrights_disabled_features_and_adds_its_own(browser):
    ours = [switches for switches in map(disabled_features, browser_command_lines()) if len(switches) > 1]
    assert ours, "no running Chromium was launched with a second --disable-features (support.browser.launch)"
    for switches in ours:
        *before, last = switches
        dropped = set().union(*before) - set(last)
        assert not dropped, f"Chromium reads only the last --disable-features: these would be enabled again: {sorted(dropped)}"
        assert set(UNSEEN_UI) <= set(last)

