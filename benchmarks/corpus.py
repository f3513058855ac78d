"""Real text for the local search bench, and question-style queries drawn from it.

The corpus is the Python documentation that Debian ships (`apt-get install python3-doc`, HTML under
/usr/share/doc/python3*/html) plus the Debian Reference when installed (`debian-reference-en`).
Without them it falls back to a smaller real corpus that every Python has: the docstrings of the
standard library's modules, classes and functions. Past the size of the real text, documents are
made of real paragraphs drawn at random (seeded), so word frequencies stay those of real prose.
"""

from __future__ import annotations

import ast
import json
import random
import re
import sysconfig
from collections.abc import Iterator
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

from research_studio.core.words import stop_words

DOC_ROOTS = [
    *sorted(Path("/usr/share/doc").glob("python3*/html")),
    Path("/usr/share/doc/debian-reference-en"),
    Path("/usr/share/debian-reference"),
]
# Extracting the text takes a minute: it is kept here between runs.
CACHE = Path.home() / ".cache" / "research-studio-bench"
_SKIP_TAGS = {"script", "style", "nav", "header", "footer"}
_BLOCK_TAGS = {"p", "li", "dd", "dt", "pre", "h1", "h2", "h3", "h4", "td", "div", "section"}
_WORD = re.compile(r"[A-Za-z][a-z]{3,}")


class _TextOf(HTMLParser):
    """Paragraph text of an HTML page (no markup, no scripts or navigation)."""

    def __init__(self) -> None:
        super().__init__()
        self.paragraphs: list[str] = []
        self._current: list[str] = []
        self._skipping = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _SKIP_TAGS:
            self._skipping += 1
        elif tag in _BLOCK_TAGS:
            self._end_paragraph()

    def handle_endtag(self, tag: str) -> None:
        if tag in _SKIP_TAGS:
            self._skipping = max(0, self._skipping - 1)
        elif tag in _BLOCK_TAGS:
            self._end_paragraph()

    def handle_data(self, data: str) -> None:
        if not self._skipping:
            self._current.append(data)

    def _end_paragraph(self) -> None:
        text = " ".join("".join(self._current).split())
        self._current = []
        if len(text) >= 40:
            self.paragraphs.append(text)


@dataclass
class Corpus:
    """Paragraphs of real text and where they came from."""

    name: str
    paragraphs: list[str]

    @property
    def characters(self) -> int:
        return sum(len(paragraph) for paragraph in self.paragraphs)


def _html_paragraphs(roots: list[Path]) -> Iterator[str]:
    pages = {page.resolve() for root in roots for page in root.rglob("*.html")}  # links repeat
    for page in sorted(pages):
        parser = _TextOf()
        try:
            parser.feed(page.read_text(encoding="utf-8", errors="replace"))
        except (OSError, ValueError):
            continue
        yield from parser.paragraphs


def _docstring_paragraphs() -> Iterator[str]:
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    for source in sorted(stdlib.glob("*.py")):
        try:
            tree = ast.parse(source.read_text(encoding="utf-8", errors="replace"))
        except (SyntaxError, ValueError, OSError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                for block in (ast.get_docstring(node) or "").split("\n\n"):
                    text = " ".join(block.split())
                    if len(text) >= 40:
                        yield text


def load_corpus() -> Corpus:
    """The Debian documentation when installed, else the standard library's docstrings."""
    roots = list(dict.fromkeys(root.resolve() for root in DOC_ROOTS if root.is_dir()))
    cache = CACHE / "corpus.json"
    key = [str(root) for root in roots]
    if cache.is_file():
        stored = json.loads(cache.read_text())
        if stored["roots"] == key:
            return Corpus(stored["name"], stored["paragraphs"])
    paragraphs = list(dict.fromkeys(_html_paragraphs(roots))) if roots else []
    corpus = _chosen(roots, paragraphs)
    CACHE.mkdir(parents=True, exist_ok=True)
    cache.write_text(
        json.dumps({"roots": key, "name": corpus.name, "paragraphs": corpus.paragraphs})
    )
    return corpus


def _chosen(roots: list[Path], paragraphs: list[str]) -> Corpus:
    if len(paragraphs) >= 5000:
        return Corpus("Debian documentation: " + ", ".join(map(str, roots)), paragraphs)
    return Corpus(
        "docstrings of the Python standard library (fallback)", list(_docstring_paragraphs())
    )


class CorpusWriter:
    """Writes Markdown files of the corpus into a folder, growing it to a number of chunks.

    The real paragraphs are written in order first; past them, paragraphs are drawn at random.
    """

    def __init__(self, corpus: Corpus, folder: Path, chunk_size: int, seed: int = 7) -> None:
        self.corpus = corpus
        self.folder = folder
        self.chunk_size = chunk_size
        self.documents = 0
        self.reused = False  # whether any paragraph was drawn at random
        self._rng = random.Random(seed)
        self._position = 0
        self._written = 0
        folder.mkdir(parents=True, exist_ok=True)

    def _paragraph(self) -> str:
        if self._position < len(self.corpus.paragraphs):
            self._position += 1
            return self.corpus.paragraphs[self._position - 1]
        self.reused = True
        return self._rng.choice(self.corpus.paragraphs)

    def grow(self, chunks: int) -> None:
        """Add files until the folder holds about `chunks` chunks (about ten per file)."""
        while self._written < chunks * self.chunk_size:
            parts: list[str] = []
            size = 0
            while size < 10 * self.chunk_size:
                parts.append(self._paragraph())
                size += len(parts[-1]) + 2
            text = f"# Document {self.documents}\n\n" + "\n\n".join(parts)
            (self.folder / f"doc-{self.documents:07d}.md").write_text(text)
            self._written += size
            self.documents += 1


_FORMS = [
    "How does {0} work with {1}?",
    "What is the difference between {0} and {1} in {2}?",
    "Why would {0} fail when {1} is {2}?",
    "How do I configure {0} for {1} and {2}?",
    "What does {0} return for {1}?",
    "When should I use {0} instead of {1} with {2}?",
]


def questions(corpus: Corpus, count: int, seed: int = 11) -> list[str]:
    """Question-style queries whose content words come from real paragraphs of the corpus."""
    rng = random.Random(seed)
    asked: list[str] = []
    while len(asked) < count:
        words = [
            word.lower()
            for word in _WORD.findall(rng.choice(corpus.paragraphs))
            if word.lower() not in stop_words()
        ]
        if len(words) < 3:
            continue
        form = rng.choice(_FORMS)
        asked.append(form.format(*rng.sample(words, 3)))
    return asked
