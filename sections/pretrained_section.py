"""The pretrained-vectors box in the inputs box: the explorer's loaded rows shown, the session's callbacks wired."""

from __future__ import annotations

from components.pretrained import Loaded, PretrainedKeys, pretrained_box
from core import pretrained_apply
from core.explorer import Explorer
from session import Keys
from session import pretrained as callbacks

KEYS = PretrainedKeys(file=Keys.PRETRAINED_FILE, apply=Keys.PRETRAINED_APPLY, freeze=Keys.PRETRAINED_FREEZE,
                      remove=Keys.PRETRAINED_REMOVE)


def render(lang: str, ex: Explorer) -> None:
    callbacks.show_freeze(ex)  # before the toggle is drawn
    p = ex.recipe.pretrained
    loaded = Loaded(pretrained_apply.found_counts(ex), ex.config.embedding_dim, p.freeze if p is not None else True)
    pretrained_box(lang, loaded, bool(ex.problems.get(pretrained_apply.KIND)), KEYS,
                   on_apply=callbacks.apply_upload, on_freeze=callbacks.freeze_changed, on_remove=callbacks.remove)
