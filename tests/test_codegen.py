"""core.codegen: the exported script, run by a fresh Python, prints bitwise the app's W.

The answer key is `core.training.replay` in this process; the script is an independent
plain-PyTorch reimplementation, so agreement bit for bit checks the draw order, the pooling,
the optimizer, the batch cycling and the PAD edits all at once.
"""

from __future__ import annotations

import ast
import re
import json
import subprocess
import sys

import pytest
import torch

from core.batch import parse_sentences
from core.codegen import script_for
from core.problems import InputError
from core.training import Config, Recipe, replay
from core.vocab import Vocab

ROWS = [("<PAD>", 0, "pad"), ("영화", 1, ""), ("<UNK>", 2, "unk"), ("좋다", 3, ""), ("나쁘다", 4, ""),
        ("재미있다", 5, ""), ("it's\\\"q\"", 6, ""), ("{x}", 7, "")]
TEXT = "영화 정말 좋다 | 긍정\n영화 나쁘다 | 부정\n재미있다 it's\\\"q\" {x} 영화 | 긍정\n나쁘다 | 부정\n모르는 말 | 0"
CLASSES = ("부정", "긍정", "중립 'x'")
EDITS = [(2, (0.5, -1.25, 2.0, 0.1)), (0, (1.0, 0.0, -1.0, 3.0)), (99, (9.0, 9.0, 9.0, 9.0))]  # 99: never reached

CASES = {
    "masked_mean": dict(pooling="masked_mean", optimizer="momentum", batch_size=2, weight_decay=0.01, fixed_len=3),
    "packed_lstm": dict(pooling="packed_lstm", optimizer="adamw", batch_size=1, weight_decay=0.1, seed=11),
    "lstm": dict(pooling="lstm", optimizer="adam", lr=0.03, weight_decay=0.001),
    "mean": dict(pooling="mean", optimizer="sgd", lr=0.5, seed=2**31 - 1),
}
LANG = {"masked_mean": "ko", "packed_lstm": "en", "lstm": "ko", "mean": "en"}  # comments differ, numbers must not


def make_recipe(**config) -> Recipe:
    lines = parse_sentences(TEXT, CLASSES)
    cfg = Config(**{"embedding_dim": 4, "seed": 5, **config})
    return Recipe.of(Vocab.from_rows(ROWS), lines, CLASSES, cfg)


def start_script(code: str, path) -> subprocess.Popen:
    """Write the script and start a fresh Python on it (all scripts run at once: one torch import each)."""
    path.write_text(code, encoding="utf-8")
    return subprocess.Popen([sys.executable, str(path)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, cwd=path.parent)


def finish(proc: subprocess.Popen) -> dict:
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err[-3000:]
    return json.loads(out.splitlines()[-1])  # the script's last line: JSON


@pytest.fixture(scope="module")
def printed(tmp_path_factory) -> dict[str, dict]:
    """What each generated script printed: every pooling case (5 steps) and step 0."""
    d = tmp_path_factory.mktemp("scripts")
    procs = {case: start_script(script_for(make_recipe(**cfg), 5, EDITS, lang=LANG[case]), d / f"{case}.py")
             for case, cfg in CASES.items()}
    procs["step0"] = start_script(script_for(make_recipe(), 0, lang="ko"), d / "step0.py")
    return {case: finish(p) for case, p in procs.items()}


def bits(t: torch.Tensor) -> torch.Tensor:
    return t.detach().to(torch.float32).contiguous().view(torch.int32)


@pytest.mark.parametrize("case", list(CASES))
def test_script_reproduces_replay_bitwise(case, printed):
    lab = replay(make_recipe(**CASES[case]), 5, EDITS)
    printed = printed[case]
    assert printed["ids"] == lab.batch.ids.tolist()
    assert printed["lengths"] == lab.batch.lengths.tolist()
    assert printed["losses"] == lab.losses  # Python floats from float32: exact equality
    w = torch.tensor(printed["W"], dtype=torch.float32)  # (V, E)
    assert torch.equal(bits(w), bits(lab.weight))
    assert w[0].tolist() != [0.0] * 4  # the PAD row (id 0) was set by hand, then kept


def test_script_at_step_zero_is_the_seeded_table(printed):
    assert printed["step0"]["losses"] == []
    assert torch.equal(bits(torch.tensor(printed["step0"]["W"])), bits(replay(make_recipe(), 0).weight))


def test_script_imports_only_json_and_torch():
    tree = ast.parse(script_for(make_recipe(pooling="packed_lstm"), 3, EDITS))
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            imported.add(node.module)
    assert imported == {"json", "torch"}


def test_learner_text_stays_data_not_code():
    code = script_for(make_recipe(), 1)
    tree = ast.parse(code)
    literals = {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)}
    assert {"it's\\\"q\"", "{x}", "중립 'x'"} <= literals


def test_unlabelled_sentences_cannot_be_trained():
    lines = parse_sentences("영화 좋다\n나쁘다 | 0", CLASSES)
    recipe = Recipe.of(Vocab.from_rows(ROWS), lines, CLASSES, Config())
    assert "LABELS = [None, 0]" in script_for(recipe, 0)
    with pytest.raises(InputError) as info:
        script_for(recipe, 1)
    assert info.value.problems[0].code == "labels_missing"


def test_manual_seed_then_nn_embedding_draws_the_apps_table():
    """The chapter's two lines draw, from the global generator, what the app draws from its own."""
    from torch import nn

    from core.model import ToyClassifier

    for V, E, pad, seed, pooling in [(6, 3, 1, 0, "masked_mean"), (50, 17, 7, 2**31 - 1, "lstm"),
                                     (300, 64, 0, 123, "packed_lstm")]:
        app = ToyClassifier(V, E, 3, pad, seed, pooling)
        torch.manual_seed(seed)
        emb = nn.Embedding(V, E, padding_idx=pad)
        torch.manual_seed(seed + 1)
        lstm = nn.LSTM(E, E, batch_first=True) if app.lstm is not None else None
        head = nn.Linear(E, 3)
        assert torch.equal(bits(emb.weight), bits(app.embedding.weight))
        assert torch.equal(bits(head.weight), bits(app.head.weight))
        assert torch.equal(bits(head.bias), bits(app.head.bias))
        if lstm is not None:
            assert all(torch.equal(bits(a), bits(b)) for a, b in zip(lstm.parameters(), app.lstm.parameters()))


def test_script_builds_the_model_with_the_chapters_lines():
    code = script_for(make_recipe(pooling="lstm"), 1)
    assert "torch.manual_seed(SEED)" in code
    assert "self.embedding = nn.Embedding(V, E, padding_idx=PAD)" in code
    assert "Generator(" not in code


def comment_text(code: str) -> str:
    """Every comment and docstring of a script (the learner's data is in string literals, not here)."""
    import io
    import tokenize

    parts = []
    for tok in tokenize.generate_tokens(io.StringIO(code).readline):
        if tok.type == tokenize.COMMENT or (tok.type == tokenize.STRING and tok.string.startswith('"""')):
            parts.append(tok.string)
    return "\n".join(parts)


@pytest.mark.parametrize("pooling", ["masked_mean", "mean", "lstm", "packed_lstm"])
def test_comments_are_in_the_pages_language(pooling):
    recipe = make_recipe(pooling=pooling, optimizer="adamw")
    ko, en = comment_text(script_for(recipe, 2, lang="ko")), comment_text(script_for(recipe, 2, lang="en"))
    assert not re.search(r"[가-힣]", en), en
    worded = [c for c in ko.splitlines() if c.startswith("#") and re.search(r"[A-Za-z]{3,} [A-Za-z]{3,}", c)]
    assert all(re.search(r"[가-힣]", c) for c in worded), worded  # every comment with English words is Korean
    assert "임베딩 행렬 W" in ko and "PAD 행의 기울기는 정확히 0이다" in ko
    assert "the embedding matrix W" in en
