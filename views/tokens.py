"""The missing step of the lookup view, as data (no streamlit): each raw sentence with the span of
text each token came from (the stage draws raw text → tokens → ids), and each tokenizer's <UNK>
rate side by side (core/tokenize.py).

    >>> raw_rows(ex, shown=0)[0]        # 영화가 정말 좋았다, tokenizer=morpheme: 영화 가 정말 좋 었 다
    {'text': '영화가 정말 좋았다', 'spans': [[0, 2], [2, 3], [4, 6], [7, 8], [8, 9], [9, 10]]}
"""

from __future__ import annotations

from core import tokenize
from core.batch import parse_sentences
from core.explorer import Explorer


RAW_ROWS = 64  # sentences whose raw text the stage is sent: the first ones, and the one shown


def bodies(ex: Explorer) -> list[str]:
    """The learner's sentences as the tokenizers read them, in the lab's order."""
    return [tokenize.body(l) for l in parse_sentences(ex.text, ex.classes)]


def raw_rows(ex: Explorer, shown: int, limit: int = RAW_ROWS) -> list[dict | None]:
    """Each sentence's raw text and, per token of the lab's split, the [start, end) it came from
    (components/stage/README.md, ``raw``): for the first ``limit`` sentences and sentence ``shown``,
    None for the others (a large batch is split again only where the stage shows it). ``spans`` is
    None when the text no longer splits into the lab's tokens (the analyzer not loaded yet for a
    restored lab): the stage then shows the text without marks."""
    sentences = ex.recipe.sentences
    wanted = set(range(min(limit, len(sentences)))) | ({shown} if 0 <= shown < len(sentences) else set())
    if ex.config.tokenizer == "whitespace":  # the words, as the lab has them: no need to read the text again
        texts = [" ".join(s) for s in sentences]
        split = lambda text: tokenize.split(text, "whitespace")  # noqa: E731
    else:
        texts = bodies(ex)
        split = lambda text: ex.prep.spans(text, ex.config, texts)  # noqa: E731
    rows: list[dict | None] = []
    for b, tokens in enumerate(sentences):
        if b not in wanted or b >= len(texts):
            rows.append(None)
            continue
        spans = split(texts[b])
        same = tuple(tok for tok, _, _ in spans) == tokens
        rows.append({"text": texts[b], "spans": [[s, e] for _, s, e in spans] if same else None})
    return rows


def split_for(ex: Explorer):
    """The lab's tokenizer as a function of one sentence's text (core.try_sentence), None for whitespace."""
    if ex.config.tokenizer == "whitespace":
        return None
    texts = bodies(ex)
    return lambda text: [tok for tok, _, _ in ex.prep.spans(text, ex.config, texts)]


def rates(ex: Explorer, tried: str, analyzer) -> list[tokenize.Rate]:
    """Each tokenizer's <UNK> count on the learner's sentences and on ``tried``, with this lab's
    vocabulary knobs; whitespace uses the learner's own table."""
    lines = parse_sentences(ex.text, ex.classes)
    table = ex.prep.own_table(ex.vocab, ex.config.tokenizer)
    return tokenize.rates(lines, tokenize.Settings.of(ex.config), table, analyzer, tried)


def lesson_source(ex: Explorer, analyzer):
    """What X8 reads beside the lab (core.lessons.tokens.Source): the sentences as typed, the
    learner's own table, the vocabulary knobs, the analyzer."""
    from core.lessons.tokens import Source

    return Source(parse_sentences(ex.text, ex.classes), ex.prep.own_table(ex.vocab, ex.config.tokenizer),
                  tokenize.Settings.of(ex.config), analyzer)
