"""Bringing back the training an edit restarted.

A new vocabulary, new sentences or a new knob make a new lab at step 0 (core/explorer.py): the
steps the old lab took belong to the old inputs. One slip of the keyboard should not cost a learner
an evening's training, so the explorer keeps what the restart replaced, the lab with its steps, the
sentences' text, its PCA frames and the followed token, as one `Before`, and can put it back
until the next restart replaces it (training the new inputs meanwhile does not: the undo then lets
go of those steps too).

Only a small lab is kept: the old lab stays in memory beside the new one (the server's admission
still counts it, through the lab's ticket), so a lab above `KEPT_MAX_BYTES`, such as the 100,000-row
example's, is let go and only the restart is said.

    >>> ex.apply_text("재미있다 영화 | 긍정")      # the lab had 37 steps: a new lab at step 0
    >>> ex.before.steps
    37
    >>> ex.undo_restart()                          # the 37 steps and the old sentences, bitwise
    True
"""

from __future__ import annotations

from dataclasses import dataclass

from core.training import Lab

KEPT_MAX_BYTES = 16 << 20  # a lab that holds more is not kept for an undo


@dataclass(frozen=True)
class Before:
    """What a restart replaced: the lab as it stood, the text its sentences were parsed from, its
    PCA frames (k → frame state) and the followed token."""

    lab: Lab
    text: str
    frames: dict
    selected_token: int | None
    after: str = ""  # the uid of the lab that replaced it

    @property
    def steps(self) -> int:
        return self.lab.steps

    def offered_for(self, lab: Lab) -> bool:
        """Whether the page offers the undo beside ``lab``: the lab the restart made, still untrained
        (a Reset or a rewind makes another lab, and a Step trains it)."""
        return lab.uid == self.after and lab.steps == 0


def kept_before(lab: Lab, text: str, frames: dict, selected_token: int | None) -> Before | None:
    """What to keep of a lab a restart replaces: all of it if it took steps and is small, else nothing."""
    if lab.steps == 0 or lab.held_bytes() > KEPT_MAX_BYTES:
        return None
    return Before(lab, text, dict(frames), selected_token)
