"""Applying a vector file to a learner's explorer: the table rebuilt with its rows, or nothing changed.

Each call is one edit of the explorer's recipe through its own rebuild path (`Explorer._rebuild`:
equal recipes keep the lab; a refused lab keeps the old one), under the input kind
``"pretrained"``, whose problems the inputs box shows until the next attempt. A file that is
refused, or whose table cannot be built (too large, short of memory), changes nothing: the
learner keeps the vocabulary, sentences, table and steps they had. Reading a file is a job of the
lab's `Work` (core/work.py), estimated by core/cost.py: in the app the server's budget admits it
(a lane, the memory) or refuses it, and it stops between chunks of lines when its session ends.

    >>> apply_file(ex, [("cc.ko.300.vec", data)], freeze=True)      # [] and two notices, or problems
    >>> ex.notices[-1]
    ('pretrained.applied', {'found': 4, 'missing': 2, 'rows': 10000, 'v': 6, 'name': 'cc.ko.300.vec'})
    >>> set_freeze(ex, False); remove(ex)
"""

from __future__ import annotations

from dataclasses import replace
from typing import Sequence

from core.cost import vector_file_cost
from core.pretrained import match
from core.problems import InputError, Problem
from core.vector_file import read_vectors

KIND = "pretrained"  # the explorer's problems key for this input
MISSING_SHOWN = 12  # the tokens without a vector that the notice names; the rest are counted


def apply_file(ex, files: Sequence[tuple[str, bytes]], freeze: bool) -> list[Problem]:
    """Parse ``files`` (core/vector_file.py) and make the vocabulary's found tokens take their vectors;
    E becomes the file's dimension (a notice says so when it changes). On a problem nothing changes."""
    seconds, nbytes = vector_file_cost(sum(len(data) for _, data in files))
    work = ex.lab.work  # the server's budget in the app: a lane and the memory, or refused; cancellable
    try:
        with work.job(KIND, seconds, nbytes):
            f = read_vectors(files, ex.vocab.index, work.checkpoint)
            m = match(f, ex.vocab, freeze)
    except InputError as e:  # a refused file, or the job refused (server_busy, job_memory) or stopped (Cancelled)
        ex.problems[KIND] = list(e.problems)
        return list(e.problems)
    old_e = ex.config.embedding_dim
    recipe = replace(ex.recipe, config=replace(ex.config, embedding_dim=f.dim), pretrained=m.pretrained)
    problems = ex._rebuild(KIND, recipe, ex.text)
    if problems:
        return problems
    ex.notices.append(("pretrained.applied", {"found": m.found, "missing": m.missing, "rows": m.file_rows,
                                              "v": ex.vocab.size, "name": str(files[0][0])[:80]}))
    missed = missing_tokens(ex.vocab, m.pretrained.tokens)
    if missed:
        shown = missed[:MISSING_SHOWN]
        ex.notices.append(("pretrained.missing_more" if len(missed) > len(shown) else "pretrained.missing",
                           {"n": len(missed), "tokens": " · ".join(shown), "more": len(missed) - len(shown)}))
    if f.dim != old_e:
        ex.notices.append(("pretrained.dim_changed", {"old": old_e, "e": f.dim}))
    return []


def missing_tokens(vocab, found: Sequence[str]) -> list[str]:
    """The vocabulary's tokens that took no vector from the file, in id order (as many as the
    notice's count of rows not in the file): what a learner checks first when a token is written
    otherwise in the file (a particle attached, another case)."""
    taken = set(found)
    return [tok for tok in vocab.tokens if tok not in taken]


def set_freeze(ex, freeze: bool) -> list[Problem]:
    """Freeze (True) or fine-tune (False) the file's rows: a new lab, trained from step 0."""
    p = ex.recipe.pretrained
    if p is None or p.freeze == bool(freeze):
        return []
    return ex._rebuild(KIND, replace(ex.recipe, pretrained=p.frozen(freeze)), ex.text)


def remove(ex) -> list[Problem]:
    """Back to the fresh seeded table (E stays): the file's rows are forgotten."""
    if ex.recipe.pretrained is None:
        return []
    return ex._rebuild(KIND, replace(ex.recipe, pretrained=None), ex.text)


def found_counts(ex) -> tuple[int, int] | None:
    """(rows from the file, rows as in a fresh table) of the current vocabulary, or None without a file."""
    p = ex.recipe.pretrained
    if p is None:
        return None
    found = int(p.found(ex.vocab).sum())
    return found, ex.vocab.size - found
