"""End-to-end tests: real processes and signals, crawls over HTTP, `bodoge serve`, PostgreSQL."""
