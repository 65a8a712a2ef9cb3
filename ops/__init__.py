"""Operating the pipeline unattended: the nightly lock, scratch folders, child processes,
readiness waits, stop signals and the one-line error.

Why a package of its own: these concerns used to be spread over `core`, `scrapers`,
`bodoge`, `dashboards` and `pipelines`, each written for the first command that needed
it, so the next command wrote its own. Here each lives once, by concern (`lock`,
`scratch`, `procs`, `children`, `tether`, `signals`, `readiness`, `errors`).

It sits just above `core` in the layers: it imports only `core` and libraries, and every
other package may import it (`tests/unit/test_layers.py`).
"""
