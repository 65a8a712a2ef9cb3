"""The site signals an incremental night leans on: measured on every page read, remembered per site.

Why: the fast night skips what the site's own signals show unchanged, and several of
those signals are our reconstruction of the real site (see docs/crawl.md, "What the crawl
assumes about the site"). A signal the site does not show, or shows with another
meaning, would make the fast way silently wrong. So every night counts, on the pages it
reads anyway, how often each signal was shown (`seen`), missing where it should be
(`missing`), confirmed by a page that can check it (`agree`) or contradicted
(`contradict`), and uses the fast way only for a signal that the newest night which
could judge it confirmed, and that nothing has contradicted tonight. Otherwise it uses
the fallback, slower but exact. A contradiction seen mid-night makes the spider re-read
what it skipped on that signal's word earlier in the night (`scrapers.spiders.checks`).

Memory: `raw.crawl_signals`, one row per (run, signal) and site (`base_url`). The state
a night starts from is the newest decisive state among earlier runs of the same site:
`confirmed`, `contradicted` or `absent` (a night that could not judge a signal,
`unmeasured` or only `unconfirmed`, leaves the earlier verdict standing). Validators are
the one exception: shown is enough (the server answers 304 itself, and a 200 with the
same validator but another body contradicts them), so `unconfirmed` counts for them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

#: signal -> (fast strategy, fallback strategy). Order is the order reports print.
STRATEGIES: dict[str, tuple[str, str]] = {
    "directory_counts": ("expect-directory-count", "ignore-directory-count"),
    "directory_updates": ("skip-unchanged", "read-page-1"),
    "private_marker": ("trust-marker", "read-page-1"),
    "sort_order": ("stop-at-first-known", "read-whole"),
    "listing_totals": ("listing-total", "directory-count-else-whole"),
    "validators": ("conditional-get", "body-sha256"),
}
SIGNALS: tuple[str, ...] = tuple(STRATEGIES)
#: What a full crawl does for every signal: it reads everything, and measures.
FULL_READ = "full-read"
#: States that settle what the next night does (see the module docstring).
DECISIVE = ("confirmed", "contradicted", "absent")
#: Signals trusted while only shown (never checked).
TRUSTED_WHEN_SHOWN = ("validators",)


@dataclass(slots=True)
class Tally:
    """Tonight's evidence about one signal."""

    seen: int = 0
    missing: int = 0
    agree: int = 0
    contradict: int = 0
    example: str | None = None

    @property
    def state(self) -> str:
        """contradicted > confirmed > unconfirmed (shown, never checked) > absent > unmeasured."""
        if self.contradict:
            return "contradicted"
        if self.agree:
            return "confirmed"
        if self.seen:
            return "unconfirmed"
        return "absent" if self.missing else "unmeasured"


@dataclass(slots=True)
class SignalBook:
    """Tonight's tallies and the verdicts earlier nights left, for one site.

    `incremental` False (a full crawl) measures but uses no signal: every strategy is
    `full-read`.
    """

    remembered: dict[str, str]
    incremental: bool
    tallies: dict[str, Tally] = field(default_factory=lambda: {name: Tally() for name in SIGNALS})
    lost: list[str] = field(default_factory=list)  # signals whose trust was lost mid-night

    @classmethod
    def load(cls, con: Any, *, base_url: str, run_id: str | None, incremental: bool) -> "SignalBook":
        """The verdicts of earlier runs of `base_url` (newest decisive state per signal)."""
        rows = con.execute(
            "SELECT s.signal, s.state FROM raw.crawl_signals s JOIN raw.crawl_runs r USING (run_id) "
            "WHERE s.base_url = ? AND s.run_id IS DISTINCT FROM ? ORDER BY r.started_at DESC, s.finished_at DESC",
            [base_url, run_id]).fetchall()
        remembered: dict[str, str] = {}
        for signal, state in rows:
            decisive = state in DECISIVE or (state == "unconfirmed" and signal in TRUSTED_WHEN_SHOWN)
            if signal in STRATEGIES and decisive:
                remembered.setdefault(signal, state)
        return cls({name: remembered.get(name, "unmeasured") for name in SIGNALS}, incremental)

    def trusted(self, name: str) -> bool:
        """Whether tonight may use the fast way for `name`."""
        before = self.remembered[name]
        ok = before == "confirmed" or (before == "unconfirmed" and name in TRUSTED_WHEN_SHOWN)
        return self.incremental and ok and not self.tallies[name].contradict

    def note(self, name: str, what: str, example: str | None = None) -> bool:
        """Count one observation (`seen`, `missing`, `agree`, `contradict`).

        Returns True when this observation just took away tonight's trust in `name`
        (its first contradiction while trusted): the caller falls back at once.
        """
        tally = self.tallies[name]
        was_trusted = self.trusted(name)
        setattr(tally, what, getattr(tally, what) + 1)
        if example and what == "contradict" and not (tally.example or "").startswith("contradicted"):
            tally.example = f"contradicted: {example}"
        elif example and what == "missing" and tally.example is None:
            tally.example = f"missing: {example}"
        if was_trusted and not self.trusted(name):
            self.lost.append(name)
            return True
        return False

    def strategy(self, name: str) -> str:
        """The strategy tonight used for `name` (a signal lost mid-night counts as fallen back)."""
        if not self.incremental:
            return FULL_READ
        fast, fallback = STRATEGIES[name]
        if name == "listing_totals" and not self.trusted(name) and not self.trusted("directory_counts"):
            return "read-whole"
        return fast if self.trusted(name) else fallback

    def rows(self) -> list[dict[str, Any]]:
        """One row per signal for `raw.crawl_signals` (run, site and time are the writer's)."""
        return [{"signal": name, "state": t.state, "strategy": self.strategy(name),
                 "remembered": self.remembered[name], "seen": t.seen, "missing": t.missing,
                 "agree": t.agree, "contradict": t.contradict, "example": t.example}
                for name, t in self.tallies.items()]

    def stats(self) -> dict[str, str]:
        """`bodoge/strategy/<signal>` → strategy, for the run's stats (summary, dashboard)."""
        return {f"bodoge/strategy/{name}": self.strategy(name) for name in SIGNALS}

    def line(self) -> str:
        """One line: each signal's state tonight and the strategy it got."""
        return "signals: " + ", ".join(
            f"{name} {t.state} → {self.strategy(name)}" for name, t in self.tallies.items())


def strategy_line(stats: dict[str, Any]) -> str | None:
    """The strategies a run's stats name (`bodoge/strategy/…`), as one line; None before this existed."""
    named = {k.removeprefix("bodoge/strategy/"): v for k, v in stats.items() if k.startswith("bodoge/strategy/")}
    if not named:
        return None
    return "strategies: " + ", ".join(f"{name} {named[name]}" for name in SIGNALS if name in named)
