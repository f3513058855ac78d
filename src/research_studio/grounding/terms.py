"""The vocabulary of the support check: words, stems, synonyms, figures, polarity, entities."""

from __future__ import annotations

import re
import unicodedata
from decimal import Decimal
from functools import lru_cache

from research_studio.core import words as vocabulary
from research_studio.core.words import detect_language, match_key, stop_words
from research_studio.grounding.dates import date_figures, month_spans, quarter_figures


def words_of(text: str) -> list[str]:
    """The whitespace-separated words of a vocabulary string."""
    return text.split()


def word_set(text: str) -> frozenset[str]:
    """A vocabulary string as a set of words."""
    return frozenset(words_of(text))


_STOP = word_set("""a an the this that these those it its it's they them their there here he she his her we
    our you your i me my of in on at by for with from to into onto over under about as and or
    but nor so yet if then than because since while although though when where which who whom
    whose what why how is are was were be been being am has have had having do does did done
    can could may might must shall should will would also very more most less least much many
    some any each every all both either neither such other another same own only just even
    still too not no never any per via vs etc eg ie according show shows showed shown find
    finds found report reports reported suggest suggests suggested indicate indicates indicated
    note notes noted say says said state states stated study studies research researchers
    paper article source sources data evidence one's whether upon among between within without
    out up down off again further once now s t typically generally usually often mostly largely
    notably importantly overall however meanwhile moreover additionally furthermore similarly
    instead specifically particularly together finally first second currently recently today
    thus therefore hence several various certain few""")
# Groups whose members say the same thing; each maps to its first member.
_SYNONYMS = (
    "increase rise rose risen grow grew grown raise boost climb gain surge expand",
    "decrease fall fell fallen drop decline reduce lower cut shrink diminish lessen",
    "large big major substantial considerable significant",
    "small minor little slight modest",
    "use employ utilize utilise apply",
    "cause lead produce drive trigger",
    "help aid assist",
    "need require",
    "make create build",
    "get obtain receive",
    "begin start launch",
    "end finish stop halt",
    "buy purchase",
    "fast quick rapid",
    "people resident person population individual inhabitant",
    "cost price expense",
    "approximately about roughly around nearly almost",
    "city urban municipal",
    "risk danger hazard",
    "warm hot",
    "cool cold",
    "rate level",
    "allow permit enable",
    "ban prohibit forbid",
    "release issue publish",
    "die death dead",
    "marry married wed wedding marriage",
    "born birth",
    "win won earn earned",
    "found establish form",
    "announce reveal unveil declare",
    "executive exec",
    "hire recruit",
    "film movie",
    "song track single",
    "company firm business",
    "chairman president",
    "leave left depart quit",
    "appear feature",
    "elect elected",
    "nominate nomination",
    "perform play",
    "compete participate",
    "crazy mad insane",
    "broadcast air televise",
    "award prize trophy",
    "premiere debut",
    "describe call",
    "renovate refurbish restore",
    "several multiple numerous many",
    "affect impact",
    "occur happen",
    "document record",
    "confirm verify",
    "stay remain",
    "exceed surpass",
    "researcher scientist",
    "widespread extensive",
    "severe serious",
    "likely probable",
    "determine decide",
)
# Pairs of opposite directions: a statement on one side and a source on the other disagree.
_OPPOSITES = (
    (
        "increase rise grow raise boost climb gain surge higher more greater larger above exceed "
        "accelerate",
        "decrease fall drop decline reduce lower cut shrink diminish lessen less "
        "fewer smaller below slow",
    ),
    ("before earlier prior", "after later following"),
    ("improve better", "worsen worse deteriorate"),
    ("maximum most best", "minimum least worst"),
    ("allow permit enable", "ban prohibit forbid prevent"),
    ("success succeed", "failure fail"),
    ("positive benefit", "negative harm"),
    ("accept approve", "reject deny"),
    ("include", "exclude"),
    ("profit surplus", "loss deficit"),
    ("win victory", "lose defeat"),
    ("ahead", "behind"),
    ("mild", "severe"),
)
_NEGATORS = word_set(
    "not no never none nobody nothing neither nor without cannot cant lack lacks false untrue"
)
_NUMBER_WORDS = {
    word: index
    for index, word in enumerate(
        words_of(
            "zero one two three four five six seven eight nine ten eleven twelve thirteen "
            "fourteen fifteen sixteen seventeen eighteen nineteen twenty"
        )
    )
} | {"thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80,
     "ninety": 90, "hundred": 100, "thousand": 1000, "dozen": 12, "twice": 2, "double": 2,
     "doubled": 2, "triple": 3, "tripled": 3, "half": 0.5, "halved": 0.5}  # fmt: skip
_UNITS = {
    "%": "%", "percent": "%", "per cent": "%", "pct": "%", "percentage points": "pp",
    "percentage point": "pp", "pp": "pp", "°c": "°c", "° c": "°c", "degrees celsius": "°c",
    "°f": "°f", "degrees": "°", "°": "°", "x": "x", "×": "x", "times": "x", "fold": "x",
    "km": "km", "kilometres": "km", "kilometers": "km", "m": "m", "metres": "m", "meters": "m",
    "cm": "cm", "mm": "mm", "kg": "kg", "g": "g", "tons": "t", "tonnes": "t", "t": "t",
    "kwh": "kwh", "mwh": "mwh", "gwh": "gwh", "twh": "twh", "kw": "kw", "mw": "mw", "gw": "gw",
    "ms": "ms", "seconds": "s", "minutes": "min", "hours": "h", "days": "day", "day": "day",
    "weeks": "week", "months": "month", "years": "year", "year": "year", "million": "million",
    "billion": "billion", "bn": "billion", "trillion": "trillion", "thousand": "thousand", "gb": "gb", "mb": "mb",
    "tb": "tb", "usd": "$", "dollars": "$", "eur": "€", "euros": "€",
}  # fmt: skip
_UNIT_PATTERN = "|".join(
    re.escape(unit) for unit in sorted(_UNITS, key=len, reverse=True) if unit not in {"%", "°"}
)
_FIGURE = re.compile(
    r"(?:(?P<currency>[$€£])\s?)?(?<![\w.])(?:v(?=\d))?(?P<number>\d+(?:[.,]\d+)*)"
    rf"\s?(?P<unit>%|°\s?[cf]\b|°|(?:{_UNIT_PATTERN})(?![\w]))?"
    r"(?:\s(?P<money>(?:US\s|U\.S\.\s)?dollars|euros|pounds\ssterling)\b)?",
    re.IGNORECASE,
)
_MONEY = {"dollars": "$", "euros": "€", "sterling": "£"}
CURRENCIES = frozenset("$€£")
_TENS = "twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety"
_ONES = "one|two|three|four|five|six|seven|eight|nine"
# A word starts after no letter nor combining mark: "Kvb\u0301one" holds no "one".
_WORD_START = r"(?<![\w\u0300-\u036f])"
# "twenty-one" is one figure, 21, never 20 and 1.
_WORD_FIGURE = re.compile(
    rf"{_WORD_START}(?P<number>(?:{_TENS})[-\s](?:{_ONES})|"
    + "|".join(_NUMBER_WORDS)
    + rf")\b\s?(?P<unit>%|(?:{_UNIT_PATTERN})(?!\w))?",
    re.IGNORECASE,
)


_ORDINALS = {
    word: index
    for index, word in enumerate(
        words_of(
            "zeroth first second third fourth fifth sixth seventh eighth ninth tenth eleventh "
            "twelfth thirteenth fourteenth fifteenth sixteenth seventeenth eighteenth "
            "nineteenth twentieth"
        )
    )
} | {"thirtieth": 30, "fortieth": 40, "fiftieth": 50, "sixtieth": 60, "seventieth": 70,
     "eightieth": 80, "ninetieth": 90, "hundredth": 100}  # fmt: skip
# Ordinal words are figures, as number words are ("third" = 3rd, "fourth" never 3rd); "first"
# and "second" alone only in a source: in a statement they often mean "earliest" or a unit of
# time, no count to verify.
_ORDINAL_FIGURE = re.compile(
    rf"{_WORD_START}(?:(?P<tens>{_TENS})[-\s])?(?P<ordinal>"
    + "|".join(sorted(_ORDINALS, key=len, reverse=True))
    + r")\b",
    re.IGNORECASE,
)
_ORDINAL_WORDS = frozenset(_ORDINALS) - {"first", "second"}


@lru_cache(maxsize=256)
def number_words(value: str) -> frozenset[str]:
    """The words that write a whole number: "5" → {"five", "fifth"} (for ranking sentences
    that write a statement's figure in words)."""
    found = {word for word, number in _NUMBER_WORDS.items() if f"{number:g}" == value}
    return frozenset(found | {word for word, number in _ORDINALS.items() if str(number) == value})


def _word_value(number: str) -> float:
    tens, _, ones = number.lower().replace("-", " ").partition(" ")
    return _NUMBER_WORDS[tens] + (_NUMBER_WORDS[ones] if ones else 0)


def _normal(text: str) -> str:
    return unicodedata.normalize("NFKC", text).replace("\u2212", "-").replace("\u00a0", " ")


# A verb of two words said by one ("came out" is "released", "turned down" is "declined"):
# the writer may use either.
_PHRASAL = tuple(
    (re.compile(rf"\b(?:{forms})\s+{particle}\b", re.IGNORECASE), verb)
    for forms, particle, verb in (
        ("come|comes|came|coming", "out", "released"),
        ("pass|passes|passed|passing", "away", "died"),
        ("step|steps|stepped|stepping", "down", "resigned"),
        ("turn|turns|turned|turning", "down", "declined"),
        ("set|sets|setting", "up", "established"),
        ("take|takes|took|taken|taking", "place", "occurred"),
        ("call|calls|called|calling", "off", "cancelled"),
        ("pull|pulls|pulled|pulling", "out", "withdrew"),
        ("carry|carries|carried|carrying", "out", "conducted"),
        ("give|gives|gave|given|giving", "up", "quit"),
        ("shut|shuts|shutting", "down", "closed"),
    )
)


_PARTICLE = re.compile(r"\b(?:out|away|down|up|place|off)\b", re.IGNORECASE)


def _one_word_verbs(text: str) -> str:
    if not _PARTICLE.search(text):
        return text
    for pattern, verb in _PHRASAL:
        text = pattern.sub(verb, text)
    return text


def words(text: str) -> list[str]:
    """Lower-case words of a text in any script (apostrophes folded, numbers included), a verb
    of two words as its verb of one."""
    return [
        vocabulary.printed(word).replace("\u2019", "'")
        for word in vocabulary.words(_one_word_verbs(_normal(text)))
    ]


_SUFFIXES = (
    ("isation", "ize"), ("ization", "ize"), ("ational", "ate"), ("ations", "ate"),
    ("ation", "ate"), ("ction", "c"), ("ments", ""), ("ment", ""), ("ness", ""),
    ("ingly", ""), ("edly", ""), ("ings", ""), ("ing", ""), ("ies", "y"), ("ied", "y"),
    ("ly", ""), ("ed", ""), ("es", ""), ("s", ""),
)  # fmt: skip


# Past forms no suffix-stripping reaches, as their verb ("shrank" is "shrink", "found" is "find":
# "founded" is the verb "found").
_IRREGULAR_PASTS = (
    "arise: arose arisen; become: became; begin: began begun; break: broke broken; bring: "
    "brought; build: built; buy: bought; catch: caught; choose: chose chosen; come: came; "
    "draw: drew drawn; drive: drove driven; fall: fell fallen; feel: felt; fight: fought; "
    "find: found; fly: flew flown; forget: forgot; freeze: froze frozen; give: gave "
    "given; go: went gone; grow: grew grown; hold: held; keep: kept; know: knew known; "
    "lead: led; leave: left; lend: lent; lose: lost; make: made; mean: meant; meet: met; "
    "pay: paid; rise: rose risen; run: ran; say: said; see: saw seen; seek: sought; sell: "
    "sold; send: sent; shake: shook shaken; shoot: shot; show: shown; shrink: shrank "
    "shrunk; sing: sang sung; sink: sank sunk; sit: sat; speak: spoke spoken; spend: "
    "spent; stand: stood; steal: stole stolen; strike: struck; take: took taken; teach: "
    "taught; tell: told; think: thought; throw: threw thrown; understand: understood; "
    "wear: wore worn; win: won; withdraw: withdrew withdrawn; write: wrote written"
)
_IRREGULAR = {
    form: verb.strip()
    for entry in _IRREGULAR_PASTS.split(";")
    for verb, forms in [entry.split(":")]
    for form in forms.split()
}


def stem(word: str) -> str:
    """A light suffix-stripping stem: inflections and common derivations fold together."""
    word = word.lower().removesuffix("'s")
    word = _IRREGULAR.get(word, word)
    if len(word) <= 3 or not word.isalpha():
        return word
    for suffix, replacement in _SUFFIXES:
        if word.endswith(suffix) and not (suffix == "s" and word.endswith(("ss", "us", "is"))):
            base = word[: -len(suffix)] + replacement
            if len(base) >= 3:
                word = base
                break
    if len(word) > 3 and word.endswith("e"):
        word = word[:-1]
    if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "aeiouls":
        word = word[:-1]
    return word


_CANON = {stem(member): group.split()[0] for group in _SYNONYMS for member in group.split()}


@lru_cache(maxsize=65536)  # a page's words recur across its sentences and its checks
def canon(word: str) -> str:
    """A word's stem (case and diacritics folded), with synonyms mapped to one member of their
    group."""
    stemmed = stem(match_key(word))
    return _CANON.get(stemmed, stemmed)


# A direction said by a phrase of small words: "412, up from 250", "sales were down 5%".
_UP = re.compile(r"\b(?:up|higher)\s+(?:from|by|\$?\d)", re.IGNORECASE)
_DOWN = re.compile(r"\b(?:down|lower)\s+(?:from|by|\$?\d)", re.IGNORECASE)


@lru_cache(maxsize=16384)
def phrase_terms(text: str) -> frozenset[str]:
    """The directions a text says by a phrase of small words, as the terms that say them."""
    found = set()
    if _UP.search(text):
        found.add(canon("increase"))
    if _DOWN.search(text):
        found.add(canon("decrease"))
    return frozenset(found)


# What a figure is said of: the words of its clause just before and after it ("a net loss of
# $35 million" against "a profit of $12 million" in the same sentence).
_CLAUSE = re.compile(r"[,;:()]|\s(?:and|but|while|whereas|compared)\s", re.IGNORECASE)
CONTEXT_BEFORE = 4
CONTEXT_AFTER = 2


@lru_cache(maxsize=16384)
def figure_contexts(text: str) -> tuple[tuple[str, frozenset[str]], ...]:
    """Each figure written in digits, as (value, the canonical words of its clause next to it)."""
    text = _normal(text)
    found = []
    for match in _FIGURE.finditer(text):
        clause_start = max((m.end() for m in _CLAUSE.finditer(text, 0, match.start())), default=0)
        after = _CLAUSE.search(text, match.end())
        before_words = words(text[clause_start : match.start()])[-CONTEXT_BEFORE:]
        after_words = words(text[match.end() : after.start() if after else len(text)])
        near = before_words + after_words[:CONTEXT_AFTER]
        value = _value(match.group("number").rstrip(".,"))
        found.append((value, frozenset(canon(word) for word in near)))
    return tuple(found)


DIRECTIONS: tuple[tuple[frozenset[str], frozenset[str]], ...] = tuple(
    (frozenset(canon(w) for w in one.split()), frozenset(canon(w) for w in other.split()))
    for one, other in _OPPOSITES
)


def content_words(text: str) -> list[str]:
    """The words that carry a statement's content (no function words of English or of the
    statement's language, no figures)."""
    stops = stop_words(detect_language(text))
    return [
        word
        for word in words(text)
        if word not in _STOP
        and match_key(word) not in stops
        and len(word) > 1
        and not any(char.isdigit() for char in word)
        and word not in _NUMBER_WORDS
        and word not in _ORDINAL_WORDS
    ]


def negated_terms(text: str) -> list[str]:
    """The content word each negation of the text bears on ("never affected" → "affected")."""
    found = words(text)
    targets = []
    for index, word in enumerate(found):
        if word in _NEGATORS or word.endswith("n't"):
            following = [w for w in found[index + 1 : index + 4] if w not in _STOP and len(w) > 2]
            if following:
                targets.append(following[0])
    return targets


# What a negation denies runs to the end of its clause: "did not find a link between walking and
# cancer risk" denies the link, the walking and the risk together. "Not only", "not just",
# "not least" and "not surprisingly" deny nothing.
_SCOPE_END = re.compile(r"[,;:.!?()\u2014]|\s(?:but|although|though|while|whereas|because)\s")
_NOT_DENYING = word_set("only just merely least surprisingly unlike doubt")


_UNDENIED = _STOP | _NEGATORS  # small words and the negations themselves


@lru_cache(maxsize=16384)
def negation_scope(text: str) -> frozenset[str]:
    """The canonical words each negation of the text bears on, to the end of its clause."""
    normal = _normal(text)
    scope: set[str] = set()
    for match in re.finditer(r"[\w']+", normal):
        word = match.group().lower()
        if not (word in _NEGATORS or word.endswith("n't")):
            continue
        end = _SCOPE_END.search(normal, match.end())
        clause = normal[match.end() : end.start() if end else len(normal)]
        following = words(clause)
        if following and following[0] in _NOT_DENYING:
            continue
        # A name is not what a negation denies: "was not paid as much as Mark Wahlberg".
        named = {word.lower() for word in re.findall(r"\b[A-Z][\w']*", clause)}
        scope |= {canon(w) for w in following if w not in _UNDENIED and w not in named}
    return frozenset(scope)


def negations(text: str) -> int:
    """How many negations the text has ("not", "never", "can't", "no" …)."""
    return sum(1 for word in words(text) if word in _NEGATORS or word.endswith("n't"))


def _value(number: str) -> str:
    if re.fullmatch(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?", number):
        number = number.replace(",", "")
    number = number.replace(",", ".")
    try:
        value = float(number)
    except ValueError:
        return number
    return f"{value:g}"


_DECADE = re.compile(r"\b(1[0-9]|20)(\d0)['\u2019]?s\b")
# Fractions a writer puts for a percentage ("two-thirds" for 67 %), as whole percents.
_FRACTIONS = {
    "two-thirds": "67", "two thirds": "67", "one-third": "33", "one third": "33",
    "a third": "33", "three-quarters": "75", "three quarters": "75", "one-quarter": "25",
    "a quarter": "25", "one quarter": "25",
}  # fmt: skip
_FRACTION = re.compile(r"\b(" + "|".join(_FRACTIONS) + r")\s+of\b", re.IGNORECASE)
# "2018–19" is two years: the second one is written with its century.
_YEAR_RANGE = re.compile(r"\b((1[0-9]|20)\d\d)\s?[-\u2013/]\s?(\d\d)\b(?![-\u2013/.,]?\d)")
_SCALES = {"thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12}


@lru_cache(maxsize=16384)  # a source's sentences are tested for every part of a statement
def figures(text: str, *, source: bool = False) -> frozenset[tuple[str, str]]:
    """Every figure as (value, unit): "54 percent" → ("54", "%"), "v17" → ("17", ""),
    "1.5×" → ("1.5", "x"), "three times" → ("3", "x"), "1,200 km" → ("1200", "km"),
    "the 1990s" → ("1990", "decade"), "two-thirds" → ("67", "%"), "third" → ("3", ""),
    "$1.2 billion" → ("1.2", "$ billion"), "3 March 2021" → ("2021-03-03", "date") with its
    month, day and year (`dates`). With `source`, "first" and "second" are 1 and 2 too."""
    text = _normal(text)
    found, dates, days = date_figures(text)
    quartered, quarter_spans = quarter_figures(text)
    found |= quartered
    days = days + quarter_spans  # "third quarter of 2006": its ordinal is no figure
    if source:
        found |= month_spans(text)
    decades = {match.start() for match in _DECADE.finditer(text)}
    for match in _FIGURE.finditer(text):
        if any(start <= match.start("number") < end for start, end in days):
            continue  # a date's day or month number is part of its date
        number = match.group("number").rstrip(".,")
        unit = (match.group("unit") or "").lower().replace(" ", "")
        unit = _UNITS.get(unit, _UNITS.get(unit.replace("°", "° "), unit))
        money = match.group("money")
        currency = match.group("currency") or (_MONEY[money.split()[-1].lower()] if money else "")
        if unit in CURRENCIES:
            currency, unit = unit, ""
        if currency:
            scale = "million" if unit == "m" else unit  # "$1.5m" is money, never metres
            unit = f"{currency} {scale}" if scale in _SCALES else currency
        if match.start("number") in decades:
            unit = "decade"
        found.add((_value(number), unit))
    for match in _YEAR_RANGE.finditer(text):
        if any(start <= match.start() < end for start, end in dates):
            continue
        found.discard((_value(match.group(3)), ""))
        found.add((_value(match.group(2) + match.group(3)), ""))
    fractions = [match.span() for match in _FRACTION.finditer(text)]
    for match in _FRACTION.finditer(text):
        found.add((_FRACTIONS[match.group(1).lower()], "%"))
    ordinals = []
    for match in _ORDINAL_FIGURE.finditer(text):
        if any(start <= match.start() < end for start, end in quarter_spans):
            continue
        ordinal = match.group("ordinal").lower()
        if match.group("tens"):
            value = _NUMBER_WORDS[match.group("tens").lower()] + _ORDINALS[ordinal]
        elif ordinal in _ORDINAL_WORDS or source:
            value = _ORDINALS[ordinal]
        else:
            continue
        ordinals.append(match.span())
        found.add((f"{value:g}", ""))
    for match in _WORD_FIGURE.finditer(text):
        if any(start <= match.start() < end for start, end in fractions + ordinals):
            continue
        unit = _UNITS.get((match.group("unit") or "").lower(), "")
        found.add((f"{_word_value(match.group('number')):g}", unit))
    return frozenset(found)


# A word of any script with what a code name adds ("C#", "snake_case"); whether it is a name
# is decided on its first letter's case ("Österreich", "Москва"), not on an ASCII range.
_ENTITY = re.compile(r"(?<![\w#+])([^\W\d_]\w*(?:[#+]+)?|\w+[#+]+)")


def entities(text: str, *, leading: bool = False) -> list[str]:
    """Named entities: capitalised words past the sentence start, acronyms, code names; with
    `leading`, a capitalised first word that is no function word too ("Honda plans …")."""
    found = []
    sentences = re.split(r"(?<=[.!?:;])\s+", _normal(text).strip())
    for sentence in sentences:
        for match in _ENTITY.finditer(sentence):
            name = match.group(1)
            first = match.start() == len(sentence) - len(sentence.lstrip())
            code_like = (
                "_" in name or name.endswith(("#", "+")) or (name.isupper() and len(name) > 1)
            )
            if not (name[0].isupper() or code_like):
                continue
            if first and not code_like and not leading:
                continue
            if name.lower() in _STOP and not code_like:
                continue
            found.append(name)
    return list(dict.fromkeys(found))


_UNIT_WORDS = frozenset(word for unit in _UNITS for word in unit.split() if word.isalpha()) | {
    "sterling", "pounds", "dollar", "euro",
}  # fmt: skip


def is_unit_word(word: str) -> bool:
    """Whether a word names the unit or scale of a figure ("million", "dollars", "percent")."""
    return word.lower() in _UNIT_WORDS


def _decimals(value: str) -> int:
    exponent = Decimal(value).as_tuple().exponent
    return max(0, -exponent) if isinstance(exponent, int) else 0


def _unit_parts(unit: str) -> tuple[str, str, str]:
    """A unit as (currency, scale, other): "$ billion" → ("$", "billion", "")."""
    currency = unit[0] if unit[:1] in CURRENCIES else ""
    rest = unit[len(currency) :].strip()
    return (currency, rest, "") if rest in _SCALES else (currency, "", rest)


# Units of one measure, in the measure's base unit: "1.28 km" is "1,280 metres".
_MEASURES = {
    "mm": ("length", 1e-3), "cm": ("length", 1e-2), "m": ("length", 1.0),
    "km": ("length", 1e3), "g": ("mass", 1.0), "kg": ("mass", 1e3), "t": ("mass", 1e6),
    "kwh": ("energy", 1e3), "mwh": ("energy", 1e6), "gwh": ("energy", 1e9),
    "twh": ("energy", 1e12), "kw": ("power", 1e3), "mw": ("power", 1e6), "gw": ("power", 1e9),
    "mb": ("data", 1e6), "gb": ("data", 1e9), "tb": ("data", 1e12), "ms": ("time", 1e-3),
    "s": ("time", 1.0), "min": ("time", 60.0), "h": ("time", 3600.0),
}  # fmt: skip


def figure_matches(wanted: tuple[str, str], available: tuple[str, str]) -> bool:
    """Whether a source's figure says the statement's: the same value in the same unit (a
    statement without a unit takes any), the source's value rounded to the statement's
    precision ("67 %" for 66.7 %), the same amount in another scale ("1.5 million" for
    1,500,000; "$1.2 billion" for "1,200 million dollars", a statement without a currency
    taking any), the same measure in another unit ("1.28 km" for "1,280 metres"), or a year
    of the decade the statement names ("the 1990s" for 1994)."""
    value, unit = wanted
    their_value, their_unit = available
    if value == their_value and (not unit or unit == their_unit):
        return True
    try:
        number, theirs = float(value), float(their_value)
    except ValueError:
        return False  # dates match as written (`dates`), never by arithmetic
    if {unit, their_unit} == {"m", "million"}:  # "1.5m" may be metres or a million
        unit = their_unit = "million"
    if unit == "decade":
        return their_unit in {"", "decade"} and number <= theirs < number + 10
    currency, scale, other = _unit_parts(unit)
    their_currency, their_scale, their_other = _unit_parts(their_unit)
    if currency and currency != their_currency:
        return False
    if scale or their_scale or currency:
        if other or their_other:
            return False  # a scale against another unit ("5 million" vs "5 km")
    elif unit and unit != their_unit:
        measure, their_measure = _MEASURES.get(unit), _MEASURES.get(their_unit)
        if not measure or not their_measure or measure[0] != their_measure[0]:
            return False
        theirs = theirs * their_measure[1] / measure[1]  # the source's figure in our unit
    theirs = theirs * _SCALES.get(their_scale, 1.0) / _SCALES.get(scale, 1.0)
    # The source's figure at the statement's precision: never a more precise statement.
    return round(theirs, _decimals(value)) == number
