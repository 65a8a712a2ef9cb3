"""Members' rows of given sizes, for the split tests (in this process and in another one)."""

import polars as pl


def frame(sizes: dict[str, int]) -> pl.DataFrame:
    rows = [(user, f"g{index:03d}") for user, size in sizes.items() for index in range(size)]
    return pl.DataFrame(rows, schema=["user_id", "game_id"], orient="row")


SIZES = {"a": 10, "b": 5, "c": 1, "d": 2, "e": 20}
