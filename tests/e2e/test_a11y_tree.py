"""What a screen reader is given (issue 37, #9), read from Chromium's full accessibility tree (CDP
``Accessibility.getFullAXTree``, shadow roots included) on the lookup view, the training view after
a Step with its timeline and details open, and the lessons view, in Korean and in English:

- no icon's ligature name is read: every text node drawn in a Material Symbols font (Streamlit's
  expander chevrons ``keyboard_arrow_right``, a button's ``:material/tour:``, an expander's
  ``edit_note``, …), found in the page by its computed font, is absent from the tree, and no name
  contains such a word (the snake-case ones, which no sentence of the app has);
- no name says the same words twice ("X X": the timeline slider was named by its own aria-label and
  its label);
- every image (an ``img``, an ``svg`` or ``role="img"`` left in the tree) has a name;
- no name or description holds a backtick (Markdown's code marks read aloud: "`W`에서").

axe-core's rules (tests/e2e/test_a11y.py) read the DOM; these read what the browser makes of it.
"""

from __future__ import annotations

import re

import pytest

from .helpers import LOCALES, VIEWPORT, open_app, open_expander, section, step_once, unavailable_reason, wait_idle, wait_js

_reason = unavailable_reason()
if _reason:
    pytest.skip(_reason, allow_module_level=True)

pytestmark = pytest.mark.e2e

IMAGE_ROLES = {"img", "image", "graphics-document", "graphics-symbol"}
TEXT_ROLES = {"StaticText", "InlineTextBox"}  # a piece of a name, not a name

# Every text node drawn in an icon font, through shadow roots (an array of nodes, not values: the
# test asks the browser for each one's id in the accessibility tree).
ICON_TEXTS_JS = """() => {
  const out = [];
  const walk = (root) => {
    for (const e of root.querySelectorAll('*')) {
      if (e.shadowRoot) walk(e.shadowRoot);
      if (!/Material (Symbols|Icons)/i.test(getComputedStyle(e).fontFamily)) continue;
      for (const n of e.childNodes) if (n.nodeType === 3 && n.nodeValue.trim()) out.push(n);
    }
  };
  walk(document);
  return out;
}"""


def icon_texts(cdp) -> dict[int, str]:
    """backendNodeId → ligature of every text node the page draws in a Material icon font."""
    found = cdp.send("Runtime.evaluate", {"expression": f"({ICON_TEXTS_JS})()"})["result"]
    try:
        props = cdp.send("Runtime.getProperties", {"objectId": found["objectId"], "ownProperties": True})["result"]
        nodes = [cdp.send("DOM.describeNode", {"objectId": p["value"]["objectId"]})["node"]
                 for p in props if p["name"].isdigit()]
    finally:
        cdp.send("Runtime.releaseObject", {"objectId": found["objectId"]})
    return {n["backendNodeId"]: n["nodeValue"].strip() for n in nodes}


def element(cdp, backend_id: int | None) -> str:
    """A short name for the DOM element behind a tree node: tag, class and its parent's (for a message)."""
    try:
        obj = cdp.send("DOM.resolveNode", {"backendNodeId": backend_id})["object"]
        said = cdp.send("Runtime.callFunctionOn", {"objectId": obj["objectId"], "returnByValue": True, "functionDeclaration":
                        "function () { const d = (e) => e ? e.nodeName.toLowerCase() + (e.id ? '#' + e.id : '') + "
                        "(e.getAttribute && e.getAttribute('class') ? '.' + e.getAttribute('class').split(' ')[0] : '') : '';"
                        " return d(this.parentElement) + ' > ' + d(this); }"})["result"]["value"]
        cdp.send("Runtime.releaseObject", {"objectId": obj["objectId"]})
        return said
    except Exception as e:  # a node gone since the tree was read
        return f"node {backend_id} ({e})"


def doubled(name: str) -> bool:
    """``name`` is one text said twice, with a space between ("X X")."""
    half = len(name) // 2
    return len(name) > 2 and len(name) % 2 == 1 and name[half] == " " and name[:half] == name[half + 1:]


def problems(cdp) -> tuple[dict, set[str]]:
    """What the tree gives a screen reader that it should not, by kind; and the icon ligatures found."""
    icons = icon_texts(cdp)
    snake = sorted({w for w in icons.values() if "_" in w})
    found = {"ligature read": [], "doubled name": [], "image without a name": [], "backtick": []}
    for n in cdp.send("Accessibility.getFullAXTree")["nodes"]:
        if n.get("ignored"):
            continue
        role = (n.get("role") or {}).get("value")
        name = ((n.get("name") or {}).get("value") or "").strip()
        said = name + " " + ((n.get("description") or {}).get("value") or "")
        if n.get("backendDOMNodeId") in icons:
            found["ligature read"].append(f"{role}: {icons[n['backendDOMNodeId']]}")
        elif any(re.search(rf"(?<!\w){w}(?!\w)", said) for w in snake):
            found["ligature read"].append(f"{role}: {name[:80]}")
        if role in TEXT_ROLES:
            continue
        if doubled(name):
            found["doubled name"].append(f"{role}: {name}")
        if role in IMAGE_ROLES and not name:
            found["image without a name"].append(f"{role}: {element(cdp, n.get('backendDOMNodeId'))}")
        if "`" in said:
            found["backtick"].append(f"{role}: {said[:80]}")
    return {k: v for k, v in found.items() if v}, set(icons.values())


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_the_accessibility_tree_reads_no_ligature_no_doubled_name_no_nameless_image_no_backtick(browser, app_url, lang):
    ctx = browser.new_context(locale=LOCALES[lang], viewport=dict(VIEWPORT))
    ctx.set_default_timeout(30_000)
    try:
        page = ctx.new_page()
        open_app(page, app_url)
        cdp = ctx.new_cdp_session(page)
        seen, failed = set(), {}
        for view in ("lookup", "train", "lessons"):
            section(page, lang, view)
            if view == "train":  # a Step: the timeline has two steps to scrub, the details have numbers
                step_once(page, 1)
                wait_js(page, "() => document.querySelector('.st-key-timeline input[type=range]') !== null")
                open_expander(page, "details")
            if view == "lessons":
                wait_js(page, "() => document.querySelector('.st-key-lessons .js-plotly-plot .main-svg') !== null")
            wait_idle(page)
            found, icons = problems(cdp)
            seen |= icons
            if found:
                failed[view] = found
        # The icons were found at all (else the first check would pass on nothing): expanders' chevrons.
        assert "keyboard_arrow_right" in seen, sorted(seen)
        assert not failed, "\n".join(f"{view} / {lang}, {kind}: {len(found)}: {found[:8]}"
                                      for view, kinds in failed.items() for kind, found in kinds.items())
    finally:
        ctx.close()
