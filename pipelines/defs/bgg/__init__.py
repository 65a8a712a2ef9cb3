"""BoardGameGeek: a second source, synced each night when a token and a links file are configured."""
