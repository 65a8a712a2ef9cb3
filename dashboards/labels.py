"""Human labels for the columns the dashboard's tables show.

Why a table of labels: the pages' SQL names columns for the warehouse (`n_failures`,
`share_of_wants`); a table header is read by analysts, who should see "Rows failing" and
"Share of wants". `ui.table` puts these over every column it shows; a column not listed
gets its name with spaces and a capital, never the snake_case itself.
"""

from __future__ import annotations

from core.statuses import STATUS_LABELS

LABELS: dict[str, str] = {
    # games and collections
    "game_id": "Game id", "name": "Game", "name_ja": "Name (ja)", "name_en": "Name (en)",
    "min_players": "Players from", "max_players": "Players to", "min_minutes": "Minutes from",
    "best_players": "Best with (BGG)", "recommended_players": "Recommended with (BGG)",
    "max_minutes": "Minutes to", "min_age": "Age from", "year": "Year", "mechanics": "Mechanics",
    "themes": "Themes", "implausible": "Implausible spec", "n_have": "Owners (site)", "rating": "★",
    **STATUS_LABELS,
    # recommendations and model runs
    "rank": "#", "reason": "Reason", "score": "Score", "popularity_rank": "Popularity rank",
    "run_id": "Run", "model": "Model", "k": "k", "ndcg": "NDCG@k", "precision": "Precision@k",
    "recall": "Recall@k", "map": "MAP@k", "coverage": "Coverage", "n_users": "Members", "n_games": "Games",
    "n_interactions": "Interactions", "trained_at": "Trained (UTC)", "champion": "Champion", "split": "Split",
    "long_tail_share": "Long-tail share", "intra_list_diversity": "Diversity", "notes": "Notes",
    "mean_popularity_rank": "Mean popularity rank", "rank_stability": "Rank stability",
    "selection_ndcg": "Selection NDCG", "fit_seconds": "Fit (s)",
    # did the lists come true (marts.list_outcomes)
    "served_night_id": "Served night", "served_at": "Served (UTC)", "outcome_night_id": "Scored on night",
    "served": "Members served", "members": "Members who acted", "hits": "Took one of the top 10",
    "hit_rate": "Hit rate @10", "hit_rate_low": "Hit rate, 95 % low", "hit_rate_high": "Hit rate, 95 % high",
    "popularity": "Popularity @10", "popularity_low": "Popularity, 95 % low",
    "popularity_high": "Popularity, 95 % high", "previous": "Previous champion @10",
    "previous_low": "Previous, 95 % low", "previous_high": "Previous, 95 % high",
    "previous_members": "Members the previous champion ranked",
    # cafes
    "space_slug": "Cafe id", "space_name": "Cafe", "n_members_served": "Members served",
    "n_wanted_games_offered": "Wanted games offered", "n_wants_served": "Wants served",
    "share_of_wants": "Share of all wants",
    # runs, checks and quarantine
    "status": "Status", "started_at": "Started (UTC)", "finished_at": "Finished (UTC)", "took": "Took",
    "base_url": "Site", "stats": "Crawl stats (JSON)", "job": "Job",
    "check_name": "Check", "asset": "On", "severity": "Severity", "passed": "Passed",
    "n_failures": "Rows failing", "description": "What it checks", "checked_at": "Checked (UTC)",
    "key": "Row", "detail": "Detail", "url": "Page", "http_status": "HTTP status",
    "fetched_at": "Fetched (UTC)", "body_sha256": "Body sha256",
}


def label(column: str) -> str:
    """The header shown for `column`."""
    if column in LABELS:
        return LABELS[column]
    text = column.replace("_", " ").strip()
    return text[:1].upper() + text[1:]
