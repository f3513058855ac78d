"""Names written another way: an acronym for the name it abbreviates, a surname for a full name.

A writer says "NASA" where the source says "National Aeronautics and Space Administration"
(or the reverse), and "Winslet" in a sentence where the source introduced "Kate Winslet"
earlier. `name_runs` finds a text's runs of capitalised words ("Democratic National
Committee", "Department of Defense"), `acronyms` the initials they are abbreviated by ("DNC",
"DoD"), and `written_acronyms` the acronyms a text writes. Only whole names count: "US" is
"United States" only where the text writes "US" in capitals, never the pronoun "us".
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from research_studio.grounding.dates import MONTH_WORDS
from research_studio.grounding.quotes import fold
from research_studio.grounding.terms import word_set

# Small words inside a name ("Bank of England", "Organisation for Economic Co-operation and
# Development"); a run never starts or ends with one.
_CONNECTORS = word_set("of and for the de du la le von van der den on in at to &")
# Capitalised words that open a sentence rather than a name ("The National Gallery").
OPENERS = word_set("the a an in on at for by of and but as this that these those")
_CAPITAL = r"(?:[A-Z]\.|[A-ZÀ-ÖØ-ÞА-ЯЁΑ-Ω][\w'\u2019-]*)"
# Between two capitalised words of one name: "of", "of the", "and", "&" … (never "and the",
# which joins two names).
_LINK = r"(?:(?:of|for|on|at|to|in|de|du|von|van)(?:[ \t]+(?:the|la|le|der|den))?|and|&|the)"
_RUN = re.compile(rf"(?<![\w'\u2019-]){_CAPITAL}(?:[ \t]+(?:{_LINK}[ \t]+)?{_CAPITAL})+")
# An acronym as written: two capitals or more, lower-case letters between allowed ("DoD").
_ACRONYM = re.compile(r"(?<![\w-])([A-Z][A-Za-z&]*[A-Z]s?)(?![\w-])")
# Sub-runs of a longer name abbreviate to at least this many letters ("ICRC" inside "IEEE
# International Conference on Rebooting Computing"); a two-letter acronym only a whole run or
# its opening words.
_MIN_PART_ACRONYM = 3
_MAX_RUN = 12


def _clean(token: str) -> str:
    return re.sub(r"(?:'s|\u2019s|[.'\u2019])$", "", token)


def name_runs(text: str) -> list[tuple[str, ...]]:
    """Runs of capitalised words (with small connecting words inside), each of two capitalised
    words or more, broken at any punctuation: "Tom Perez, the chairman of the Democratic
    National Committee" → ("Tom", "Perez"), ("Democratic", "National", "Committee")."""
    runs = []
    for match in _RUN.finditer(text):
        run = [_clean(token) for token in match.group(0).split()]
        while run and run[0].lower() in OPENERS:
            run.pop(0)  # "The National Gallery": a sentence's first word, no initial
        while run and run[0].lower() in _CONNECTORS:
            run.pop(0)
        run = [token for token in run if token]
        if sum(1 for word in run if word[0].isupper()) >= 2:
            runs.append(tuple(run[:_MAX_RUN]))
    return runs


_OPENING = re.compile(r"\s*((?:[A-Z][\w'\u2019.-]*[ \t]+)+[A-Z][\w'\u2019-]*)\b")


def opening_name(text: str) -> tuple[str, ...]:
    """The full name a text opens with, two capitalised words or more one after another
    ("Pierre Curie moved …"); none for "Born in Warsaw, …" or "In 2019 …"."""
    match = _OPENING.match(text)
    if not match:
        return ()
    # Not the name's: an article or a title ("The Eiffel Tower", "Dr. Rachel Kim").
    words = [w for w in match.group(1).split() if w.lower() not in OPENERS and w[-1] != "."]
    return tuple(words) if len(words) >= 2 else ()


def acronyms(run: tuple[str, ...], *, whole: bool = True) -> set[str]:
    """The acronyms a run of name words is abbreviated by, lower-case: the initials of its
    capitalised words ("nasa") and of all its words ("dod" for "Department of Defense")."""
    capitals = "".join(word[0] for word in run if word[0].isupper())
    every = "".join(word[0] for word in run if word != "&")
    least = 2 if whole else _MIN_PART_ACRONYM
    return {form.lower() for form in (capitals, every) if len(form) >= least}


def run_acronyms(run: tuple[str, ...]) -> set[str]:
    """The acronyms of a run and of each stretch of it that starts and ends with a capital
    ("ICRC" in "IEEE International Conference on Rebooting Computing")."""
    found = acronyms(run)
    for start in range(len(run)):
        for end in range(start + 2, len(run) + 1):
            piece = run[start:end]
            if (start, end) != (0, len(run)) and piece[0][0].isupper() and piece[-1][0].isupper():
                # A run's opening words are a name of their own ("United States" in
                # "United States Senate"): two letters do for them.
                found |= acronyms(piece, whole=start == 0)
    return found


@lru_cache(maxsize=8192)
def expansions(text: str) -> frozenset[str]:
    """The acronyms of every name a text spells out (cached: pages are checked many times)."""
    return frozenset(form for run in name_runs(text) for form in run_acronyms(run))


_LOWER_WORD = re.compile(r"[a-z][a-z-]*[a-z]")
_SMALL = word_set("of and for the a an in on at to by with from or as is are was were")


@lru_cache(maxsize=8192)
def spelled_in_lower_case(text: str) -> frozenset[str]:
    """The acronyms of three or four words a text writes in lower case, one after another and
    none a small word ("cfo" for "chief financial officer", "gdp" for "gross domestic
    product")."""
    tokens = text.split()
    found = set()
    for start in range(len(tokens)):
        letters = ""
        for token in tokens[start : start + 4]:
            word = token.strip("\"'(),.;:")
            if not _LOWER_WORD.fullmatch(word) or word in _SMALL:
                break
            letters += word[0]
            if len(letters) >= 3:
                found.add(letters)
            if token != word and not token.endswith(word):
                break  # punctuation after the word ends the name
    return frozenset(found)


def acronym_key(word: str) -> str:
    """A word written as an acronym, lower-case and singular ("NGOs" → "ngo", "DoD" → "dod");
    empty for any other word."""
    if not _ACRONYM.fullmatch(word) or sum(1 for char in word if char.isupper()) < 2:
        return ""
    return re.sub(r"(?<=[A-Z])s$", "", word).lower()


# An acronym written with full stops ("U.S.", "A.V."): its letters are the acronym.
_DOTTED = re.compile(r"(?<![\w.])((?:[A-Z]\.){2,})")


@lru_cache(maxsize=8192)
def written_acronyms(text: str) -> frozenset[str]:
    """The acronyms a text writes in capitals, lower-case ("NASA" → "nasa", "U.S." → "us")."""
    keys = {acronym_key(match.group(1)) for match in _ACRONYM.finditer(text)}
    keys |= {match.group(1).replace(".", "").lower() for match in _DOTTED.finditer(text)}
    return frozenset(key for key in keys if key)


def folded_name(text: str) -> str:
    """A text folded for comparing names: case, typography and diacritics ("Bayamón" is
    "bayamon": a name is the same name written without its accents)."""
    folded = unicodedata.normalize("NFKD", fold(text)[0])
    return "".join(char for char in folded if not unicodedata.combining(char))


@lru_cache(maxsize=16)
def folded_source(text: str) -> str:
    """A source folded for finding names in it (cached: one page, many statements)."""
    return folded_name(text)


def names_in(text: str, folded: str) -> bool:
    """Whether the folded source gives this name whole ("kate winslet")."""
    name = folded_name(text)
    return bool(re.search(rf"(?<!\w){re.escape(name)}(?!\w)", folded))


# A web address's host ("https://music.avclub.com/…", "www.nytimes.com"): its labels name the
# publication or body that runs it.
_HOST = re.compile(r"(?i)(?:https?://|\bwww\.)((?:[a-z0-9-]+\.)+[a-z]{2,})")
_LETTERS = re.compile(r"[^\w]|_")
_WORD = re.compile(r"[^\W\d_]+")


@lru_cache(maxsize=16)
def address_labels(text: str) -> frozenset[str]:
    """The labels of the hosts of a text's web addresses, lower-case ("avclub", "music")."""
    return frozenset(
        label
        for host in _HOST.findall(text)
        for label in host.lower().split(".")
        if len(label) >= 4
    )


def named_in_address(statement: str, labels: frozenset[str]) -> set[str]:
    """The words of the statement's names that a web address of the source writes joined:
    "The A.V. Club" is the "avclub" of "music.avclub.com". Only a whole label counts, made
    of two words or more that follow each other, each starting with a capital ("Club" alone
    is no "avclub")."""
    if not labels:
        return set()
    tokens = statement.split()
    letters = [_LETTERS.sub("", folded_name(token)) for token in tokens]
    found: set[str] = set()
    for start in range(len(tokens)):
        for end in range(start + 2, min(len(tokens), start + 5) + 1):
            stretch = tokens[start:end]
            if not all(token.lstrip("\"'\u201c(")[:1].isupper() for token in stretch):
                break
            joined = "".join(letters[start:end])
            dropped = "".join(letters[start + 1 : end]) if letters[start] == "the" else ""
            if joined in labels or dropped in labels:
                found.update(word for token in stretch for word in _WORD.findall(token))
    return found


# A people or its adjective and the place it is of: (the place's ending, the people's) by rule
# ("Asia" ~ "Asian", "Italy" ~ "Italian", "China" ~ "Chinese", "Israel" ~ "Israeli", "Sweden"
# ~ "Swedish", "Texas" ~ "Texan"), the rest by the few forms no rule reaches.
_DEMONYM_ENDINGS = (
    ("a", "an"), ("a", "ian"), ("a", "ese"), ("y", "ian"), ("y", ""), ("o", "an"),
    ("e", "an"), ("e", "ean"), ("e", "ian"), ("", "ian"), ("", "ese"), ("", "i"),
    ("en", "ish"), ("s", "n"),
)  # fmt: skip
_IRREGULAR_PLACES = (
    "france french", "britain british", "netherlands dutch", "holland dutch",
    "spain spanish spaniard", "denmark danish", "poland polish", "switzerland swiss",
    "greece greek", "turkey turkish", "wales welsh", "ireland irish", "scotland scottish",
    "england english", "philippines filipino philippine", "thailand thai",
    "portugal portuguese", "peru peruvian", "finland finnish", "norway norwegian",
    "iceland icelandic", "belgium belgian", "arabia arab arabian", "afghanistan afghan",
    "lebanon lebanese", "cyprus cypriot", "argentina argentine", "london londoner",
)  # fmt: skip
_IRREGULAR: dict[str, frozenset[str]] = {}
for _group in _IRREGULAR_PLACES:
    for _word in _group.split():
        _IRREGULAR[_word] = _IRREGULAR.get(_word, frozenset()) | set(_group.split()) - {_word}
_MIN_BASE = 3


@lru_cache(maxsize=8192)
def place_forms(word: str) -> frozenset[str]:
    """The lower-case words that name the same place or its people as this one ("asia" for
    "Asian", "asian" for "Asia"); none for a word under four letters."""
    lowered = word.lower()
    if len(lowered) < 4 or not lowered.isalpha():
        return frozenset()
    forms = set(_IRREGULAR.get(lowered, ()))
    for place, people in _DEMONYM_ENDINGS:
        for have, want in ((place, people), (people, place)):
            base = lowered[: len(lowered) - len(have)]
            if lowered.endswith(have) and len(base) >= _MIN_BASE:
                forms.add(base + want)
    return frozenset(form for form in forms if len(form) >= 4) - {lowered} - MONTH_WORDS


# A capitalised word a lower-case word follows: a people's adjective ("Asian demand"), not a
# first name ("Julian Assange"), whose place forms may stand for it.
_ADJECTIVE = re.compile(r"(?<![\w'\u2019-])([A-Z][a-z]{3,})(?=[ \t]+[a-z])")


def adjective_names(text: str) -> frozenset[str]:
    """The capitalised words a text uses before a lower-case word ("Asian" in "Asian
    demand"): the names a place form of the source may give."""
    return frozenset(_ADJECTIVE.findall(text))
