"""Sentences about the page rather than its subject, which are never findings.

Pages carry furniture around what they say: bylines ("By Jane Doe, staff writer"), dates of
publication ("Published 3 May 2024", "Last updated …"), captions and credits ("Photo: …"),
sharing and navigation ("Share this", "Home › News › Climate") and sentences in which the
document describes itself ("This fact sheet summarises …", "In this article we …").
`meta_kind` recognises each by its form (what opens the sentence, how long it is, whether it
has a verb of its own), not by a list of phrases seen on some page; a sentence that merely
mentions an article or a report ("The article published in Nature found …") is a finding.
"""

from __future__ import annotations

import re
import unicodedata

from research_studio.core.chunking import split_sentences
from research_studio.core.words import words as words_of_text

# Words a page uses for itself when it describes itself.
_DOCUMENT = (
    r"(?:article|page|post|blog(?:\s+post)?|report|fact\s*sheet|factsheet|brief(?:ing)?|guide|"
    r"document|paper|study|summary|chapter|section|site|website|newsletter|booklet|leaflet|"
    r"handout|toolkit|overview|primer|explainer|piece|story|series|note|sheet|issue|edition|"
    r"publication|resource|web\s*page|webpage|faq|q&a|pdf)"
)
# Verbs by which a document presents itself (not verbs of finding: "This study found …").
_PRESENTS = (
    r"(?:summari[sz]es?|describes?|explains?|covers?|outlines?|presents?|provides?|introduces?|"
    r"gives?|offers?|sets\s+out|looks\s+at|discusses?|reviews?|examines?|explores?|highlights?|"
    r"answers?|collects?|compares?|contains?|includes?|lists?|focuses|aims|draws\s+on|"
    r"is\s+(?:intended|designed|meant)|"
    r"was\s+(?:last\s+|first\s+|originally\s+)?(?:written|prepared|produced|updated|published|reviewed)|will|is\s+part\s+of|"
    r"is\s+for|is\s+based\s+on|brings\s+together)"
)
_SELF_SUBJECT = re.compile(
    rf"^(?:this|the\s+present|the\s+following|our)\s+(?:\w+\s+){{0,2}}?{_DOCUMENT}s?"
    rf"\s+(?:\w+\s+){{0,2}}?{_PRESENTS}\b",
    re.IGNORECASE,
)
# "In this article we …", "Below, we …", "Here we look at …", "In the sections that follow, …"
_SELF_FRAME = re.compile(
    rf"^(?:in|on|throughout|across)\s+(?:this|the\s+following|the\s+present)\s+(?:\w+\s+)?{_DOCUMENT}s?"
    r"\b[,\s]+(?:we|i|you)\b"
    r"|^(?:below|here|in\s+what\s+follows|in\s+the\s+sections?\s+(?:below|that\s+follows?))"
    r"[,\s]+(?:we|i)\s+(?:will\s+|'ll\s+)?(?:look|explain|describe|summari[sz]e|outline|discuss|"
    r"explore|set\s+out|cover|show|present|review)\b",
    re.IGNORECASE,
)
_NAME = r"(?:[A-Z][\w'’.-]*|de|van|von|da|di|la|le|bin|al)"
# "By Jane Doe", "Written by J. Smith and Ann Lee", "Reporting by …", "Author: …"
_BYLINE = re.compile(
    rf"^(?i:by|written\s+by|words\s+by|reporting\s+by|text\s+by|story\s+by|posted\s+by|"
    rf"compiled\s+by|edited\s+by|authors?\s*:|byline\s*:)\s+{_NAME}(?:\s+{_NAME}){{0,4}}"
    rf"(?:\s*(?:,|and|&)\s*{_NAME}(?:\s+{_NAME}){{0,4}})*\s*(?:[,|–—-]\s*(?P<rest>.*))?$",
)
_MONTH = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
    r"sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
)
_DATE = rf"(?:\d{{1,2}}\s+{_MONTH}\s+\d{{4}}|{_MONTH}\s+\d{{1,2}},?\s+\d{{4}}|{_MONTH}\s+\d{{4}}|\d{{4}}-\d{{2}}-\d{{2}}|\d{{1,2}}[/.]\d{{1,2}}[/.]\d{{2,4}}|\d{{4}})"
# "Published 3 May 2024", "Last updated: June 2023", "Posted on 2024-05-03 by …"
_DATELINE = re.compile(
    rf"^(?:(?:first\s+|originally\s+)?published|(?:last\s+)?(?:updated|modified|reviewed|revised)|"
    rf"posted|released|issued|page\s+last\s+(?:updated|reviewed)|date)\s*(?:on|:)?\s*(?:\d{{1,2}}:\d{{2}}\s*[A-Z]{{0,4}},?\s*)?{_DATE}"
    r"(?=\s*(?:$|[,|·•–—:.-]|by\b|at\b|in\b|\d{1,2}:\d{2}))",
    re.IGNORECASE,
)
_LAST_UPDATED = re.compile(
    r"^(?:last|page\s+last)\s+(?:updated|modified|reviewed)\b", re.IGNORECASE
)
# "Photo: Jane Doe/Reuters", "Image credit – …", "Caption: …"
_CAPTION = re.compile(
    r"^(?:photo(?:graph)?|image|picture|illustration|video|graphic|credit|caption|"
    r"(?:photo|image|picture)\s+(?:credit|courtesy|source))s?\s*(?:credit)?\s*[:–—|-]",
    re.IGNORECASE,
)
# "Share this", "Share on Facebook", "Print this page", "Read more", "Related articles"
_SHARING = re.compile(
    r"^(?:share|tweet|print|email|save|bookmark|download|subscribe|read\s+more|see\s+also|"
    r"related(?:\s+\w+)?|back\s+to\s+top|skip\s+to\s+(?:main\s+)?content|jump\s+to)\b",
    re.IGNORECASE,
)
_CRUMB_SEPARATOR = re.compile(r"\s+(?:[›»>|/→]|::)\s+")
SHORT_WORDS = 8  # furniture is short; a long sentence opening "Share" is prose
CRUMB_WORDS = 4
ROLE_WORDS = 4


def _crumbs(sentence: str) -> bool:
    """A trail of short links: "Home › News › Climate", "Health / Heat / Fact sheets"."""
    parts = [part for part in _CRUMB_SEPARATOR.split(sentence.strip(" .")) if part.strip()]
    return len(parts) >= 3 and all(
        len(words_of_text(part)) <= CRUMB_WORDS and not re.search(r"[.!?]$", part.strip())
        for part in parts
    )


def meta_kind(sentence: str) -> str | None:
    """What kind of page furniture the sentence is ("byline", "dateline", …), or None."""
    text = " ".join(unicodedata.normalize("NFKC", sentence).split()).strip(" \"'“”‘’*_")
    words = len(words_of_text(text))
    if not words:
        return None
    byline = _BYLINE.match(text)
    # What follows the name is a role, an outlet or a date ("staff writer", "Reuters, 3 May").
    role = re.sub(_DATE, " ", byline.group("rest") or "", flags=re.IGNORECASE) if byline else ""
    if byline and len(words_of_text(role)) <= ROLE_WORDS:
        return "byline"
    if _DATELINE.match(text) or (_LAST_UPDATED.match(text) and words <= SHORT_WORDS * 2):
        return "dateline"
    if _CAPTION.match(text):
        return "caption"
    if _SHARING.match(text) and words <= SHORT_WORDS and not re.search(r"\d", text):
        return "sharing"
    if _crumbs(text):
        return "navigation"
    if _SELF_SUBJECT.match(text) or _SELF_FRAME.match(text):
        return "about the page"
    return None


def furniture_kind(text: str) -> str | None:
    """The kind of the text's first sentence that is page furniture, or None."""
    return next(
        (kind for sentence in split_sentences(text) or [text] if (kind := meta_kind(sentence))),
        None,
    )


def is_meta(text: str) -> bool:
    """Whether any sentence of the text is page furniture rather than a finding."""
    return furniture_kind(text) is not None
