"""What counts as live markup in rendered HTML: a check shared by the export and web-page tests."""

from __future__ import annotations

from html.parser import HTMLParser

# Elements that run code, load something or change where the page goes.
ACTIVE_TAGS = frozenset(
    {
        "script",
        "iframe",
        "frame",
        "object",
        "embed",
        "img",
        "svg",
        "math",
        "form",
        "input",
        "button",
        "base",
        "link",
        "meta",
        "video",
        "audio",
        "source",
        "textarea",
        "select",
    }
)
SAFE_LINK_SCHEMES = ("http://", "https://", "#", "/")


class _LiveMarkup(HTMLParser):
    def __init__(self, allowed: frozenset[str]) -> None:
        super().__init__(convert_charrefs=True)
        self.allowed = allowed
        self.problems: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ACTIVE_TAGS and tag not in self.allowed:
            self.problems.append(f"<{tag}>")
        for name, value in attrs:
            text = (value or "").strip().lower()
            if name.startswith("on") or name in ("style", "srcdoc", "formaction"):
                self.problems.append(f"<{tag} {name}=…>")
            elif name in ("href", "src", "action") and not text.startswith(SAFE_LINK_SCHEMES):
                self.problems.append(f"<{tag} {name}={value!r}>")


def live_markup(html: str, *, allowed: frozenset[str] = frozenset()) -> list[str]:
    """Every active element, event handler or non-web link in `html` (empty when it is inert)."""
    parser = _LiveMarkup(allowed)
    parser.feed(html)
    parser.close()
    return parser.problems
