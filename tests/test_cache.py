"""The SQLite cache: TTL, replacement, concurrent use."""

from __future__ import annotations

import threading
import time
from pathlib import Path

from research_studio.cache import Cache, page_key, search_key


def test_round_trip_and_ttl(tmp_path: Path) -> None:
    cache = Cache.in_dir(tmp_path)
    cache.put("search", "k", {"a": [1, 2]})
    assert cache.get("search", "k", ttl_s=60) == {"a": [1, 2]}
    assert cache.get("page", "k", ttl_s=60) is None
    time.sleep(0.02)
    assert cache.get("search", "k", ttl_s=0.01) is None
    assert cache.purge("search", older_than_s=0.01) == 1


def test_keys_are_normalized() -> None:
    assert search_key("tavily", "  Solid  State ", 5) == search_key("tavily", "solid state", 5)
    assert search_key("tavily", "q", 5) != search_key("searxng", "q", 5)
    assert page_key("HTTP://A.org/x#top") == page_key("http://a.org/x")


def test_concurrent_writers_across_connections(tmp_path: Path) -> None:
    first, second = Cache.in_dir(tmp_path), Cache.in_dir(tmp_path)

    def write(cache: Cache, prefix: str) -> None:
        for index in range(50):
            cache.put("page", f"{prefix}{index}", index)

    threads = [
        threading.Thread(target=write, args=(c, p))
        for c, p in ((first, "a"), (second, "b"), (first, "c"))
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert all(first.get("page", f"{p}{i}", 60) == i for p in "abc" for i in range(50))
