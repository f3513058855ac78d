"""A time range applied to search results: dated results outside it dropped, undated marked."""

from __future__ import annotations

from research_studio.core.timerange import TimeRange
from research_studio.sources.search.base import SearchProvider, SearchResult

# Said after the title of a result whose date is unknown: kept, but the reader should know.
UNDATED_MARK = "(date unknown)"


class DatedSearch:
    """Keeps results dated inside the range and undated ones (marked); counts the rest."""

    def __init__(self, inner: SearchProvider, window: TimeRange) -> None:
        self.inner = inner
        self.name = inner.name
        self.window = window
        self.outside: list[str] = []  # URLs of results dated outside the range

    async def search(self, query: str, max_results: int) -> list[SearchResult]:
        kept = []
        for result in await self.inner.search(query, max_results):
            inside = self.window.holds(result.published)
            if inside is False:
                self.outside.append(result.url)
                continue
            if inside is None and not result.title.endswith(UNDATED_MARK):
                title = f"{result.title} {UNDATED_MARK}".strip()
                result = result.model_copy(update={"title": title})
            kept.append(result)
        return kept


def dated_title(title: str, published: str | None, window: TimeRange | None) -> str | None:
    """A read page's title under the range: None when the page's date is outside it, marked
    when the page has no date, unchanged otherwise (or without a range)."""
    if window is None:
        return title
    inside = window.holds(published)
    if inside is False:
        return None
    if inside is None and not title.endswith(UNDATED_MARK):
        return f"{title} {UNDATED_MARK}".strip()
    return title
