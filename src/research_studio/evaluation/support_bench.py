"""The support check measured on labelled claims (`research-studio bench verify FILE.jsonl`).

Each row has a `claim`, the `evidence` (the sentences of the page it cites, one per line) and a
`label` (`supported`, `partially_supported`, `not_supported`, as in WiCE). The claim is checked
against the whole page exactly as `verify` checks it (`grounding.support.best_support`);
"supported" is scored against the rest. Rows fall in two halves by a hash of their claim, so a
figure fitted on one half (`half == "fit"`) can be reported on the other (`"held-out"`).
"""

from __future__ import annotations

import hashlib
import json
import statistics
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from research_studio.core.errors import ConfigError
from research_studio.core.files import read_user_text
from research_studio.grounding.support import best_support

POSITIVE = "supported"
LABELS = ("supported", "partially_supported", "not_supported")


def half(claim: str) -> str:
    """The half a claim falls in: "fit" (a threshold or weights may be fitted on it) or
    "held-out" (never seen by any fitting; figures are reported on it)."""
    digest = hashlib.sha256(" ".join(claim.split()).encode("utf-8")).digest()
    return "fit" if digest[0] % 2 == 0 else "held-out"


def read_rows(path: Path) -> Iterator[dict[str, Any]]:
    """The labelled rows of a JSON-lines file; a malformed row is a one-line error."""
    lines = read_user_text(path, "").splitlines()
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            claim, evidence, label = row["claim"], row["evidence"], row["label"]
        except (ValueError, KeyError, TypeError):
            raise ConfigError(
                f"{path}:{number}: not a row with claim, evidence and label"
            ) from None
        if isinstance(evidence, str):
            evidence = [evidence]
        if not isinstance(claim, str) or label not in LABELS or not isinstance(evidence, list):
            raise ConfigError(f"{path}:{number}: label must be one of {', '.join(LABELS)}")
        yield {"claim": claim, "text": "\n".join(str(line) for line in evidence), "label": label}


def _reason_kind(reasons: tuple[str, ...]) -> str:
    return reasons[0].split(":", 1)[0] if reasons else "no reason"


def _scores(rows: list[dict[str, Any]]) -> dict[str, Any]:
    positives = [row for row in rows if row["label"] == POSITIVE]
    negatives = [row for row in rows if row["label"] != POSITIVE]
    recall_supported = sum(row["ok"] for row in positives) / len(positives) if positives else 0.0
    recall_unsupported = (
        sum(not row["ok"] for row in negatives) / len(negatives) if negatives else 0.0
    )
    return {
        "claims": len(rows),
        "supported": len(positives),
        "balanced_accuracy": round((recall_supported + recall_unsupported) / 2, 3),
        "recall_supported": round(recall_supported, 3),
        "recall_unsupported": round(recall_unsupported, 3),
    }


def bench_verify(path: Path, *, limit: int | None = None) -> dict[str, Any]:
    """Every row checked; accuracy overall and per half, refusals by reason, CPU per check."""
    rows: list[dict[str, Any]] = []
    for row in read_rows(path):
        if limit is not None and len(rows) >= limit:
            break
        started = time.process_time()
        verdict = best_support(row["claim"], row["text"])
        cpu_ms = (time.process_time() - started) * 1000
        sentences = row["text"].count("\n") + 1
        rows.append(
            {
                "label": row["label"],
                "ok": verdict.ok,
                "reason": "supported" if verdict.ok else _reason_kind(verdict.reasons),
                "half": half(row["claim"]),
                "cpu_ms": cpu_ms,
                "sentences": sentences,
            }
        )
    if not rows:
        raise ConfigError(f"{path} has no labelled rows")
    confusion: dict[str, Counter[str]] = {label: Counter() for label in LABELS}
    for row in rows:
        confusion[row["label"]][row["reason"]] += 1
    cpu = sorted(row["cpu_ms"] for row in rows)
    near_100 = [row["cpu_ms"] for row in rows if 50 <= row["sentences"] <= 150]
    return {
        "file": str(path),
        **_scores(rows),
        "halves": {
            name: _scores([row for row in rows if row["half"] == name])
            for name in ("fit", "held-out")
        },
        "by_reason": {
            label: dict(counts.most_common()) for label, counts in confusion.items() if counts
        },
        "cpu_ms_per_check": {
            "mean": round(statistics.fmean(cpu), 1),
            "p50": round(cpu[len(cpu) // 2], 1),
            "p95": round(cpu[min(len(cpu) - 1, int(len(cpu) * 0.95))], 1),
            "mean_pages_of_50_to_150_sentences": (
                round(statistics.fmean(near_100), 1) if near_100 else None
            ),
            "median_sentences": sorted(row["sentences"] for row in rows)[len(rows) // 2],
        },
    }
