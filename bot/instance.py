"""One bot per database: a second ``ofc-bot`` started on the same SQLite file would resume the
same tables and play them twice (both deal, both time out the players, both answer the same
interactions), so it stops at once and says which process holds the database.

The lock is an exclusive ``flock`` (``msvcrt.locking`` on Windows) on ``<database>.lock``
(links followed), held for the life of the process: the system releases it when the process
ends, however it ends, so a bot that was killed never leaves a stale lock behind.  An in-memory database
(``:memory:``) is the process's own and needs none."""

from __future__ import annotations

import contextlib
import errno
import os
from typing import IO

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]


_HELD = {errno.EAGAIN, errno.EWOULDBLOCK, errno.EACCES, errno.EDEADLK}
"""What ``flock`` / ``msvcrt.locking`` raise when another process holds the lock."""


class AlreadyRunning(Exception):
    """Another process holds the database; ``pid`` is what it wrote in the lock file (None
    when unreadable)."""

    def __init__(self, path: str, pid: int | None) -> None:
        self.path = path
        self.pid = pid
        super().__init__(path)


class InstanceLock:
    """``acquire()`` or raise ``AlreadyRunning``; ``release()`` (or the process's end) frees it."""

    def __init__(self, database: str) -> None:
        self.path: str | None = (None if database in ("", ":memory:")
                                 else f"{os.path.realpath(database)}.lock")
        """Beside the database's real file: a bot started through a link to it and one (or
        ``ofc-bot restore``) given the file itself take the same lock."""
        self._file: IO[str] | None = None

    def acquire(self) -> None:
        if self.path is None or self._file is not None:
            return
        f = open(self.path, "a+", encoding="ascii")  # noqa: SIM115 - held until release()
        try:
            _lock(f)
        except OSError as e:
            if e.errno not in _HELD:  # e.g. ENOLCK, a file system without locks: said as is
                f.close()
                raise
            f.seek(0)
            text = f.read(32).strip()
            f.close()
            raise AlreadyRunning(self.path, int(text) if text.isdigit() else None) from None
        except BaseException:
            f.close()
            raise
        f.seek(0)
        f.truncate()
        f.write(f"{os.getpid()}\n")
        f.flush()
        self._file = f

    def release(self) -> None:
        f, self._file = self._file, None
        if f is not None:
            with contextlib.suppress(OSError):
                f.seek(0)
                f.truncate()  # no pid left behind for the next one to read
                _unlock(f)
            f.close()


def _lock(f: IO[str]) -> None:
    if fcntl is not None:
        fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    else:  # pragma: no cover - Windows: a lock on a byte far past the pid
        import msvcrt

        f.seek(1 << 20)
        msvcrt.locking(f.fileno(), msvcrt.LK_NBLCK, 1)


def _unlock(f: IO[str]) -> None:
    if fcntl is not None:
        fcntl.flock(f.fileno(), fcntl.LOCK_UN)
    else:  # pragma: no cover - Windows
        import msvcrt

        f.seek(1 << 20)
        msvcrt.locking(f.fileno(), msvcrt.LK_UNLCK, 1)
