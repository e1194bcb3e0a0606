"""The missing step of the lookup view, as data (no streamlit): one raw sentence → its tokens → their ids,
and each tokenizer's <UNK> rate side by side (core/tokenize.py).

    >>> strip = token_strip(ex, b=0)
    >>> strip.pieces, strip.tokens, strip.ids        # 영화가 정말 좋았다, tokenizer=morpheme
    (('영화', '가', '정말', '좋', '았', '다'), ('영화', '가', '정말', '좋', '었', '다'), (2, 5, 6, 7, 3, 4))
"""

from __future__ import annotations

from dataclasses import dataclass

from core import tokenize
from core.batch import parse_sentences
from core.explorer import Explorer


@dataclass(frozen=True)
class Strip:
    """Sentence ``b`` as the lab's tokenizer split it: for each token, the raw text it came from, the
    token, its id, whether it is <UNK>, whether a fixed T cut it off; ``marked``: the selected token's
    position (its first occurrence in the sentence), or None."""

    b: int
    text: str  # the sentence, labels and extra spaces removed
    pieces: tuple[str, ...]  # text[start:end] of each token
    tokens: tuple[str, ...]
    ids: tuple[int, ...]
    unknown: tuple[bool, ...]
    cut: tuple[bool, ...]
    marked: int | None


def bodies(ex: Explorer) -> list[str]:
    """The learner's sentences as the tokenizers read them, in the lab's order."""
    return [tokenize.body(l) for l in parse_sentences(ex.text, ex.classes)]


def token_strip(ex: Explorer, b: int) -> Strip:
    """Sentence ``b``: raw text → tokens → ids, under the lab's tokenizer, the selected token marked."""
    b = min(max(0, b), len(ex.recipe.sentences) - 1)
    if ex.config.tokenizer == "whitespace":  # the words, as the lab has them: no need to read the text again
        text = " ".join(ex.recipe.sentences[b])
        spans = tokenize.split(text, "whitespace")
    else:
        texts = bodies(ex)
        text = texts[b]
        spans = ex.prep.spans(text, ex.config, texts)
    tokens = tuple(tok for tok, _, _ in spans)
    if tokens != ex.recipe.sentences[b]:  # the analyzer not loaded yet (a restored lab): the lab's own tokens
        spans = [(tok, 0, 0) for tok in ex.recipe.sentences[b]]
        tokens = ex.recipe.sentences[b]
    vocab = ex.vocab
    ids = tuple(vocab.encode(tokens))
    T = ex.lab.batch.ids.shape[1]
    marked = next((i for i, k in enumerate(ids) if k == ex.selected_token), None)
    return Strip(b, text, tuple(text[s:e] for _, s, e in spans), tokens, ids,
                 tuple(k == vocab.unk_id for k in ids), tuple(i >= T for i in range(len(ids))), marked)


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
