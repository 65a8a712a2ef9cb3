"""`bodoge site serve|truth`: the bundled sample site on night K, or that night's truth.

Why the demo's note: `bodoge demo` serves its site on a free port for one night and
leaves DATA_DIR/sample-site.json. Without it, `bodoge site serve --night 2` served the
2,000-game, 5,000-member site of its own defaults, and a `bodoge run` against that crawled
a different site over the demo's warehouse. Now a flag wins, then the demo's note in
--data-dir (env BODOGE_DATA_DIR, default ./data), then the demo's own defaults, so the
two commands describe one site unless told otherwise.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from bodoge.args import port_number, positive_int, setting_flag

DEFAULT_PORT = 8765


class _Variants:
    """`samplesite.variants.VARIANTS` for argparse's choices, loaded when argparse first checks
    or lists them: importing the sample site loads NumPy (~0.1 s), and every `bodoge` command
    builds this parser."""

    def __iter__(self) -> Any:
        from samplesite.variants import VARIANTS

        return iter(VARIANTS)

    def __contains__(self, name: object) -> bool:
        return name in list(self)


def register_site(sub: Any) -> None:
    p = sub.add_parser("site", help="the bundled sample site: serve it, or write its ground truth")
    site_sub = p.add_subparsers(dest="site_command", required=True, metavar="ACTION")
    for name, helptext in (("serve", "serve the sample site on 127.0.0.1"), ("truth", "write its ground truth")):
        sp = site_sub.add_parser(name, help=helptext)
        sp.add_argument("--games", type=positive_int,
                        help="games on night 1 (default: what `bodoge demo` served in --data-dir, else 1000)")
        sp.add_argument("--users", type=positive_int,
                        help="members on night 1 (default: the demo's, else 2000)")
        sp.add_argument("--seed", type=int, help="the generator's seed (default: the demo's, else 0)")
        sp.add_argument("--no-faults", action="store_true", help="no planted broken pages or transient errors")
        sp.add_argument("--night", type=positive_int, default=1,
                        help="the site as it stands on night K (default 1; each night ~1%% of members change)")
        setting_flag(sp, "data_dir", help="where `bodoge demo` left its note of the site "
                     "(env BODOGE_DATA_DIR, default ./data)")
        if name == "serve":
            sp.add_argument("--port", type=port_number,
                            help=f"default: the port the demo served on, else {DEFAULT_PORT}")
            sp.add_argument("--variant", action="append", default=[], choices=_Variants(), metavar="VARIANT",
                            help="draw the site without one signal the real site may not show "
                                 "(repeatable): %(choices)s")
            sp.set_defaults(handler=cmd_site_serve)
        else:
            sp.add_argument("--out", required=True, help="folder for the Parquet files")
            sp.set_defaults(handler=cmd_site_truth)


def site_params(args: argparse.Namespace) -> dict[str, Any]:
    """games, users, seed, faults, port and `origin` (where they came from): flags, then
    the demo's note in the data directory, then the demo's defaults."""
    from core.config import resolve_paths
    from bodoge.demo import DEMO_SITE, SITE_FILE, recorded_site

    data_dir = resolve_paths(data_dir=args.data_dir).data_dir
    note = recorded_site(data_dir)
    base = dict(DEMO_SITE, port=DEFAULT_PORT)
    origin = "the demo's defaults"
    if note is not None:
        bad = [k for k in ("games", "users", "seed", "port") if k in note and not isinstance(note[k], int)]
        if bad:
            raise ValueError(f"{data_dir / SITE_FILE}: {', '.join(bad)} not a whole number; remove the file "
                             "or pass --games/--users/--seed")
        base.update({k: note[k] for k in ("games", "users", "seed", "faults", "port") if k in note})
        origin = f"the site `bodoge demo` served in {data_dir}"
    given = {k: v for k in ("games", "users", "seed", "port") if (v := getattr(args, k, None)) is not None}
    if given.keys() & {"games", "users", "seed"}:
        origin = f"the flags over {origin}"
    params = dict(base, **given)
    if args.no_faults:
        params["faults"] = False
    return dict(params, origin=origin)


def cmd_site_serve(args: argparse.Namespace) -> int:
    from samplesite.generator import generate_site
    from samplesite.server import serve_forever

    p = site_params(args)
    site = generate_site(n_games=p["games"], n_users=p["users"], seed=p["seed"], faults=p["faults"])
    print(f"sample site ({p['games']:,} games, {p['users']:,} members, seed {p['seed']}, from {p['origin']}), "
          f"night {args.night}, on http://127.0.0.1:{p['port']}", flush=True)
    try:
        serve_forever(site, port=p["port"], night=args.night, variants=tuple(args.variant))
    except OSError as exc:
        raise OSError(f"cannot serve on port {p['port']}: {exc.strerror or exc}; pass --port P") from None
    return 0


def cmd_site_truth(args: argparse.Namespace) -> int:
    from samplesite.generator import generate_site
    from samplesite.nights import site_on_night
    from samplesite.truth import write_truth

    p = site_params(args)
    site = generate_site(n_games=p["games"], n_users=p["users"], seed=p["seed"], faults=p["faults"])
    site = site_on_night(site, args.night)
    for name, path in write_truth(site, Path(args.out)).items():
        print(f"{name}: {path}")
    return 0
