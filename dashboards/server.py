"""`python -m dashboards.server --parent-pid PID -- <streamlit run arguments>`.

Why a wrapper around `python -m streamlit`: `bodoge dashboard` passes SIGTERM and Ctrl-C
on to Streamlit, but a command killed with SIGKILL (or by the OOM killer) runs no handler,
and Streamlit used to stay behind, answering on the port with member data. This process
asks the kernel to send it SIGTERM when its parent dies, then becomes Streamlit's CLI in
the same process (Streamlit stops cleanly on SIGTERM).
"""

from __future__ import annotations

import argparse
import sys

from ops.children import die_with_parent


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m dashboards.server")
    parser.add_argument("--parent-pid", type=int, required=True, help="stop (SIGTERM) when this process dies")
    parser.add_argument("streamlit_args", nargs=argparse.REMAINDER, help="after --: the `streamlit` arguments")
    args = parser.parse_args(argv)
    rest = args.streamlit_args[1:] if args.streamlit_args[:1] == ["--"] else args.streamlit_args
    die_with_parent(parent_pid=args.parent_pid)
    from streamlit.web.cli import main as streamlit_main

    sys.argv = ["streamlit", *rest]
    return streamlit_main(prog_name="streamlit")


if __name__ == "__main__":
    sys.exit(main())
