"""Where a run keeps its checkpoints and store: SQLite in the run folder, or a PostgreSQL server."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

from research_studio.core.config import Configuration
from research_studio.core.errors import ConfigError, ResearchStudioError
from research_studio.run.runs import CHECKPOINTS_FILE, STORE_FILE

if TYPE_CHECKING:  # psycopg and its savers are imported when PostgreSQL is configured
    import psycopg
    from langgraph.store.base import BaseStore

POSTGRES_SCHEMES = ("postgresql://", "postgres://")
CONNECT_TIMEOUT_S = 10
# Connections of one run: the saver and the store share them (parallel researchers write sources).
POOL_SIZE = 4
# Serializes first-time table creation when several runs start on an empty database at once.
SETUP_LOCK = 0x52535F5047  # "RS_PG"


@dataclass
class Persistence:
    """A run's checkpointer and store (None for a pipeline that keeps no store), and where they
    live (for messages)."""

    saver: BaseCheckpointSaver[Any]
    store: BaseStore | None
    where: str


def postgres_url(config: Configuration) -> str | None:
    """The PostgreSQL URL the configuration selects, or None for SQLite in the run folder."""
    value = (config.checkpoints or "").strip()
    return value if value.lower().startswith(POSTGRES_SCHEMES) else None


def describe(config: Configuration, folder: Path) -> str:
    """Where checkpoints go, safe to show: the server and database, or the run folder's file."""
    url = postgres_url(config)
    return _server(url) if url is not None else str(folder / CHECKPOINTS_FILE)


def _server(url: str) -> str:
    """host:port/dbname of a URL, never its user or password."""
    import psycopg
    from psycopg.conninfo import conninfo_to_dict

    try:
        info = conninfo_to_dict(url)
    except psycopg.Error as exc:
        raise ConfigError(f"checkpoints: not a valid PostgreSQL URL ({_first_line(exc)})") from None
    host = info.get("host") or info.get("hostaddr") or "localhost"
    return f"PostgreSQL at {host}:{info.get('port') or 5432}/{info.get('dbname') or ''}"


def _first_line(exc: BaseException, secret: str | None = None) -> str:
    text = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
    return text.replace(secret, "****") if secret else text


def _refused(exc: psycopg.Error, url: str, server: str) -> ResearchStudioError:
    from psycopg.conninfo import conninfo_to_dict

    password = conninfo_to_dict(url).get("password")
    reason = _first_line(exc, str(password) if password else None)
    return ResearchStudioError(f"cannot use {server} for checkpoints: {reason}")


async def _connect_check(url: str, server: str) -> None:
    """Fail with one line naming the server when it cannot be reached or refuses us."""
    import psycopg

    try:
        connection = await psycopg.AsyncConnection.connect(
            url, connect_timeout=CONNECT_TIMEOUT_S, autocommit=True
        )
    except psycopg.Error as exc:
        raise _refused(exc, url, server) from None
    await connection.close()


def check_checkpoints(config: Configuration) -> None:
    """Before a run folder exists: the configured PostgreSQL server answers and lets us in."""
    url = postgres_url(config)
    if url is None:
        return
    import psycopg

    server = _server(url)
    try:
        psycopg.connect(url, connect_timeout=CONNECT_TIMEOUT_S, autocommit=True).close()
    except psycopg.Error as exc:
        raise _refused(exc, url, server) from None


@asynccontextmanager
async def _postgres(url: str) -> AsyncIterator[Persistence]:
    from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
    from langgraph.store.postgres.aio import AsyncPostgresStore
    from psycopg.rows import dict_row
    from psycopg_pool import AsyncConnectionPool

    server = _server(url)
    await _connect_check(url, server)
    kwargs: dict[str, Any] = {"autocommit": True, "prepare_threshold": 0, "row_factory": dict_row}
    async with AsyncConnectionPool(
        url, min_size=1, max_size=POOL_SIZE, kwargs=kwargs, open=False
    ) as pool:
        await pool.open(wait=True, timeout=CONNECT_TIMEOUT_S)
        saver = AsyncPostgresSaver(pool)  # type: ignore[arg-type]
        store = AsyncPostgresStore(pool)  # type: ignore[arg-type]
        async with pool.connection() as lock:
            # Session lock held on its own connection while the set-ups use others.
            await lock.execute("SELECT pg_advisory_lock(%s)", (SETUP_LOCK,))
            try:
                await saver.setup()
                await store.setup()
            finally:
                await lock.execute("SELECT pg_advisory_unlock(%s)", (SETUP_LOCK,))
        yield Persistence(saver, store, server)


@asynccontextmanager
async def open_persistence(
    folder: Path, config: Configuration, *, with_store: bool = True
) -> AsyncIterator[Persistence]:
    """The checkpointer and store of a run: PostgreSQL when configured, else SQLite in `folder`.

    Thread ids are run ids, so many runs share one PostgreSQL database. The SQLite store is
    opened only `with_store`: LangGraph's SQLite store imports its vector search and numpy, a
    cost a run of a pipeline that keeps no store should not pay.
    """
    url = postgres_url(config)
    if url is not None:
        async with _postgres(url) as persistence:
            yield persistence
        return
    where = str(folder / CHECKPOINTS_FILE)
    async with AsyncSqliteSaver.from_conn_string(where) as saver:
        if not with_store:
            yield Persistence(saver, None, where)
            return
        from langgraph.store.sqlite.aio import AsyncSqliteStore

        async with AsyncSqliteStore.from_conn_string(str(folder / STORE_FILE)) as store:
            await store.setup()
            yield Persistence(saver, store, where)
