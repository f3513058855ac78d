"""A scripted model for another agent's calls (open_deep_research in the bench): every reply is
computed from the request alone — the tools it offers, the schema it asks for, its prompt text —
with no knowledge of the agent's prompts, so the agent runs its own loop against it.

- Tools offered: a conversation that holds fewer than `rounds` tool results calls the first tool
  that has required arguments (a tool that does work, e.g. a search); after that, the first tool
  with none (a "done" signal such as ResearchComplete), or answers in text where there is none.
  A tool named by `tool_choice` is always the one called.
- A JSON schema asked for (`response_format`): an object filled from the schema.
- Otherwise: a Markdown answer.

Text is copied from the prompt, as a model that writes from what it was shown: the sentences
that share the most words with the question, in prompt order, each citing the last URL seen
before it; lists of strings (search queries) are the question and the leading words of those
sentences that bring new words. Booleans are false (no clarification asked), numbers their default or minimum.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from tests.doubles.fake_chat import ChatToolCall

from research_studio.core.chunking import split_sentences
from research_studio.core.words import stop_words

JSON = dict[str, Any]
_WORD = re.compile(r"[a-z0-9]+")
_URL = re.compile(r"https?://[^\s<>\"')\]]+")
_NUMBERED = re.compile(r"^\s*\[(\d+)\]\s*(?:[^\n]*?:\s*)?(https?://[^\s<>\"')\]]+)", re.MULTILINE)
_MARKER = re.compile(r"\s*\[(\d+)\]")
_TAG = re.compile(r"</?[A-Za-z_][\w-]*>")


def _sentences(prompt: str) -> list[str]:
    """The prompt's sentences, line by line, without markup tags, headings or rules."""
    found = []
    for line in prompt.splitlines():
        text = _TAG.sub(" ", line).strip()
        if text[:1].isalnum() or text.startswith("["):  # no heading, rule or list marker
            found.extend(split_sentences(text))
    return found


def _terms(text: str) -> set[str]:
    return {word for word in _WORD.findall(text.lower()) if len(word) > 2} - stop_words()


def _content(message: JSON) -> str:
    content = message.get("content")
    if isinstance(content, list):  # multi-part content: its text parts
        return "\n".join(str(part.get("text") or "") for part in content if isinstance(part, dict))
    return content if isinstance(content, str) else ""


@dataclass
class SchemaResponder:
    """`responder(request)` for tests.doubles.fake_chat.ChatEndpoint."""

    question: str
    rounds: int = 1  # tool results a conversation gathers before it signals that it is done
    list_items: int = 3  # items of a list argument, e.g. search queries
    field_words: int = 60  # a string argument or field, at most
    answer_words: int = 300  # a text answer, at most

    def __call__(self, request: JSON) -> object:
        messages = [m for m in request.get("messages") or [] if isinstance(m, dict)]
        prompt = "\n\n".join(_content(message) for message in messages)
        tools = [
            tool["function"]
            for tool in request.get("tools") or []
            if isinstance(tool, dict) and isinstance(tool.get("function"), dict)
        ]
        if tools:
            results = sum(1 for message in messages if message.get("role") == "tool")
            tool = self._choose(tools, request.get("tool_choice"), results)
            if tool is not None:
                return ChatToolCall(tool["name"], self.fill(tool.get("parameters") or {}, prompt))
            return self.answer(prompt)
        response_format = request.get("response_format")
        if isinstance(response_format, dict) and response_format.get("type") == "json_schema":
            schema = (response_format.get("json_schema") or {}).get("schema") or {}
            return self.fill(schema, prompt)
        return self.answer(prompt)

    def _choose(self, tools: list[JSON], choice: object, results: int) -> JSON | None:
        """The tool to call, or None to answer in text."""
        if isinstance(choice, dict):  # {"type": "function", "function": {"name": ...}}
            named = (choice.get("function") or {}).get("name")
            return next((tool for tool in tools if tool.get("name") == named), tools[0])
        if choice == "none":
            return None
        work = [tool for tool in tools if (tool.get("parameters") or {}).get("required")]
        done = [tool for tool in tools if tool not in work]
        if results < self.rounds and work:
            return work[0]
        if done:
            return done[0]
        return tools[0] if choice in ("required", "any") else None

    def fill(self, schema: JSON, prompt: str, root: JSON | None = None) -> Any:
        """A value for a JSON schema, from the prompt."""
        root = schema if root is None else root
        reference = schema.get("$ref")
        if isinstance(reference, str) and reference.startswith("#/"):
            target: Any = root
            for key in reference[2:].split("/"):
                target = target.get(key, {}) if isinstance(target, dict) else {}
            return self.fill(target, prompt, root)
        for key in ("anyOf", "oneOf", "allOf"):
            options = [o for o in schema.get(key) or [] if o.get("type") != "null"]
            if options:
                return self.fill(options[0], prompt, root)
        if "default" in schema:
            return schema["default"]
        if schema.get("enum"):
            return schema["enum"][0]
        kind = schema.get("type")
        if isinstance(kind, list):
            kind = next((k for k in kind if k != "null"), None)
        if kind == "object" or "properties" in schema:
            properties = schema.get("properties") or {}
            return {name: self.fill(field, prompt, root) for name, field in properties.items()}
        if kind == "array":
            item = schema.get("items") or {"type": "string"}
            if item.get("type", "string") == "string" and "enum" not in item:
                return self.phrases(
                    prompt, max(1, min(self.list_items, schema.get("maxItems", 99)))
                )
            return [self.fill(item, prompt, root)]
        if kind == "boolean":
            return False
        if kind in ("integer", "number"):
            return schema.get("minimum", 1)
        return self.text(prompt, self.field_words)

    def relevant(self, prompt: str) -> list[tuple[str, tuple[str, ...]]]:
        """(sentence, the sources it cites) for the prompt's sentences that share words with the
        question, best first. A sentence cites the sources its [n] markers number in a list of
        "[n] URL" lines, else the last URL named before it."""
        return [(text, cites) for _, _, text, cites in sorted(self._scored(prompt))]

    def _scored(self, prompt: str) -> list[tuple[int, int, str, tuple[str, ...]]]:
        """(-words shared with the question, position, sentence, sources) of each relevant one."""
        numbered = {match[0]: match[1].rstrip(".,;:") for match in _NUMBERED.findall(prompt)}
        wanted = _terms(self.question)
        scored = []
        url: str | None = None
        for position, sentence in enumerate(_sentences(prompt)):
            found = _URL.findall(sentence)
            if found:
                if not _NUMBERED.match(sentence):
                    url = found[-1].rstrip(".,;:")
                continue  # a line that names a source is no statement
            overlap = len(_terms(sentence) & wanted)
            if not overlap or len(sentence.split()) < 4:  # no title or label
                continue
            markers = [numbered[n] for n in _MARKER.findall(sentence) if n in numbered]
            cites = tuple(dict.fromkeys(markers)) or ((url,) if url else ())
            scored.append((-overlap, position, _MARKER.sub("", sentence).strip(), cites))
        return scored

    def _taken(self, prompt: str, words: int) -> list[tuple[str, tuple[str, ...]]]:
        """The most relevant sentences that fit in `words`, in prompt order, each once."""
        chosen: dict[str, tuple[int, tuple[str, ...]]] = {}
        used = 0
        for _, position, sentence, cites in sorted(self._scored(prompt)):
            size = len(sentence.split())
            if sentence in chosen or (used + size > words and chosen):
                continue
            chosen[sentence] = (position, cites)
            used += size
            if used >= words:
                break
        ordered = sorted(chosen.items(), key=lambda item: item[1][0])
        return [(sentence, cites) for sentence, (_, cites) in ordered]

    def text(self, prompt: str, words: int) -> str:
        """Plain text: the question where the prompt holds nothing more relevant."""
        chosen = [sentence for sentence, _ in self._taken(prompt, words)]
        return " ".join(chosen) or self.question

    def phrases(self, prompt: str, count: int) -> list[str]:
        """Up to `count` short phrases: the question, then the leading words of relevant
        sentences that bring at least two words the phrases before them lack."""
        found, seen = [self.question], _terms(self.question)
        for sentence, _ in self.relevant(prompt):
            if len(found) >= count:
                break
            phrase = " ".join(re.sub(r"[^\w\s-]", " ", sentence).split()[:10])
            if len(_terms(phrase) - seen) >= 2:
                found.append(phrase)
                seen |= _terms(phrase)
        return found

    def answer(self, prompt: str) -> str:
        """A Markdown answer: relevant sentences, each citing its sources, then the sources."""
        sources: dict[str, int] = {}
        lines = [f"# {self.question}", ""]
        for sentence, cites in self._taken(prompt, self.answer_words):
            numbers = "".join(f" [{sources.setdefault(url, len(sources) + 1)}]" for url in cites)
            stop = sentence[-1] if sentence[-1] in ".!?" else ""
            lines.append(sentence[: len(sentence) - len(stop)] + numbers + stop)
        if sources:
            lines += ["", "### Sources", *(f"[{n}] {url}" for url, n in sources.items())]
        return "\n".join(lines)
