"""The sample site night after night (samplesite.nights) and its change signals."""

from __future__ import annotations

import re

import numpy as np
import polars as pl
import pytest

from samplesite import generate_site, render, truth_frames
from samplesite.nights import site_on_night


@pytest.fixture(scope="module")
def site():
    return generate_site(n_games=300, n_users=600, seed=3)


def _coll(site) -> pl.DataFrame:
    return truth_frames(site)["collections"]


def test_nights_are_deterministic_and_night_one_is_the_generated_site(site):
    assert site_on_night(site, 1) is site
    again = generate_site(n_games=300, n_users=600, seed=3)
    a, b = truth_frames(site_on_night(site, 3)), truth_frames(site_on_night(again, 3))
    for name in a:
        assert a[name].equals(b[name]), name
    with pytest.raises(ValueError):
        site_on_night(site, 0)


def test_a_night_changes_about_one_percent_of_members_and_moves_their_cards_to_the_top(site):
    n1, n2 = site, site_on_night(site, 2)
    c1, c2 = _coll(n1), _coll(n2)
    key = ["user_id", "game_id"]
    changed = c2.join(c1, on=key, how="anti")["user_id"].to_list() + \
        c1.join(c2, on=key, how="anti")["user_id"].to_list()
    flips = c2.join(c1, on=key).filter(pl.col("updated_at") != pl.col("updated_at_right"))["user_id"].to_list()
    users = set(changed) | set(flips)
    old = {m.user_id for m in n1.members}
    assert 3 <= len(users & old) <= 0.03 * len(n1.members)
    assert {m.user_id for m in n2.members} - old, "new members join"
    assert [m.user_id for m in n2.members if m.private] != [m.user_id for m in n1.members if m.private]
    assert n2.gone_games and render(n2, n1.games[next(iter(n2.gone_games))].url).status == 404
    assert len(n2.catalogue_order) >= len(n1.catalogue_order)  # new games came, one left
    # every changed card is newer than any card of night 1, so it sorts first (更新順)
    newest_1 = c1["updated_at"].max()
    for u in set(flips):
        cards = c2.filter(pl.col("user_id") == u)["updated_at"].to_list()
        assert cards == sorted(cards, reverse=True) and cards[0] > newest_1


def test_directory_shows_count_update_and_privacy_and_collections_their_total(site):
    n2 = site_on_night(site, 2)
    text = render(n2, "/friends?page=1").text
    m = next(m for m in n2.members[:50] if not m.private and m.n_boardgames)
    row = re.search(rf'<li class="friends-list-item" data-updated-at="([^"]+)"><a href="/friends/{m.user_id}">', text)
    assert row and row.group(1) == str(n2.collections.updated_at[n2.collections.rows(m.index)[0]])
    private = next((p for p in n2.members[:50] if p.private), None)
    if private is not None:
        assert f'/friends/{private.user_id}">' in text and "マイボードゲーム 非公開" in text
    page = render(n2, f"{m.collection_url}?page=1").text
    assert f"全{m.n_boardgames:,}個" in page


def test_what_members_add_follows_their_taste_as_the_first_night_does(site):
    """Added games fit the member's taste far better than a popularity-only draw would.

    For every card added on nights 2-5 (changed members' additions and new members' first
    collections), its affinity (member taste · game taste, the generator's hidden signal)
    against the affinity a draw ∝ popularity among the games they did not hold would expect.
    A popularity-only night gives a difference near 0 (±0.03 on these ~120 cards)."""
    seen, expected = [], []
    before = site
    for k in range(2, 6):
        night = site_on_night(site, k)
        taste, c0, c1 = night.taste, before.collections, night.collections
        live = np.asarray(before.catalogue_order)
        pop = np.array([max(before.games[i].popularity, 0.0) for i in live])
        old = set(zip(c0.member.tolist(), c0.game.tolist()))
        for m, g in zip(c1.member.tolist(), c1.game.tolist()):
            if (m, g) not in old:
                held = set(c0.game[c0.rows(m)].tolist()) if m < len(before.members) else set()
                w = pop * np.array([i not in held for i in live.tolist()])
                seen.append(float(taste.games[g] @ taste.members[m]))
                expected.append(float(w @ (taste.games[live] @ taste.members[m]) / w.sum()))
        before = night
    assert len(seen) >= 60
    assert np.mean(seen) - np.mean(expected) > 0.1, (np.mean(seen), np.mean(expected))


def test_the_taste_grows_with_the_site(site):
    """Each night's joined members and new games get their taste rows (a new game its base game's)."""
    n1, n2 = site, site_on_night(site, 2)
    assert n2.taste.members.shape == (len(n2.members), n1.taste.members.shape[1])
    assert n2.taste.games.shape[0] == len(n2.games) == n2.taste.quality.shape[0]
    np.testing.assert_array_equal(n2.taste.members[:len(n1.members)], n1.taste.members)
    np.testing.assert_allclose(n2.taste.members.sum(axis=1), 1.0, rtol=1e-6)
    for g in n2.games[len(n1.games):]:
        base = n1.game_by_slug[g.game_id.rsplit("-n", 1)[0]]
        np.testing.assert_array_equal(n2.taste.games[g.index], n1.taste.games[base])


def test_new_cards_are_played_and_rated_by_affinity_as_the_first_nights_are(site):
    """Cards added on nights 2-8 that fit the member's taste (affinity ≥ 0.5) are played more often
    and rated higher than the others, as night 1's are (`card_statuses`); fixed shares and uniform
    ratings, as the nights drew them before, give differences near 0."""
    aff, played, rating = [], [], []
    before = site
    for k in range(2, 9):
        night = site_on_night(site, k)
        c0, c1, taste = before.collections, night.collections, night.taste
        old = set(zip(c0.member.tolist(), c0.game.tolist()))
        for row, (m, g) in enumerate(zip(c1.member.tolist(), c1.game.tolist())):
            if (m, g) not in old:
                aff.append(float(taste.games[g] @ taste.members[m]))
                played.append(bool(c1.played[row]))
                rating.append(int(c1.rating[row]))
        before = night
    a, p, r = np.array(aff), np.array(played), np.array(rating)
    high, low = a >= 0.5, a < 0.5
    assert high.sum() >= 30 and low.sum() >= 30
    assert p[high].mean() - p[low].mean() > 0.15, (p[high].mean(), p[low].mean())
    rated_high, rated_low = r[high & (r > 0)].mean(), r[low & (r > 0)].mean()
    assert rated_high - rated_low > 0.8, (rated_high, rated_low)
