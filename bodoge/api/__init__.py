"""`bodoge api`: the HTTP API the site calls (docs/api.md, CONTRACT.md "HTTP API for the site").

* `night`: one published night held read-only (its bundle's lines, its rules, its model);
* `serving`: which night is served, moved to a new one between requests; the erasure journal;
* `requests`: query parameters and bodies, checked; `openapi`: the document, from the export's schemas;
* `app`: the routes (Starlette); `main`: the command (uvicorn), the token, the address rule.
"""
