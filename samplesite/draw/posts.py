"""Posts: rule write-ups and reviews, their authors, dates, counters and sections.

Why: posts link games to members (an author's other posts on the profile) and carry the
age labels and text sections the post parser reads.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import numpy as np

from samplesite import vocab
from samplesite.draw.common import THREE_YEARS_S, streams, unique_ids
from samplesite.draw.games import GameSpec, Specs
from samplesite.draw.members import Members


@dataclass(slots=True)
class PostSpec:
    """One post before assembly: indices into games and members, age in seconds, sections."""

    post_id: int
    kind: str
    game: int
    author: int
    secs: int
    views: int
    nice: int
    title_suffix: str
    sections: tuple[tuple[str, str], ...]


def _rule_sections(r: random.Random, g: GameSpec) -> tuple[tuple[str, str], ...]:
    intro = g.overview.split("。")
    summary = "。".join(intro[:2]) + "。"
    setup = "".join(r.sample(vocab.SETUP_SENTENCES, 3))
    if g.players is not None and g.players[0] != g.players[1]:
        setup += f"このゲームは{g.players[0]}人から{g.players[1]}人まで遊べます。"
    play = "".join(vocab.MECHANICS[vocab.MECHANIC_INDEX[m]].sentences[0] for m in g.mechanics) \
        or "手番では1つのアクションを選んで実行します。"
    return (("概要", summary), ("セットアップ", setup), ("ゲームプレイ", play),
            ("スコアリング", r.choice(vocab.ENDING_SENTENCES)))


def _review(r: random.Random, g: GameSpec) -> tuple[str, tuple[tuple[str, str], ...]]:
    mech = vocab.MECHANICS[vocab.MECHANIC_INDEX[g.mechanics[0]]].label if g.mechanics else "駆け引き"
    theme = vocab.THEMES[vocab.THEME_INDEX[g.themes[0]]].label if g.themes else "ボードゲーム"
    players = f"{g.players[0]}人" if g.players else "少人数"
    title = r.choice(vocab.REVIEW_TITLES).format(mech=mech, theme=theme, players=players)
    body = g.overview.split("。")[0] + "。"
    sections = (
        ("概要", body),
        ("良かった点", "".join(r.sample(vocab.REVIEW_GOOD, 2)) + f"特に{mech}の部分が印象に残りました。"),
        ("気になった点", r.choice(vocab.REVIEW_BAD)),
        ("まとめ", f"{theme}や{mech}が好きな人にはぜひ遊んでほしい作品です。"),
    )
    return title, sections


def post_specs(specs: Specs, members: Members, ss: np.random.SeedSequence) -> list[PostSpec]:
    """Rule posts for ~30% and reviews for ~15% of the games; members with larger collections write more."""
    rng, r = streams(ss)
    n_users = len(members.user_ids)
    weights = (members.sizes + 1.0) ** 0.7
    weights /= weights.sum()
    drafts: list[tuple[str, int]] = []
    for g in specs.games:
        if r.random() < 0.30:
            drafts.extend(("rule", g.index) for _ in range(r.choices((1, 2, 3), (0.8, 0.15, 0.05))[0]))
        if r.random() < 0.15:
            drafts.extend(("review", g.index) for _ in range(r.choices((1, 2), (0.85, 0.15))[0]))
    n = len(drafts)
    ids = rng.permutation(unique_ids(rng, n, 10000, 90000)) if n else np.zeros(0, np.int64)
    authors = rng.choice(n_users, size=n, p=weights) if n else np.zeros(0, np.int64)
    secs = (rng.random(n) ** 1.3 * (THREE_YEARS_S - 7200) + 3600).astype(np.int64)
    views = np.round(rng.lognormal(4.0, 1.0, size=n)).astype(np.int64)
    nice = rng.poisson(2.0, size=n)
    out: list[PostSpec] = []
    for k, (kind, gi) in enumerate(drafts):
        g = specs.games[gi]
        a = int(authors[k])
        if kind == "rule":
            suffix, sections = f"{members.names[a]}さんのルール/インスト", _rule_sections(r, g)
        else:
            suffix, sections = _review(r, g)
        out.append(PostSpec(int(ids[k]), kind, gi, a, int(secs[k]), int(views[k]), int(nice[k]),
                             suffix, sections))
    return out

