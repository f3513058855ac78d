"""The report Markdown as a flat list of blocks with styled runs, for the PDF and DOCX writers."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

from markdown_it import MarkdownIt
from markdown_it.token import Token

from research_studio.export.document import CitedSource

BlockKind = Literal["heading", "paragraph", "item", "table", "code", "rule"]
Indicator = Literal["", "✓✓", "✓", "⚠"]

_CITE = re.compile(r"(\[S\d+\])")
_INDICATOR = re.compile(r"(✓✓|✓|⚠)")


@dataclass(frozen=True)
class Run:
    """A stretch of text with one style; `cite` links inside the document, `url` outside."""

    text: str
    bold: bool = False
    italic: bool = False
    code: bool = False
    cite: str | None = None
    url: str | None = None
    indicator: Indicator = ""
    whole: bool = False  # an address: kept on one line where it fits one (not split at "-")


@dataclass
class Block:
    """A heading, paragraph, list item, table, code block or rule."""

    kind: BlockKind
    runs: list[Run] = field(default_factory=list)
    level: int = 0  # heading level, or list depth (1 = top level)
    marker: str = ""  # a list item's bullet or number; "" for a continuation paragraph
    anchor: str | None = None  # the source id of a Sources-list entry
    rows: list[list[list[Run]]] = field(default_factory=list)  # a table's cells, header first

    @property
    def text(self) -> str:
        return "".join(run.text for run in self.runs)


def plain(runs: Sequence[Run]) -> str:
    """The runs' text without styles."""
    return "".join(run.text for run in runs)


def _split_text(text: str, style: Run) -> list[Run]:
    """Plain text cut into citation, indicator and ordinary runs."""
    runs: list[Run] = []
    for position, part in enumerate(_CITE.split(text)):
        if position % 2:
            runs.append(replace(style, text=part, cite=part[1:-1]))
            continue
        for index, piece in enumerate(_INDICATOR.split(part)):
            if piece:
                mark: Indicator = piece if index % 2 else ""  # type: ignore[assignment]
                runs.append(replace(style, text=piece, indicator=mark))
    return runs


def _inline(children: Sequence[Token]) -> list[Run]:
    runs: list[Run] = []
    style = Run("")
    for token in children:
        if token.type == "text":
            runs += _split_text(token.content, style)
        elif token.type in ("softbreak", "hardbreak"):
            runs.append(replace(style, text=" " if token.type == "softbreak" else "\n"))
        elif token.type == "code_inline":
            runs.append(replace(style, text=token.content, code=True))
        elif token.type in ("strong_open", "strong_close"):
            style = replace(style, bold=token.type == "strong_open")
        elif token.type in ("em_open", "em_close"):
            style = replace(style, italic=token.type == "em_open")
        elif token.type == "link_open":
            style = replace(style, url=str(token.attrGet("href") or "") or None)
        elif token.type == "link_close":
            style = replace(style, url=None)
        elif token.type == "image":
            runs.append(replace(style, text=token.content or str(token.attrGet("alt") or "")))
    return runs


def _source_entry(runs: list[Run], sources: dict[str, CitedSource]) -> tuple[str | None, list[Run]]:
    """A Sources-list entry's id and its runs, rebuilt from the source's record: the id as a
    label, the title as text, the address (a link for web pages only) as readers see it."""
    if not runs or runs[0].cite not in sources or not plain(runs[1:]).startswith(" "):
        return None, runs
    sid = runs[0].cite
    source = sources[sid]
    title = " ".join((source.title or source.address).split())
    return sid, [
        replace(runs[0], cite=None, bold=True),
        Run(f" {title} — "),
        Run(" ".join(source.address.split()), url=source.link, whole=True),
    ]


def report_blocks(markdown: str, sources: Sequence[CitedSource] = ()) -> list[Block]:
    """The report as blocks; the Sources list entries carry their source id as an anchor."""
    by_sid = {source.sid: source for source in sources}
    tokens = MarkdownIt("commonmark", {"html": False}).enable("table").parse(markdown)
    blocks: list[Block] = []
    lists: list[list[int]] = []  # per open list: [ordered (0/1), next number]
    marker: str | None = None
    table: Block | None = None
    row: list[list[Run]] = []
    heading = 0
    for token in tokens:
        kind = token.type
        if kind in ("bullet_list_open", "ordered_list_open"):
            start = int(token.attrGet("start") or 1)
            lists.append([int(kind == "ordered_list_open"), start])
        elif kind in ("bullet_list_close", "ordered_list_close"):
            lists.pop()
        elif kind == "list_item_open" and lists:
            ordered, number = lists[-1]
            marker = f"{number}." if ordered else "•"
            lists[-1][1] += 1
        elif kind == "heading_open":
            heading = int(token.tag[1:])
        elif kind == "table_open":
            table = Block("table")
        elif kind == "table_close" and table is not None:
            blocks.append(table)
            table = None
        elif kind == "tr_open":
            row = []
        elif kind == "tr_close" and table is not None:
            table.rows.append(row)
        elif kind in ("fence", "code_block"):
            blocks.append(Block("code", [Run(token.content.rstrip("\n"), code=True)]))
        elif kind == "hr":
            blocks.append(Block("rule"))
        elif kind == "inline":
            runs = _inline(token.children or [])
            if table is not None:
                row.append(runs)
            elif heading:
                blocks.append(Block("heading", runs, level=heading))
                heading = 0
            elif lists:
                anchor, runs = _source_entry(runs, by_sid)
                blocks.append(Block("item", runs, len(lists), marker or "", anchor))
                marker = None
            else:
                blocks.append(Block("paragraph", runs))
    return blocks
