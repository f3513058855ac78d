"""Through `research-studio verify` and the MCP `verify` tool: a user's true sentence that writes
a date, an amount, a rank or a name another way than the page is supported, with the passage
that carries it; the same sentence with another date, amount, rank or name is refused, and the
answer says which figure or name failed."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from research_studio.faces.cli import app
from research_studio.faces.mcp_server import build_server

runner = CliRunner()

PAGE = (
    "# Harbour museum reopens\n\n"
    "By Ana Ruiz on February 22, 2021\n\n"
    "The Harbour Museum of Maritime History reopened on 3 March 2021 after the flood.\n\n"
    "Repairs were paid by the European Regional Development Fund.\n\n"
    "The restoration cost $1.2 billion, the city said.\n\n"
    "The sailing exhibition will open on April 9th in the east wing.\n\n"
    "Marta Oyelaran curated the first exhibition of lighthouse journals.\n\n"
    "Visitors ranked the museum 3rd among the region's attractions.\n\n"
    "The storm also closed the harbour road.\n\n"
    "Oyelaran donated her own charts to the collection.\n\n"
    "The U.S. Senate approved a grant for the archive.\n\n"
    "The harbour of Bayamon supplied the oak timber.\n"
)

CASES = [
    pytest.param(
        "The Harbour Museum of Maritime History reopened on March 3, 2021 after the flood.",
        "The Harbour Museum of Maritime History reopened on 3 March 2021",
        "The Harbour Museum of Maritime History reopened on March 4, 2021 after the flood.",
        "figure: 4 March 2021 is not in the source",
        id="date",
    ),
    pytest.param(
        "The sailing exhibition will open on 9 April 2021 in the east wing.",
        "The sailing exhibition will open on April 9th",
        "The sailing exhibition will open on 9 May 2021 in the east wing.",
        "figure: May",
        id="day-dated-by-byline",
    ),
    pytest.param(
        "The restoration cost 1,200 million dollars, the city said.",
        "The restoration cost $1.2 billion",
        "The restoration cost $1.2 million, the city said.",
        "figure: the source has 1.2 but not as $ million",
        id="money-scale",
    ),
    pytest.param(
        "Visitors ranked the museum third among the region's attractions.",
        "Visitors ranked the museum 3rd",
        "Visitors ranked the museum fourth among the region's attractions.",
        "figure: 4 is not in the source",
        id="ordinal",
    ),
    pytest.param(
        "Repairs were paid by the ERDF.",
        "Repairs were paid by the European Regional Development Fund.",
        "Repairs were paid by the ESF.",
        "entity: the source does not name 'ESF'",
        id="acronym",
    ),
    pytest.param(
        "Marta Oyelaran donated her own charts to the collection.",
        "Oyelaran donated her own charts",
        "In the end Elena Oyelaran donated her own charts to the collection.",
        "entity: the source does not name 'Elena'",
        id="surname",
    ),
    pytest.param(
        "The United States Senate approved a grant for the archive.",
        "The U.S. Senate approved a grant",
        "The United Kingdom Senate approved a grant for the archive.",
        "entity: the source does not name 'United', 'Kingdom'",
        id="dotted-acronym",
    ),
    pytest.param(
        "The harbour of Bayamón supplied the oak timber.",
        "The harbour of Bayamon supplied",
        "The harbour of Guaynabo supplied the oak timber.",
        "entity: the source does not name 'Guaynabo'",
        id="name-without-accents",
    ),
]


@pytest.mark.parametrize(("statement", "passage", "wrong", "why"), CASES)
def test_verify_supports_a_fact_written_another_way_and_refuses_another_fact(
    tmp_path: Path, statement: str, passage: str, wrong: str, why: str
) -> None:
    page = tmp_path / "museum.md"
    page.write_text(PAGE, encoding="utf-8")
    result = runner.invoke(app, ["verify", statement, "--source", str(page), "--json"])
    assert result.exit_code == 0, result.output
    answer = json.loads(result.stdout)
    assert answer["supported"], answer
    assert any(quote.startswith(passage) for quote in answer["quotes"]), answer["quotes"]
    # Nothing of it is reported missing: the other writing carries every word.
    assert answer["missing_terms"] == [] and answer["coverage"] == 1.0, answer
    # …in the one passage, not borrowed from another sentence ("Marta" from another line).
    assert all(part["also"] == [] for part in answer["parts"]), answer["parts"]
    shown = runner.invoke(app, ["verify", statement, "--source", str(page)])
    assert shown.exit_code == 0 and passage in shown.stdout

    refused = runner.invoke(app, ["verify", wrong, "--source", str(page), "--json"])
    answer = json.loads(refused.stdout)
    assert answer["supported"] is False, answer
    assert any(why in reason for reason in answer["reasons"]), answer["reasons"]


def test_the_mcp_tool_answers_the_same_for_a_fact_written_another_way() -> None:
    server = build_server()
    for statement, passage, wrong, why in (case.values for case in CASES):
        result = asyncio.run(server.call_tool("verify", {"statement": statement, "text": PAGE}))
        answer = result.structured_content
        assert answer is not None and answer["supported"], (statement, answer)
        assert any(part["quote"].startswith(passage) for part in answer["parts"])
        result = asyncio.run(server.call_tool("verify", {"statement": wrong, "text": PAGE}))
        answer = result.structured_content
        assert answer is not None and answer["supported"] is False
        assert any(why in reason for part in answer["parts"] for reason in part["reasons"]) or any(
            why in reason for reason in answer.get("reasons", [])
        ), answer
