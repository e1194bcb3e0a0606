"""The themes in .streamlit/config.toml reach WCAG AA contrast (4.5:1) where Streamlit draws text.

A check without a browser, for machines where the axe-core suite (tests/e2e/test_a11y.py) skips.
How Streamlit 1.67 draws, as measured there with the old colours: a caption is textColor at 60 %
opacity over the background (#202124 on white gave #797a7c); the selected view button's label is
primaryColor over 10 % primaryColor, 20 % while hovered or focused (#1a73e8 gave #e8f1fd, #d1e3fa).
"""

from __future__ import annotations

import math
import tomllib
from pathlib import Path

import pytest

CONFIG = Path(__file__).resolve().parents[1] / ".streamlit" / "config.toml"
AA = 4.5


def rgb(hex_colour: str) -> tuple[int, int, int]:
    h = hex_colour.lstrip("#")
    return int(h[0:2], 16), int(h[2:4], 16), int(h[4:6], 16)


def over(fg, bg, alpha: float) -> tuple[int, ...]:
    """``fg`` at ``alpha`` opacity over ``bg``, rounded to 8-bit channels as the browser shows it."""
    return tuple(round(alpha * f + (1 - alpha) * b) for f, b in zip(fg, bg))


def luminance(c) -> float:
    lin = [v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4 for v in (x / 255 for x in c)]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def contrast(a, b) -> float:
    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def test_the_measured_blend_model_reproduces_what_axe_reported_for_the_old_colours():
    assert over(rgb("#202124"), rgb("#ffffff"), 0.6) == rgb("#797a7c")
    assert over(rgb("#1a73e8"), rgb("#ffffff"), 0.2) == rgb("#d1e3fa")
    assert math.floor(contrast(rgb("#797a7c"), rgb("#ffffff")) * 100) / 100 == 4.29  # axe's (truncated) figure


def theme(name: str) -> dict:
    return tomllib.loads(CONFIG.read_text(encoding="utf-8"))["theme"][name]


@pytest.mark.parametrize("name", ["light", "dark"])
def test_text_captions_and_the_selected_view_reach_aa(name):
    t = theme(name)
    text, bg, bg2, primary = (rgb(t[k]) for k in ("textColor", "backgroundColor", "secondaryBackgroundColor",
                                                 "primaryColor"))
    assert contrast(text, bg) >= AA and contrast(text, bg2) >= AA
    assert contrast(over(text, bg, 0.6), bg) >= AA  # captions on the page
    assert contrast(over(text, bg2, 0.6), bg2) >= AA  # captions in the sidebar
    for tint in (0.1, 0.2):
        assert contrast(primary, over(primary, bg, tint)) >= AA  # the selected view button


def test_light_primary_buttons_have_a_readable_white_label():
    assert contrast((255, 255, 255), rgb(theme("light")["primaryColor"])) >= AA


def test_the_theme_follows_the_browser_and_the_menu_can_switch_it():
    config = tomllib.loads(CONFIG.read_text(encoding="utf-8"))
    assert "base" not in config["theme"]  # a fixed base would pin one theme
    assert {"light", "dark"} <= set(config["theme"])
    assert config["client"]["toolbarMode"] in ("viewer", "auto", "developer")  # "minimal" hides the switch
