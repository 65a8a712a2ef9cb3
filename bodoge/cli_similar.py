"""`bodoge similar GAME_ID`: the games the night found most like one game.

Why from the published night's `marts.similar_games` and not computed on the spot: that
list is what the night exported to the site (`similar_games.jsonl`), so an operator or an
analyst sees exactly what members see on the game's page, with names and specs.
"""

from __future__ import annotations

import argparse
from typing import Any

from bodoge.args import add_data_dir, an_id, open_warehouse, positive_int


def register_similar(sub: Any) -> None:
    p = sub.add_parser("similar", help="the games most like one game, as the night stored them")
    p.add_argument("game_id", metavar="GAME_ID", type=an_id)
    p.add_argument("-n", type=positive_int, default=10, help="how many (default 10; the night stores up to 10)")
    p.add_argument("--json", action="store_true", help="JSON instead of a table")
    add_data_dir(p)
    p.set_defaults(handler=cmd_similar)


def cmd_similar(args: argparse.Namespace) -> int:
    from bodoge.display import print_rows, similar_table
    from warehouse.db import dict_rows
    from warehouse.views import similar_games_for

    with open_warehouse(args) as con:
        rows = similar_games_for(con, args.game_id, n=args.n)
        game = dict_rows(con, "SELECT game_id, name_ja, name_en FROM marts.games WHERE game_id = ?", [args.game_id])[0]
    print_rows(rows, as_json=args.json, table=lambda: similar_table(game, rows))
    return 0
