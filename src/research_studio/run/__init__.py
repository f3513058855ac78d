"""One run: launch checks, runner, run folders, persistence, audit, follow-ups."""
