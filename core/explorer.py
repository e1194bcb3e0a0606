"""One learner's session as a plain-Python model: the inputs, the lab, the picture and the view state.

The page reads widgets, calls this model and draws plain data, so every flow can be tested
without Streamlit. The inputs have one home: ``lab.recipe`` (vocabulary, sentences, labels,
config) plus the text the sentences were parsed from. An edit that has a problem changes
nothing: the call returns the problems, the model keeps them to show until the input is fixed,
and the last valid state keeps working.

    >>> ex = Explorer.from_preset(presets.load("chapter"))
    >>> ex.apply_config({**ex.config_values(), "embedding_dim": 9999})
    [Problem(code='dim_range', …)]              # nothing changed
    >>> ex.step(); ex.run(20)                   # [] and []
    >>> pic = ex.picture(2)                     # the newest step in this lab's one frame
    >>> pic.pad_xy                              # bitwise the same at every step (the frame rule)

The frame rule: one PCA frame per lab and per number of dimensions, fitted when first drawn and
reused for every Step, Run, Play and timeline move, until the learner asks for a refit
(`refit`) or the table is rebuilt (a new lab: new seed, E, vocabulary, sentences …). Axis ranges
only ever widen, and about the PAD point. Then the PAD row, which training never changes, projects
to the same point at every step and keeps its place on the screen when the view zooms out to take in
points that left it: what moves on screen is training, not the camera (X7).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Callable, Sequence

import numpy as np

from core.batch import parse_sentences, sentence_warnings
from core.exact import exact_int
from core.knobs import KNOB_NAMES, KNOBS
from core.cost import recipe_step_cost
from core.preview_budget import preview_steps  # noqa: F401 (re-exported)
from core.neighbours import neighbours
from core.problems import InputError, Problem
from core.preprocessing import Preprocessing
from core.predict import Answers, Guess, Verdict, answers, grade, make_guess
from core.projection import Frame, axis_ranges, fit_frame, spectrum_is_flat, thin_steps
from core.projection import finite_snapshots as _finite, widen_ranges as _widen
from core.training import Config, Lab, Recipe
from core.vocab import Vocab
from core.work import FREE, Cancelled, Work
from core.classes import token_classes  # noqa: F401 (re-exported)
from core.lab_facts import LabFacts
from core.undo import Before, kept_before

# The frame is fitted on a preview: a private copy of this lab trained PREVIEW_STEPS steps ahead
# (the same recipe trains bitwise the same way, so the learner's own steps pass through those
# states). The fresh table alone is N(0, 1) noise whose principal axes mean nothing (C9), and
# training mostly moves the rows along other directions, which such a frame would hide; the
# preview's axes are the directions training separates the tokens along, so the motion is visible
# from the first Step on. Tables above PREVIEW_MAX_FLOATS (V·E) skip the preview (its cost would
# delay the page) and fit on the fresh table: the page says so, and offers the refit.
# The preview's every kept step also sets the first axis ranges (with RANGE_MARGIN to spare), so
# the camera holds still through the first PREVIEW_STEPS steps; past them, ranges only widen.
# A page open costs bounded work: see core/preview_budget.py (`Picture.cut` names each cut).
PREVIEW_STEPS = 60
PREVIEW_MAX_FLOATS = 2_000_000
PREVIEW_FIT_STEPS = 16  # preview snapshots the fit uses (an even stride, first and last included)
RANGE_MARGIN = 0.12


@dataclass
class _FrameState:
    """One fitted frame and what was drawn in it (per lab and per number of dimensions)."""

    frame: Frame
    basis: str  # "preview": fitted on a preview run; "initial": on the fresh table; "refit": on kept steps;
    # "custom": the first axis runs between two tokens
    fitted_steps: tuple[int, ...]  # the steps (of the preview run or of the lab) the fit used
    ranges: list[tuple[float, float]]
    flat: bool  # the spectrum is no more structured than a random table's (C9)
    version: int  # names this frame in caches: a refit may mirror an axis
    points: dict[int, np.ndarray] = field(default_factory=dict)  # step → (V, k)
    tokens: tuple[int, int] | None = None  # "custom": the first axis runs from tokens[0] to tokens[1]
    cut: str | None = None  # why the preview was cut short or skipped: "short", "costly", "busy", "stopped"


@dataclass(frozen=True)
class Picture:
    """What the projection shows: every drawn step's points in one frame, with fixed axis ranges."""

    shown: int  # the step the picture shows
    steps: tuple[int, ...]  # the drawn steps (kept steps, thinned to at most MAX_DRAWN_STEPS)
    points: dict[int, np.ndarray]  # step → (V, k): all from the same frame
    ranges: tuple[tuple[float, float], ...]  # one per axis; only ever widen within a frame
    explained: tuple[float, ...]  # each axis's share of the variance it was fitted on
    pad_xy: np.ndarray  # (k,) the PAD row's point at the shown step
    basis: str  # "preview", "initial", "refit" or "custom"
    fitted_steps: tuple[int, ...]
    flat: bool
    version: int
    tokens: tuple[int, int] | None = None  # "custom": the first axis runs from tokens[0] to tokens[1]
    cut: str | None = None  # why the preview was cut short or skipped (see PREVIEW_MAX_SECONDS)

    @property
    def dims(self) -> int:
        return len(self.ranges)


NEIGHBOURS_KEPT = 8  # (step, token) answers kept per lab: the stage's and the details' of the last runs


@dataclass
class Explorer:
    """One learner's session: the lab built from the last valid inputs, the picture, the view state."""

    lab: Lab
    text: str  # the sentences text the recipe's sentences were parsed from
    preset_id: str = "chapter"
    problems: dict[str, list[Problem]] = field(default_factory=dict)  # "vocab"/"text"/"config" → now wrong
    notices: list[tuple[str, dict]] = field(default_factory=list)  # (string key, params) to show once
    selected_token: int | None = None  # followed everywhere: id cell, W row, scatter point, picker
    lesson_index: int = 0
    lesson_mode: str = "guided"
    guess: Guess | None = None  # what the learner predicted the next Step would do (core.predict)
    answered: Answers | None = None  # what the guessed step did, read right after it (core.predict)
    _frames: dict[int, _FrameState] = field(default_factory=dict)  # k → frame of this lab
    before: Before | None = None  # what the last restart replaced, while it can be put back (core/undo.py)
    _warned: tuple[str, list[Problem]] = ("", [])  # (lab uid, its warnings): computed once per lab
    _facts: tuple[str, LabFacts | None] = ("", None)  # (lab uid, its facts): by uid, never holding the lab
    _near: tuple[str, dict] = ("", {})  # (lab uid, (step, token, k, PAD edits) → neighbours)
    _versions: int = 0
    example_classes: tuple[str, ...] | None = None  # what a label names by number (core/classes.py): the loaded lab's

    def __post_init__(self) -> None:
        if self.example_classes is None:
            self.example_classes = self.lab.recipe.classes
    prep: Preprocessing = field(default_factory=Preprocessing)  # the tokenizer's state (core/preprocessing.py)
    analyzer = property(lambda self: self.prep.analyzer)  # the morpheme analyzer, if loaded (core.morphemes)

    # ---- construction ----------------------------------------------------------------------
    @classmethod
    def from_preset(cls, preset: dict, work: Work = FREE) -> "Explorer":
        """The explorer of a preset (assets.presets.load); raises InputError if its lab cannot be built."""
        vocab = Vocab.shipped(preset["vocab"])
        classes = tuple(preset["classes"])
        lines = parse_sentences(preset["sentences"], classes)
        config = Config(**preset.get("config", {}))
        return cls(Lab(Recipe.of(vocab, lines, classes, config), work), preset["sentences"], preset["id"],
                   example_classes=classes)

    @classmethod
    def from_lab(cls, lab: Lab, text: str, preset_id: str = "import") -> "Explorer":
        """An explorer around a lab that was restored elsewhere (an imported file, a share link)."""
        return cls(lab, text, preset_id)

    # ---- the inputs (one recipe) -------------------------------------------------------------
    @property
    def recipe(self) -> Recipe:
        return self.lab.recipe

    @property
    def vocab(self) -> Vocab:
        return self.lab.recipe.vocab

    @property
    def classes(self) -> tuple[str, ...]:
        return self.lab.recipe.classes

    @property
    def config(self) -> Config:
        return self.lab.recipe.config

    def config_values(self) -> dict:
        """Knob name → value of the current config (what the widgets show)."""
        return {k.name: getattr(self.config, k.name) for k in KNOBS}

    def apply_text(self, text: str) -> list[Problem]:
        """New sentences (one per line, ``tokens | label``; the labels define the classes). On a problem nothing changes."""
        try:
            lines, built = self.prep.prepare(parse_sentences(text, self.example_classes), self.config)
        except InputError as e:
            return self._refused("text", e.problems)
        recipe = Recipe.of(built or self.vocab, lines, self.example_classes, self.config)
        return self._rebuild("text", replace(recipe, pretrained=self.recipe.pretrained), text)

    def apply_vocab(self, rows: Sequence[Sequence] | Vocab, names: Sequence | None = None) -> list[Problem]:
        """A new vocabulary from (token, id, role) rows as typed, problems naming them by ``names``, or
        a `Vocab` (valid by construction: a table with no edits is its base); on a problem nothing changes."""
        try:
            vocab = rows if isinstance(rows, Vocab) else Vocab.from_rows(rows, names)
        except InputError as e:
            return self._refused("vocab", e.problems)
        return self._rebuild("vocab", replace(self.recipe, vocab=vocab), self.text)

    def apply_config(self, values: dict) -> list[Problem]:
        """New knob values (name → value; names from core.knobs). On a problem nothing changes.

        An integer knob takes only a value that is an integer exactly (3 or 3.0, not 2.5, NaN or
        1e300): anything else is refused naming the value a silent coercion would have used. A name
        that is no knob (a widget's key such as ``pad_mode``, a typo) is refused, naming the knobs.
        """
        unknown = sorted(str(name)[:40] for name in values if name not in KNOB_NAMES)
        if unknown:
            return self._refused("config", [Problem("config_unknown", {"names": ", ".join(unknown[:5]),
                                                                       "known": ", ".join(KNOB_NAMES)})])
        chosen, problems = {}, []
        for k in KNOBS:
            value = values.get(k.name, getattr(self.config, k.name))
            if k.kind in ("int", "optional_int") and value is not None:
                value = exact_int(value, k.name)
                if isinstance(value, Problem):
                    problems.append(value)
            chosen[k.name] = value
        if problems:
            return self._refused("config", problems)
        try:
            config = Config(**chosen)
        except (TypeError, ValueError):
            return self._refused("config", [Problem("config_invalid")])
        problems = config.problems()
        if problems:
            return self._refused("config", problems)
        try:  # a new tokenizer setting splits the sentences again and builds the vocabulary again
            recipe = self.prep.recipe_for(self.recipe, lambda: parse_sentences(self.text, self.example_classes), config)
        except InputError as e:
            return self._refused("config", e.problems)
        return self._rebuild("config", recipe, self.text)

    def apply_token_list(self, text: str) -> list[Problem]:
        """A whole new vocabulary from a pasted or uploaded token list (core.vocab.Vocab.from_token_list),
        the bulk path for large vocabularies. On a problem nothing changes."""
        try:
            vocab = Vocab.from_token_list(text)
        except InputError as e:
            return self._refused("vocab", e.problems)
        return self._rebuild("vocab", replace(self.recipe, vocab=vocab), self.text)

    def warnings(self) -> list[Problem]:
        """What is worth a warning but valid: look-alike tokens (same NFC form, different code points)
        in the vocabulary and in the sentences, and sentences whose tokens are mostly not in the
        learner's own vocabulary (raw text under the whitespace tokenizer: nearly every id is UNK)."""
        if self._warned[0] != self.lab.uid:
            lines = parse_sentences(self.text, self.classes)
            self._warned = (self.lab.uid, list(self.vocab.warnings) + sentence_warnings(lines, self.vocab)
                            + self._unk_warning())
        return list(self._warned[1])

    def _unk_warning(self) -> list[Problem]:
        if self.config.tokenizer != "whitespace":  # a vocabulary built from the tokens: UNK is its own choice
            return []
        index = self.vocab.index
        tokens = [tok for sentence in self.recipe.sentences for tok in sentence]
        unk = sum(tok not in index for tok in tokens)
        if len(tokens) < 4 or 2 * unk < len(tokens):
            return []
        return [Problem("mostly_unk", {"unk": unk, "total": len(tokens), "percent": round(100 * unk / len(tokens))})]

    @property
    def facts(self) -> LabFacts:
        """The lab's facts that no step changes (lookup counts, token classes), computed once per lab."""
        if self._facts[0] != self.lab.uid:
            self._facts = (self.lab.uid, LabFacts.of(self.lab))
        return self._facts[1]

    def neighbours(self, step: int, token: int, k: int = 5) -> tuple[np.ndarray, np.ndarray]:
        """The k rows nearest to ``token`` at kept step ``step`` (core.neighbours), as (ids, cos).

        Kept while the lab and its PAD edits stay the same (a kept step's snapshot changes only with
        a PAD edit, a rewind gives the lab a new uid), so the stage and the details share one answer."""
        uid, kept = self._near
        if uid != self.lab.uid:
            kept = {}
            self._near = (self.lab.uid, kept)
        key = (step, token, k, len(self.lab.pad_edits))
        if key not in kept:
            if len(kept) >= NEIGHBOURS_KEPT:
                kept.pop(next(iter(kept)))
            kept[key] = neighbours(self.lab.snapshots[step], token, k)
        return kept[key]

    def _refused(self, kind: str, problems: list[Problem]) -> list[Problem]:
        self.problems[kind] = list(problems)
        return list(problems)

    def _rebuild(self, kind: str, recipe: Recipe, text: str) -> list[Problem]:
        """Make ``recipe`` the lab (training restarts at step 0), unless it is the current one."""
        if recipe == self.recipe:
            self.text = text
            self.problems.pop(kind, None)
            return []
        try:
            lab = Lab(recipe, self.lab.work)
        except InputError as e:
            return self._refused(kind, e.problems)
        # A restart of a trained lab can be undone (core/undo.py); a restart of an untrained one
        # keeps the undo of the one before, so an edit made in two goes still goes back to the steps.
        trained = self.lab.steps > 0
        before = kept_before(self.lab, self.text, self._frames, self.selected_token) if trained else self.before
        if trained and before is None:
            self.notices.append(("notice.restarted", {}))
        self._new_lab(lab)
        self.before = before and replace(before, after=lab.uid)
        self.text = text
        self.problems.pop(kind, None)
        return []

    def undo_restart(self) -> bool:
        """Put back what the last restart replaced (`before`): the lab with every step it took, the
        sentences' text, its frames and followed token; the lab in place now is let go. False when
        nothing is kept (no restart, or a lab too large to keep)."""
        before, self.before = self.before, None
        if before is None:
            return False
        self._new_lab(before.lab)
        self.text, self._frames, self.selected_token = before.text, dict(before.frames), before.selected_token
        for kind in ("text", "vocab", "config"):  # the inputs in place now are the ones that were valid
            self.problems.pop(kind, None)
        return True

    def _new_lab(self, lab: Lab) -> None:
        self.lab, self.guess, self.answered = lab, None, None
        self._frames.clear()
        if self.selected_token is not None and not 0 <= self.selected_token < lab.recipe.vocab.size:
            self.selected_token = None

    # ---- training ----------------------------------------------------------------------------
    def step(self) -> list[Problem]:
        problems = self._train(1, lambda: self.lab.step())
        if self.guess is not None and self.guess.step == self.lab.steps:
            self.answered = answers(self.lab)  # now, while W is the W this step left
        return problems

    def run(self, n: int, on_progress: Callable[[int, int], None] | None = None) -> list[Problem]:
        return self._train(n, lambda: self.lab.run(n, on_progress=on_progress))

    def _train(self, steps: int, work: Callable[[], object]) -> list[Problem]:
        """Run ``work`` (``steps`` steps) as one job of the lab's work (core/work.py); its
        problems (refused, or stopped part-way: the steps taken are kept), or the divergence it ran
        into (the lab then stays at the last finite step, core.training)."""
        kind = "step" if steps == 1 else "run"
        try:
            with self.lab.work.job(kind, max(1, int(steps)) * recipe_step_cost(self.recipe).seconds):
                work()
        except InputError as e:
            return list(e.problems)
        return [self.lab.diverged] if self.lab.diverged is not None else []

    def back_to(self, step: int) -> list[Problem]:
        """Go back to an earlier step, bitwise (a replay); a divergence is forgotten. The frame stays."""
        try:
            self.lab.back_to(step)
        except InputError as e:
            return list(e.problems)
        for state in self._frames.values():
            state.points = {s: p for s, p in state.points.items() if s <= step}
        self.guess = self.answered = None
        return []

    def reset(self) -> None:
        """Back to step 0 of the same recipe (bitwise the same fresh table); the frame is kept."""
        frames = dict(self._frames)
        self._new_lab(Lab(self.recipe, self.lab.work))
        for state in frames.values():  # same recipe: the same fresh table and preview, so the same frame
            state.points.clear()
        self._frames = frames

    def set_pad(self, vector: Sequence[float]) -> list[Problem]:
        """Overwrite the PAD row by hand (C13). Its point moves because the row did; the frame stays."""
        try:
            self.lab.set_pad_row(list(vector))
        except InputError as e:
            return list(e.problems)
        for state in self._frames.values():
            state.points.pop(self.lab.steps, None)  # that step's snapshot changed in place
        return []

    def predict(self, rows: Sequence[int] | None = None, pad_moves: bool | None = None,
                loss_down: bool | None = None) -> None:
        """The learner's guess of what the next Step does (core.predict): the rows its gradient
        touches, whether PAD moves, whether the loss goes down. Nothing guessed: no guess."""
        self.guess, self.answered = make_guess(self.lab.steps + 1, rows, pad_moves, loss_down), None

    def verdicts(self) -> list[Verdict]:
        """Each guess about the last step, right or wrong ([] when the last step was not guessed)."""
        if self.guess is None or self.answered is None or self.answered.step != self.lab.steps:
            return []
        return grade(self.guess, self.answered)

    def select(self, token_id: object) -> None:
        """Follow ``token_id`` everywhere; anything that is not a row of W is ignored."""
        if isinstance(token_id, (int, np.integer)) and not isinstance(token_id, bool) \
                and 0 <= int(token_id) < self.vocab.size:
            self.selected_token = int(token_id)

    # ---- the picture -------------------------------------------------------------------------
    def custom_axis(self, a: int, b: int, dims: int = 2) -> Picture | list[Problem]:
        """The Embedding Projector's custom projection: the first axis runs from token ``a`` to token
        ``b`` (W[b] − W[a] at the newest step, normalized); the others keep the current frame's
        directions, made orthogonal to it. Like a refit, the learner asks for it, and it then stays
        fixed while training goes on (so PAD stays still in it too).

        >>> ex.custom_axis(vocab.index["나쁘다"], vocab.index["좋다"])   # x: 나쁘다 → 좋다
        """
        v = self.vocab.size
        if not (0 <= a < v and 0 <= b < v) or a == b:
            return [Problem("axis_tokens", {})]
        w = self.lab.snapshots[max(self.lab.snapshots)].astype(np.float64)  # (V, E)
        direction = w[b] - w[a]
        norm = float(np.linalg.norm(direction))
        if not np.isfinite(norm) or norm == 0:
            return [Problem("axis_same_vectors", {})]
        k = self._k(dims)
        base = (self._frames.get(k) or self._first_frame(k)).frame
        axes = [direction / norm]
        for row in base.axes.astype(np.float64):  # Gram-Schmidt against the axes so far
            rest = row - sum((row @ u) * u for u in axes)
            if len(axes) < k and np.linalg.norm(rest) > 1e-9:
                axes.append(rest / np.linalg.norm(rest))
        axes_arr = np.stack(axes)  # (k', E), orthonormal rows
        centred = w - base.mean
        share = np.var(centred @ axes_arr.T, axis=0) / max(float(np.var(centred, axis=0).sum()), 1e-30)
        frame = Frame(base.mean.copy(), axes_arr, share, base.spectrum)
        self._frames[k] = self._state(frame, "custom", (max(self.lab.snapshots),), [w.astype(np.float32)])
        self._frames[k].tokens = (a, b)
        return self.picture(dims)

    def refit(self, dims: int) -> Picture:
        """Fit the frame again, on the steps kept so far (the learner asked: the camera moves once)."""
        k = self._k(dims)
        drawn = thin_steps(sorted(self.lab.snapshots))
        snaps = [self.lab.snapshots[s] for s in drawn]
        self._frames[k] = self._state(fit_frame(_finite(snaps), k), "refit", tuple(drawn), snaps)
        return self.picture(dims)

    def picture(self, dims: int, shown: int | None = None) -> Picture:
        """Every drawn step (kept steps, thinned) and ``shown`` (default: the newest) in this lab's frame."""
        k = self._k(dims)
        state = self._frames.get(k) or self._first_frame(k)
        self._frames[k] = state
        lab = self.lab
        steps = sorted(lab.snapshots)
        shown = steps[-1] if shown not in lab.snapshots else shown
        drawn = sorted(set(thin_steps(steps)) | {shown})
        state.points = {s: state.points[s] if s in state.points else state.frame.transform(lab.snapshots[s])
                        for s in drawn}
        pad = self.vocab.pad_id
        state.ranges = _widen(state.ranges, axis_ranges(list(state.points.values())), state.points[drawn[-1]][pad])
        return Picture(shown, tuple(drawn), dict(state.points), tuple(state.ranges),
                       tuple(float(x) for x in state.frame.explained), state.points[shown][pad].copy(),
                       state.basis, state.fitted_steps, state.flat, state.version, state.tokens, state.cut)

    def frame(self, dims: int) -> tuple[Frame, int]:
        """The frame ``picture(dims)`` draws in, and its version (X7 draws its fixed panel in it)."""
        k = self._k(dims)
        state = self._frames.get(k) or self._first_frame(k)
        self._frames[k] = state
        return state.frame, state.version

    def _k(self, dims: int) -> int:
        return max(1, min(int(dims), self.config.embedding_dim))

    def _first_frame(self, k: int) -> _FrameState:
        lab = self.lab
        v, e = lab.weight.shape
        preview, cut = None, None
        if not lab.train_problems() and v * e <= PREVIEW_MAX_FLOATS:
            preview, cut = self._preview()
        if preview is None:
            first = lab.snapshots[min(lab.snapshots)]
            return self._state(fit_frame([first], k), "initial", (min(lab.snapshots),), [first], cut)
        steps = thin_steps(sorted(preview.snapshots), PREVIEW_FIT_STEPS)
        snaps = _finite([preview.snapshots[s] for s in steps])
        every = _finite([preview.snapshots[s] for s in sorted(preview.snapshots)])
        return self._state(fit_frame(snaps, k), "preview", tuple(steps), every, cut)

    def _preview(self) -> tuple[Lab | None, str | None]:
        """A private copy of this lab trained ahead within the page open's budget, and why it was cut
        (None: the whole PREVIEW_STEPS). No preview when it would cost too much ("costly"), when no
        lane of the server's budget is free ("busy"), or when memory is short."""
        n = preview_steps(self.recipe, PREVIEW_STEPS)
        if n == 0:
            return None, "costly"
        preview, cut = None, ("short" if n < PREVIEW_STEPS else None)
        try:
            with self.lab.work.job("preview", n * recipe_step_cost(self.recipe).seconds, wait_seconds=0):
                preview = Lab(self.recipe, self.lab.work)  # refused when the server is short of memory
                preview.run(n)
        except Cancelled:  # its session ended, or it overran: fit on the steps it took
            cut = "stopped"
        except InputError as e:  # refused, or diverged part-way (then fit on the finite steps it kept)
            if e.problems and e.problems[0].code == "server_busy":
                cut = "busy"
        if preview is None or preview.steps == 0:
            return None, cut if cut in ("busy", "stopped") else None
        return preview, cut

    def _state(self, frame: Frame, basis: str, steps: tuple[int, ...], snaps: list[np.ndarray],
               cut: str | None = None) -> _FrameState:
        self._versions += 1
        ranges = axis_ranges([frame.transform(s) for s in _finite(snaps)], margin=RANGE_MARGIN)
        flat = basis == "initial" and spectrum_is_flat(frame, self.vocab.size, seed=self.config.seed)
        return _FrameState(frame, basis, steps, ranges, flat, self._versions, cut=cut)

