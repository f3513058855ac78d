"""A small MCP server for tests (stdio, the official SDK): a `search` tool and a `lookup` tool.

`python -m tests.doubles.mcp_fixture_server [--web BASE_URL] [--http PORT] [--noisy]`
(stdio, or streamable HTTP at http://127.0.0.1:PORT/mcp with --http; --noisy prints lines
that are not MCP messages to stdout, as a chatty server does)
- `search(query, max_results)`: a JSON list of hits {title, url, snippet} pointing at the
  pages of the local test web at BASE_URL; without --web, hits carrying the lookup document's
  text and no URL.
- `lookup(topic)`: a field report with facts found nowhere else (`LOOKUP_FACTS`).
"""

from __future__ import annotations

import json
import sys

from mcp.server.mcpserver import MCPServer

from tests.doubles.corpus_loader import SearchIndex, load_corpus

LOOKUP_TITLE = "Kestrel Reef Station field report"
LOOKUP_FACTS = (
    "Divers at the Kestrel Reef Station logged 4,812 bleached coral colonies during the "
    "March heat stress event, after water temperatures stayed above 30.6 degrees for "
    "eleven consecutive weeks along the northern transect.",
    "The station's heat stress records show that colonies shaded by the Marrow Ledge "
    "recovered their colour within nine weeks, while exposed colonies on the outer "
    "slope were still pale five months after the coral bleaching began.",
)
LOOKUP_TEXT = (
    f"{LOOKUP_TITLE}\n\n"
    + "\n\n".join(LOOKUP_FACTS)
    + "\n\nThe report was compiled by the station's monitoring team for the regional reef office."
)


def _web_hits(base_url: str, query: str, max_results: int) -> list[dict[str, object]]:
    index = SearchIndex(load_corpus(base_url))
    return [
        {"title": hit.page.title, "url": hit.page.url, "snippet": hit.snippet}
        for hit in index.search(query)[:max_results]
    ]


def build_server(web_url: str | None) -> MCPServer:
    """The fixture server; `web_url` is the local test web its search hits point at."""
    server: MCPServer = MCPServer(name="fixture")

    @server.tool()
    def search(query: str, max_results: int = 5) -> str:
        """Search the test web; a JSON list of hits with title, url and snippet."""
        if web_url:
            return json.dumps(_web_hits(web_url, query, max_results))
        return json.dumps(
            [{"title": LOOKUP_TITLE, "snippet": LOOKUP_FACTS[0], "text": LOOKUP_TEXT}]
        )

    @server.tool()
    def lookup(topic: str) -> str:
        """Look up the field report of the Kestrel Reef Station on a topic."""
        return LOOKUP_TEXT

    return server


def main(argv: list[str]) -> None:
    web_url = argv[argv.index("--web") + 1] if "--web" in argv else None
    server = build_server(web_url)
    if "--noisy" in argv:  # two lines before the first MCP message
        print("fixture server starting", flush=True)
        print("[info] this line is not an MCP message either", flush=True)
    if "--http" in argv:
        server.run("streamable-http", port=int(argv[argv.index("--http") + 1]))
    else:
        server.run("stdio")


if __name__ == "__main__":
    main(sys.argv[1:])
