"""SQLite files shared by threads and processes: switching one to WAL without a spurious lock error."""

from __future__ import annotations

import sqlite3
import time


def set_wal(db: sqlite3.Connection, wait_s: float = 60.0) -> None:
    """Switch to WAL, retrying while another connection holds the file.

    Changing the journal mode needs the file to itself, and SQLite answers SQLITE_BUSY at once,
    without calling the busy handler, while another connection creates or writes it. The mode is
    kept in the file, so a connection that finds WAL already set does nothing.
    """
    deadline = time.monotonic() + wait_s
    while True:
        try:
            (mode,) = db.execute("PRAGMA journal_mode").fetchone()
            if str(mode).lower() != "wal":
                db.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if exc.sqlite_errorname != "SQLITE_BUSY" or time.monotonic() > deadline:
                raise
            time.sleep(0.02)
