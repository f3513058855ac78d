"""Writers that paraphrase faithfully the way real models do (issue 33): synonyms, a clause
moved to the front, and two facts of one source joined in one sentence citing both.

The scripts only supply text: each statement is a meaning-keeping rewrite of the evidence the
writer was shown. Nothing here knows what the grounding layer checks; `written` keeps every
statement as the writer wrote it so a test can count how many were printed as written.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from research_studio.pipelines.advanced import prompts as advanced
from research_studio.pipelines.kit import writer
from research_studio.pipelines.supervisor import prompts as supervisor
from tests.doubles.prompt_reader import after_label, readings
from tests.doubles.research_script import ResearchScript
from tests.doubles.supervisor_script import SupervisorScript

# Words a writer swaps for another of the same meaning (and the inflections it keeps).
_SYNONYMS = (
    ("shows", "indicates"), ("showed", "indicated"), ("reduced", "lowered"),
    ("reduces", "lowers"), ("increased", "raised"), ("increases", "raises"),
    ("large", "big"), ("rapidly", "quickly"), ("begins", "starts"), ("began", "started"),
    ("uses", "employs"), ("about", "roughly"), ("significant", "considerable"),
    ("percent", "%"), ("affected", "impacted"), ("occurred", "happened"),
    ("documented", "recorded"), ("announced", "declared"), ("confirmed", "verified"),
    ("stayed", "remained"), ("exceeded", "surpassed"), ("researchers", "scientists"),
    ("widespread", "extensive"), ("driven by", "caused by"), ("growing", "rising"),
    ("severe", "serious"), ("likely", "probable"), ("expanding", "growing"),
    ("determine", "decide"), ("typically", "usually"), ("roughly", "approximately"),
)  # fmt: skip
_FRONTED = re.compile(r",? (in \d{4}|during [a-z ]+?|after [a-z ]+?)([.!?])$")
_ATTRIBUTION = re.compile(r"^(?P<head>.{20,}?), (?P<who>according to [^,.;]+)(?P<rest>[,.;].*)$")


def paraphrase(text: str) -> str:
    """The sentence in other words: synonyms, "%" for "percent", an attribution or a closing
    clause moved to the front."""
    for old, new in _SYNONYMS:
        text = re.sub(rf"\b{old}\b", new, text)
    text = re.sub(r"(\d) %", r"\1%", text)
    attribution = _ATTRIBUTION.match(text)
    if attribution:
        head, who, rest = attribution["head"], attribution["who"], attribution["rest"]
        return f"{who[0].upper()}{who[1:]}, {_lower_first(head)}{rest}"
    clause = _FRONTED.search(text)
    if clause and clause.start() > 20:
        head = text[: clause.start()]
        text = f"{clause.group(1)[0].upper()}{clause.group(1)[1:]}, {_lower_first(head)}."
    return text


def _lower_first(text: str) -> str:
    """The text with its first letter in lower case, unless it opens a name ("NOAA", "Dr.")."""
    first = text.split(" ", 1)[0]
    if first[1:].islower() and first.lower() in {"the", "a", "an", "this", "it", "between", "in"}:
        return text[0].lower() + text[1:]
    return text


def join(first: str, second: str) -> str:
    """Two facts of one source in one sentence."""
    return f"{first.rstrip(' .!?')}; {second[0]}{second[1:]}"


@dataclass
class Written:
    """Every statement the writer wrote, as written."""

    statements: list[str] = field(default_factory=list)
    joined: list[str] = field(default_factory=list)
    reworded: list[str] = field(default_factory=list)  # not the evidence's own words

    def statement(
        self, text: str, ids: list[str], evidence: list[str], *, joined: bool = False
    ) -> dict[str, Any]:
        self.statements.append(text)
        if joined:
            self.joined.append(text)
        if text not in {*evidence, join(*evidence) if len(evidence) == 2 else ""}:
            self.reworded.append(text)
        return {"text": text, "ids": ids}

    def paragraphs(self, items: list[tuple[str, str, str]]) -> list[dict[str, Any]]:
        """(id, source, text) items, each paraphrased; the first two of each source joined."""
        out: list[dict[str, Any]] = []
        pending: dict[str, tuple[str, str]] = {}
        joined_sources: set[str] = set()
        for identifier, sid, text in items:
            if sid in pending:
                other_id, other = pending.pop(sid)
                joined_sources.add(sid)
                sentence = join(paraphrase(other), paraphrase(text))
                made = self.statement(sentence, [other_id, identifier], [other, text], joined=True)
                out.append({"statements": [made]})
            elif sid not in joined_sources:
                pending[sid] = (identifier, text)
            else:
                made = self.statement(paraphrase(text), [identifier], [text])
                out.append({"statements": [made]})
        for identifier, text in pending.values():
            out.append({"statements": [self.statement(paraphrase(text), [identifier], [text])]})
        return out


@dataclass
class ParaphrasingResearchScript(ResearchScript):
    """The research script whose writer (standard and advanced) paraphrases and joins."""

    written: Written = field(default_factory=Written)

    def report(self, prompt: str) -> dict[str, Any]:
        if advanced.CLAIMS_OPEN in prompt:
            return self.advanced_report(prompt)
        found = readings(writer.WRITE_EVIDENCE_ITEM, prompt, eid=r"E\d+", sid=r"S\d+")
        items = [(item["eid"], item["sid"], item["text"]) for item in found]
        paragraphs = self.written.paragraphs(items)
        return self._paraphrased(paragraphs)

    def advanced_report(self, prompt: str) -> dict[str, Any]:
        found = readings(advanced.WRITER_CLAIM_ITEM, prompt, cid=r"C\d+")
        items = [
            (item["cid"], re.split(r"[,;]\s*", item["sids"])[0].strip(), item["text"])
            for item in found
        ]
        paragraphs = self.written.paragraphs(items)
        return self._paraphrased(paragraphs, after_label(advanced.TITLE_LABEL, prompt))

    def _paraphrased(self, paragraphs: list[dict[str, Any]], title: str = "") -> dict[str, Any]:
        if not paragraphs:
            paragraphs = [{"statements": [{"text": "Nothing.", "ids": []}]}]
        return {
            "title": title or "Research report",
            "summary": [],
            "sections": [{"heading": "Findings", "paragraphs": paragraphs}],
            "conclusion": [],
        }


@dataclass
class ParaphrasingSupervisorScript(SupervisorScript):
    """The supervisor script whose writer paraphrases and joins the selected evidence."""

    written: Written = field(default_factory=Written)

    def report(self, prompt: str) -> dict[str, Any]:
        found = readings(supervisor.EVIDENCE_LINE, prompt, eid=r"E\d+", sid=r"S\d+")
        items = [(item["eid"], item["sid"], item["quote"]) for item in found[:8]]
        paragraphs = self.written.paragraphs(items) or [
            {"statements": [{"text": "Nothing was found.", "ids": []}]}
        ]
        return {
            "title": "Research report",
            "summary": [],
            "sections": [{"heading": "Key findings", "paragraphs": paragraphs}],
            "conclusion": [],
        }
