"""Unit tests: no process, no socket, no Dagster run; the whole tier answers in about a minute."""
