"""The night's crawl options (`--full`, `--max-pages`, `--max-age-days`) and their checks.

Why one place: the CLI reads them as flags, passes them to the worker as environment
variables (BODOGE_CRAWL_FULL, BODOGE_CRAWL_MAX_PAGES, BODOGE_CRAWL_MAX_AGE_DAYS), and the
ingest asset reads them back from its resource as text; all three must accept and refuse
the same values with the same one line.
"""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_MAX_AGE_DAYS = 7.0
MAX_AGE_RANGE = (1.0, 365.0)


class CrawlOptionError(ValueError):
    """A crawl option with a bad value: its message is the operator's one line."""


@dataclass(frozen=True, slots=True, kw_only=True)
class CrawlOptions:
    """Full or incremental, the page budget (None: no budget), the max page age in days."""

    full: bool = False
    max_pages: int | None = None
    max_age_days: float = DEFAULT_MAX_AGE_DAYS

    def __post_init__(self) -> None:
        if self.max_pages is not None and self.max_pages < 1:
            raise CrawlOptionError(f"--max-pages must be at least 1, not {self.max_pages}")
        lo, hi = MAX_AGE_RANGE
        if not lo <= self.max_age_days <= hi:
            raise CrawlOptionError(f"--max-age-days must be from {lo:g} to {hi:g} days, not {self.max_age_days:g}")

    @classmethod
    def from_text(cls, *, full: str = "", max_pages: str = "", max_age_days: str = "") -> "CrawlOptions":
        """Options from their environment-variable text ("" = the default)."""
        flag = full.strip().lower()
        if flag not in ("", "0", "1", "false", "true"):
            raise CrawlOptionError(f"BODOGE_CRAWL_FULL must be 0 or 1, not {full!r}")
        return cls(full=flag in ("1", "true"), max_pages=_number(max_pages, int, "--max-pages"),
                   max_age_days=_number(max_age_days, float, "--max-age-days") or DEFAULT_MAX_AGE_DAYS)

    def as_env(self) -> dict[str, str]:
        """The environment variables that carry these options to the worker."""
        return {"BODOGE_CRAWL_FULL": "1" if self.full else "0",
                "BODOGE_CRAWL_MAX_PAGES": str(self.max_pages or ""),
                "BODOGE_CRAWL_MAX_AGE_DAYS": f"{self.max_age_days:g}"}


def _number(text: str, kind: type, name: str):  # noqa: ANN202 - int or float, by `kind`
    text = (text or "").strip()
    if not text:
        return None
    try:
        return kind(text)
    except ValueError:
        raise CrawlOptionError(f"{name} must be a number, not {text!r}") from None


def max_age_days(text: str) -> float:
    """An argparse type for --max-age-days (argparse turns the error into one line)."""
    import argparse

    try:
        return CrawlOptions(max_age_days=float(text)).max_age_days
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc) if isinstance(exc, CrawlOptionError)
                                         else f"not a number of days: {text!r}") from None
