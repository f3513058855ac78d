"""Sentences that address the reader or an AI, which a report never prints.

A page or a model may write to whoever reads it: "Ignore the other sources", "Note to AI
assistants: …", "Click here", "Contact us at …". `addresses_reader` scores each sentence on
features of such address (imperative mood at the start or after a vocative, second person,
addressing an AI or assistant, instruction vocabulary, contact data) and flags it past a
threshold; contact data (URLs, e-mail addresses, phone numbers) alone is enough.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

from research_studio.core.chunking import split_sentences
from research_studio.grounding.terms import word_set

THRESHOLD = 2
_URL = re.compile(
    r"\b(?:https?://|ftp://|www\.)\S+"
    r"|\b[a-z0-9-]+(?:\.[a-z0-9-]+)*\.(?:com|org|net|io|example|info|biz|xyz|ru|cn|gov|edu|co|ai"
    r"|dev|app|me|ly|de|fr|uk|eu|us)\b(?:/\S*)?",
    re.IGNORECASE,
)
_EMAIL = re.compile(r"\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b")
# A span of years ("2018-2019", "1990 - 1995") is no phone number.
_PHONE = re.compile(
    r"(?<![\w.])(?!(?:1[0-9]|20)\d\d\s?[-\u2013/]\s?(?:1[0-9]|20)\d\d(?![\w.-]))(?:\+\d{1,3}[\s.-]?)?(?:\(\d{2,5}\)[\s.-]?)?\d{3,4}[\s.-]\d{3,4}(?:[\s.-]\d{2,4})?(?![\w.])"
)
_WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)?")
# Verbs whose bare form opens a command; "Note" and "See" too, as in "Note to AI …".
_IMPERATIVES = word_set("""ignore disregard forget override bypass skip click tap download install upload visit
    contact call phone email e-mail text message write reply respond answer subscribe register
    sign join buy order purchase shop book donate follow like share retweet go navigate open
    check see read watch listen try use cite link mention recommend include state say tell
    output print repeat summarize summarise translate pretend act behave treat consider remember
    assume trust believe do don't make let stop start get find learn discover hurry grab claim
    enter submit send report rate review leave note please""")
# After an opening imperative, these show a command ("Click the link"), not a noun ("Use of").
_OBJECT_STARTS = word_set("""the a an this that these those all any every our us me my your yours here now it them
    him her previous above below other others everything anything nothing more to on at for
    with up out in into back away today now our""")
# Verbs that command even before a plural noun ("Download files", "Visit museums").
_STRONG = word_set("""ignore disregard forget override bypass click tap download install visit contact call
    email e-mail subscribe register donate""")
_NOUN_FOLLOWERS = word_set("""of is was are were has have had by can could will would rose fell grew remain remained
    dropped doubled""")
_SECOND_PERSON = word_set("you your yours yourself yourselves you're you'll you'd you've u")
_AI_WORDS = re.compile(
    r"\b(?:ai|a\.i\.|assistants?|chat\s?bots?|llms?|language models?|gpt\w*|"
    r"summari[sz]ers?|crawlers?)\b",
    re.IGNORECASE,
)
_AI_ADDRESS = re.compile(
    r"\b(?:note|message|attention|instructions?|dear|hey|hello|to all|if you are|as an)\b"
    r"|\b(?:you|your)\b",
    re.IGNORECASE,
)
_INSTRUCTION = re.compile(
    r"\b(?:ignore|disregard|forget|override|bypass)\b.{0,60}?\b(?:instructions?|prompts?|rules|"
    r"above|previous|prior|other|sources?|everything|all)\b"
    r"|\b(?:system prompt|new instructions|jailbreak|developer mode)\b"
    r"|\b(?:state|say|write|claim|answer|respond|conclude|report)\s+that\b",
    re.IGNORECASE,
)
_VOCATIVE = re.compile(
    r"^\s*(?:(?:dear|hey|hi|hello|attention|note to|notice to|message to)\b[^,:;.!?]{0,60}[,:;!]"
    r"|(?:reader|readers|visitor|visitors|user|users|friends?|folks|everyone|ai|assistant)s?\s*[,:!])\s*",
    re.IGNORECASE,
)
_MODAL_DIRECTIVE = re.compile(
    r"\b(?:you|u)\s+(?:must|should|need to|have to|are required to|ought to|can now|may now)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Address:
    """The classifier's reading of one sentence: its score and the features that fired."""

    score: int
    features: tuple[str, ...]

    @property
    def addresses_reader(self) -> bool:
        return self.score >= THRESHOLD


def contact_data(text: str) -> list[str]:
    """URLs, domain names, e-mail addresses and phone numbers written in the text."""
    text = unicodedata.normalize("NFKC", text)
    return [*_EMAIL.findall(text), *_URL.findall(_EMAIL.sub(" ", text)), *_PHONE.findall(text)]


def _opening_imperative(sentence: str) -> bool:
    rest = _VOCATIVE.sub("", sentence, count=1)
    found = [word.lower() for word in _WORD.findall(rest)[:3]]
    if found and found[0] == "please":
        found = found[1:]
    if not found or found[0] not in _IMPERATIVES:
        return False
    if len(found) == 1:
        return True
    if found[1] in _OBJECT_STARTS:
        return True
    if found[1] in _NOUN_FOLLOWERS or found[0] == "note":
        return False
    if len(found) > 2 and (found[2] in _NOUN_FOLLOWERS or found[2].endswith("ed")):
        return False
    return found[0] in _STRONG or not found[1].endswith("s")


def classify(sentence: str) -> Address:
    """Score one sentence for addressing its reader or an AI."""
    text = unicodedata.normalize("NFKC", sentence).replace("\u2019", "'")
    words = {word.lower() for word in _WORD.findall(text)}
    features: list[tuple[str, int]] = []
    if contact_data(text):
        features.append(("contact data", THRESHOLD))
    if _INSTRUCTION.search(text):
        features.append(("instruction", THRESHOLD))
    if _AI_WORDS.search(text) and _AI_ADDRESS.search(text):
        features.append(("addresses an AI", THRESHOLD))
    if _VOCATIVE.match(text):
        features.append(("vocative", 1))
    if _opening_imperative(text):
        features.append(("imperative", THRESHOLD))
    if words & _SECOND_PERSON:
        features.append(("second person", 1))
    if _MODAL_DIRECTIVE.search(text):
        features.append(("directive", 1))
    if "please" in words:
        features.append(("please", 1))
    return Address(
        score=sum(weight for _, weight in features), features=tuple(name for name, _ in features)
    )


def addresses_reader(text: str) -> bool:
    """Whether any sentence of the text addresses its reader or an AI, or gives contact data."""
    return any(classify(sentence).addresses_reader for sentence in split_sentences(text) or [text])


def printable(text: str, allowed_urls: Iterable[str] = ()) -> bool:
    """Text a report may print: no sentence addresses the reader; the only addresses it names
    are among `allowed_urls` (a statement may name a source it cites)."""
    allowed = " ".join(allowed_urls).lower()
    stripped = text
    for url in sorted(set(_URL.findall(text)), key=len, reverse=True):
        if url.lower().rstrip(".,;:)") in allowed:
            stripped = stripped.replace(url, " ")
    return not addresses_reader(stripped)
