"""Files written whole or not at all."""

from __future__ import annotations

import errno
import os
import stat
import tempfile
from pathlib import Path

from research_studio.core.errors import ConfigError


def write_atomically(path: Path, text: str) -> None:
    """Write via a temporary file and rename, so a crash never leaves a half-written file.

    Only a file (or a link) is replaced: a folder or a device named as the target (a user's
    `/dev/full`) is refused, never renamed over.
    """
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        mode = None
    if mode is not None and stat.S_ISDIR(mode):
        raise IsADirectoryError(errno.EISDIR, "is a folder, not a file", str(path))
    if mode is not None and not (stat.S_ISREG(mode) or stat.S_ISLNK(mode)):
        raise OSError(errno.EINVAL, "not a regular file", str(path))
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def read_user_text(path: Path, what: str) -> str:
    """A text file the user names (cases, labelled rows), or a one-line `ConfigError` saying
    why not: "cannot read <what> <path>: <reason>". A device or a pipe (`/dev/zero`) would be
    read forever: only a file is read."""

    def refused(reason: str) -> ConfigError:
        return ConfigError(f"cannot read {what}{path}: {reason}")

    try:
        if path.exists() and not path.is_dir() and not path.is_file():
            raise refused("not a regular file")
        return path.read_text(encoding="utf-8")
    except IsADirectoryError:
        raise refused("is a folder, not a file") from None
    except OSError as exc:
        raise refused(exc.strerror or type(exc).__name__) from None
    except UnicodeDecodeError as exc:
        raise refused(f"not UTF-8 text (byte {exc.start})") from None
