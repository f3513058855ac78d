"""Coverage of the outline counted by code (spec 001 §2.4), which the loop's stop rule reads.

Each section's coverage is `min(1, n/3)` over the evidence that answers it: evidence the
subagents filed under that section whose quote code found in the page and whose text the support
check finds carried by that quote. The model's gap analysis may only lower a section's value
(it can read three items as answering less than they seem); it never raises one, so a model that
rates its coverage 1.0 with no verified evidence does not end the loop, and sections covered by
count end it whatever the model rates them (the document's quick check, before any model call).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from functools import lru_cache
from statistics import mean

from research_studio.core.records import EvidenceRecord
from research_studio.grounding.support import supports

ITEMS_FOR_FULL_COVERAGE = 3  # min(1, n/3)
# The quick check: every section at least this, and on average at least that, ends the loop.
QUICK_MINIMUM, QUICK_AVERAGE = 0.5, 0.8


@lru_cache(maxsize=4096)
def _carried(text: str, quote: str) -> bool:
    return supports(text, quote).ok


def answers(item: EvidenceRecord) -> bool:
    """Evidence that counts: its quote is the page's own text and it carries the item's text."""
    return bool(item["quote_verified"]) and _carried(item["text"], item["quote"])


def counted_coverage(
    outline: Sequence[str], evidence: Sequence[EvidenceRecord]
) -> dict[str, float]:
    """Each outline section's `min(1, n/3)` over the verified evidence answering it."""
    counts = Counter(item["question"].casefold() for item in evidence if answers(item))
    return {
        section: round(min(1.0, counts[section.casefold()] / ITEMS_FOR_FULL_COVERAGE), 3)
        for section in outline
    }


def covered(coverage: Mapping[str, float]) -> bool:
    """The quick check: every section at least half covered and the outline mostly covered."""
    values = list(coverage.values())
    return bool(values) and min(values) >= QUICK_MINIMUM and mean(values) >= QUICK_AVERAGE


def combined(counted: Mapping[str, float], rated: Mapping[str, float]) -> dict[str, float]:
    """The count's coverage of each section, lowered where the model rates it lower."""
    by_name = {name.casefold(): value for name, value in rated.items()}
    return {
        section: min(value, by_name.get(section.casefold(), value))
        for section, value in counted.items()
    }


def overall(sections: Mapping[str, float], rated: float | None = None) -> float:
    """The outline's coverage: the sections' mean, lowered by the model's overall rating."""
    value = mean(sections.values()) if sections else 0.0
    return round(min(value, rated) if rated is not None else value, 3)
