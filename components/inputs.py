"""The learner's inputs: the vocabulary table and the sentences text area.

Each returns what the learner typed (never thrown away) and leaves validation to core; the
caller shows the problems and keeps the last valid state driving the page.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from components.i18n import problem_text, t
from core import limits
from core.problems import Problem
from session import Keys


INDEX_WIDTH = 44  # px of the row-number column (the e2e tests click cells by position)


def vocab_editor(lang: str, base: pd.DataFrame) -> pd.DataFrame:
    """The editable (token, id, role) table; rows can be added and deleted."""
    st.markdown(f"**{t(lang, 'vocab.title')}**")
    st.caption(t(lang, "vocab.help", max=limits.MAX_VOCAB))
    return st.data_editor(
        base, key=Keys.VOCAB, num_rows="dynamic", hide_index=False, width="stretch",
        height=min(420, 38 + 35 * (len(base) + 1)),
        column_config={
            "_index": st.column_config.NumberColumn("#", width=INDEX_WIDTH, help=t(lang, "vocab.col.row_help")),
            "token": st.column_config.TextColumn(t(lang, "vocab.col.token"), max_chars=limits.MAX_TOKEN_CHARS),
            "id": st.column_config.NumberColumn(t(lang, "vocab.col.id"), step=1, format="%d"),
            "role": st.column_config.SelectboxColumn(t(lang, "vocab.col.role"), options=["normal", "unk", "pad"],
                                                     default="normal", format_func=lambda r: t(lang, f"vocab.role.{r}"),
                                                     help=t(lang, "vocab.col.role_help")),
        },
    )


def sentences_area(lang: str, classes: tuple[str, ...]) -> str:
    """One sentence per line, tokens split on whitespace, optional ' | label'."""
    return st.text_area(t(lang, "sent.title"), key=Keys.SENTENCES, height=180,
                        help=t(lang, "sent.help", classes=" / ".join(classes), max=limits.MAX_SENTENCES))


def show_problems(lang: str, where: str, problems: list[Problem], limit: int = 8) -> None:
    """One error box listing what is wrong and how to fix it; the page keeps the last valid state."""
    if not problems:
        return
    lines = [f"- {problem_text(lang, p)}" for p in problems[:limit]]
    if len(problems) > limit:
        lines.append(f"- {t(lang, 'err.more', n=len(problems) - limit)}")
    # A keyed container per kind of problem ("problems_vocab_title", …): tests find it without matching text.
    st.container(key=f"problems_{where.removeprefix('err.')}").error(f"**{t(lang, where)}**\n\n" + "\n".join(lines) + f"\n\n{t(lang, 'err.kept')}", icon=":material/error:")
