"""How much of the axes' preview a page open may compute.

A page open costs bounded work: the preview (core/explorer.py) may spend PREVIEW_MAX_SECONDS of
estimated CPU (the cost model, core/cost.py); a costlier training previews fewer steps, at least
PREVIEW_MIN_STEPS, else none (the frame is fitted on the fresh table). It takes a lane of the
server's budget without waiting (server/budget.py): with every lane busy the page fits on the fresh
table at once. The picture names each of these cuts and the page says so.
"""

from __future__ import annotations

from core.cost import recipe_step_cost

PREVIEW_MAX_SECONDS = 1.5
PREVIEW_MIN_STEPS = 5


def preview_steps(recipe, full: int = 60) -> int:
    """How many steps the preview of a `core.training.Recipe` trains ahead: ``full``, fewer when they
    would cost more than PREVIEW_MAX_SECONDS, 0 when not even PREVIEW_MIN_STEPS fit."""
    n = min(full, int(PREVIEW_MAX_SECONDS // max(recipe_step_cost(recipe).seconds, 1e-9)))
    return n if n >= PREVIEW_MIN_STEPS else 0
