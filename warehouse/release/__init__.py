"""Releasing a night: what readers and the site get, and only whole.

The rule: a night is released in one order, and only this package's code writes what
readers or the site read (the privacy cut, `warehouse.privacy.cut`, calls its functions
to cut a member out of the published night and the bundles; readers never write). The
export bundle is written and validated against its JSON Schemas (`export`, `schemas`,
`bundle_io`), the published night is written beside published.duckdb and swapped in
(`publish`), LATEST follows it at once (`release`), old bundles are kept few
(`retention`), and the bundle is delivered to the site's endpoint last, retried across
nights (`delivery`, `push`).

Why one package: these files are the night's public face (docs/interface.md), and each
step relies on the one before it having finished whole; keeping them together keeps that
order in one place.
"""
