"""Backups of the warehouse: verified copies made after every published night, and the way back.

The rule: a backup is a checkpointed copy of the warehouse file, verified (checksum, every
table counted) before its manifest makes it a backup (`backup`); `bodoge restore` puts the
newest backup that still verifies back in place, keeping the file it replaces (`restore`);
whoever migrates the warehouse backs it up first and puts that backup back when a migration
fails (`migration`).

Why: the warehouse holds every night's history, which no crawl can bring back; a disk
error, a bad upgrade or a mistaken delete must cost at most one night.
"""
