"""Words of any script: the one tokenizer of every place that splits text into words.

A word is a maximal run of letters, combining marks and digits of any script ("Dächer",
"हिन्दी", "2024"), an apostrophe or an invisible joiner inside it kept, so a token is never a
piece of a word. Matching folds case and diacritics (`match_key`: "Dächer" meets "dacher");
what is printed keeps the word as written. Stop words are per language (`stop_words`).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import regex

# Inside a word: apostrophes ("don't", "l'île"), the soft hyphen and the zero-width (non-)joiner
# some scripts write between letters. Each sits between two runs of letters, marks or digits.
APOSTROPHES = "'\u2019"
INVISIBLE_JOINERS = "\u00ad\u200c\u200d"
JOINERS = APOSTROPHES + INVISIBLE_JOINERS
_RUN = r"[\p{L}\p{M}\p{N}]+"
_WORD_PATTERN = rf"{_RUN}(?:[{JOINERS}]{_RUN})*"
# Numbers stay whole in the quote tokens of grounding: "3.5", "1,200".
_TOKEN_PATTERN = rf"{_RUN}(?:[.,{JOINERS}]{_RUN})*"


def is_utf8(text: str) -> bool:
    """False for text holding a lone surrogate: an undecodable byte of a command-line argument
    (Python keeps those by surrogateescape) or half a character from a JSON escape."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


@cache
def _compiled(pattern: str) -> regex.Pattern[str]:
    # `re` has no Unicode categories: its \w leaves out combining marks and so splits "हिन्दी"
    # and a decomposed "Dächer". Imported here: few commands split words at start-up.
    import regex

    return regex.compile(pattern)


def is_word_char(char: str) -> bool:
    """A letter, combining mark or digit of any script."""
    return unicodedata.category(char)[0] in "LMN"


def words(text: str) -> list[str]:
    """Every word of the text as written (compatibility-normalized), in order."""
    return _compiled(_WORD_PATTERN).findall(unicodedata.normalize("NFKC", text))


def match_key(word: str) -> str:
    """The form two words are compared in: case, diacritics, apostrophes and joiners folded."""
    if word.isascii():  # most words of most pages: nothing to decompose
        return word.lower()
    decomposed = unicodedata.normalize("NFKD", word.casefold())
    kept = "".join(
        char
        for char in decomposed
        if unicodedata.category(char) != "Mn" and char not in INVISIBLE_JOINERS
    )
    return unicodedata.normalize("NFC", kept.replace("\u2019", "'"))


def tokens(text: str) -> list[str]:
    """Match keys of the text's words, numbers such as 3.5 or 1,200 kept whole (for quotes)."""
    return [match_key(token) for token in _compiled(_TOKEN_PATTERN).findall(text)]


def printed(word: str) -> str:
    """A word as a report prints it: lower-case, diacritics kept, invisible joiners dropped."""
    return unicodedata.normalize("NFC", word.lower()).translate(_INVISIBLE)


_INVISIBLE = str.maketrans("", "", INVISIBLE_JOINERS)


def is_wide(word: str) -> bool:
    """A word of a script written without spaces (Chinese, Japanese), where one sign is a word."""
    return any(unicodedata.east_asian_width(char) in "WF" for char in word)


# Frequent function words of each language: they decide a text's language, and are stop words.
FUNCTION_WORDS: dict[str, str] = {
    "en": (
        "the of and to in is are what how why which does do for on with that this by from "
        "was were be can should between about it its an as at or"
    ),
    "de": (
        "der die das und ist sind wie was warum welche wer nicht mit für von zu im in den dem "
        "des ein eine einer eines auf bei auch sich durch wird werden kann können über zwischen "
        "es hat haben oder"
    ),
    "fr": (
        "le la les et est sont comment pourquoi quel quelle quels quelles des du de un une "
        "dans pour sur avec par qui que ce cette ces au aux il elle ne pas peut entre ou"
    ),
    "es": (
        "el la los las y es son cómo como qué que por qué cuál cuáles del de un una en para "
        "con por se su sus al lo entre pueden puede o más"
    ),
    "it": (
        "il lo la gli le e è sono come perché quale quali che del della dei delle di un una "
        "in per con su da nel nella tra può possono o"
    ),
    "pt": (
        "o a os as e é são como por que qual quais do da dos das de um uma em para com no "
        "na nos nas pelo pela entre pode podem ou mais"
    ),
    "nl": (
        "de het een en is zijn hoe wat waarom welke van in op met voor door dat die niet "
        "te bij ook kan kunnen tussen of"
    ),
}
# Further words of each language that carry no topic: dropped from content words.
_MORE_STOP_WORDS: dict[str, str] = {
    "en": (
        "a about an and are as at be by did do does for from has have had how i in into is it "
        "its of on or than that the their then there these they this those to vs was were what "
        "when where which who whom whose why will with would could may might must not no so "
        "any some our we you your he she his her them also more most much many very don't "
        "doesn't didn't isn't aren't can't won't it's"
    ),
    "de": (
        "einem einen dieser diese dieses diesem diesen jener jene welcher welches welchen "
        "welchem wo wann wieso weshalb woher wohin womit wodurch wofür worin inwiefern "
        "inwieweit wieviel wie viel viele vom zum zur ins am an aus nach vor um gegen ohne "
        "bis seit unter als dass daß ob wenn so noch nur sehr mehr schon aber sein seine ihr "
        "ihre ihren ihrem unser er sie wir ich du man war waren wurde wurden worden hatte "
        "hatten gibt gab kein keine keinen denn doch etwa bzw usw"
    ),
    "fr": (
        "l d qu c s n j m t lui leur leurs son sa ses mon ma mes notre nos votre vos ils elles "
        "nous vous on était été être avoir ont a y en plus moins très aussi quand où comme "
        "sans sous chez vers selon lequel laquelle lesquels dont mais donc"
    ),
    "es": (
        "los cuándo dónde quién quiénes cuánto cuántos cuánta cuántas este esta estos estas "
        "ese esa esos esas fue fueron ser estar está están han ha hay muy también sin sobre "
        "entre hasta desde contra según cuando donde mi mis tu tus nuestro nuestra ni pero "
        "sino le les porque"
    ),
    "it": (
        "l d un' dell' all' nell' dall' sull' i al allo alla ai agli alle dal dallo dalla dai "
        "dagli dalle nello negli nelle sul sullo sulla sui sugli sulle questo questa questi "
        "queste quello quella quelli quelle è stato stata sono ha hanno c'è ci si non più molto "
        "anche quando dove chi cosa quanto quanti quanta quante ma però senza sopra sotto"
    ),
    "pt": (
        "ao aos à às num numa este esta estes estas esse essa esses essas isso isto aquele "
        "aquela foi foram ser estar está estão há tem têm muito também sem sobre até desde "
        "quando onde quem quanto quantos quanta quantas mas porque seu sua seus suas não se"
    ),
    "nl": (
        "der des den dit deze dat die er het hun haar zijn was waren wordt worden werd werden "
        "heeft hebben had hadden om uit naar aan als ook nog maar wel niet geen zo zeer meer "
        "wanneer waar wie welk hoeveel waardoor waarmee tegen zonder onder over"
    ),
}
_ORDER = tuple(FUNCTION_WORDS)  # ties go to the earlier language: English first
_FUNCTION_KEYS = {code: frozenset(words_.split()) for code, words_ in FUNCTION_WORDS.items()}
# Letters that only some of the languages use; each one is a vote for them.
_LETTERS: dict[str, str] = {
    "ß": "de",
    "ä": "de",
    "ö": "de",
    "ü": "de",
    "ñ": "es",
    "¿": "es",
    "ç": "fr",
    "è": "fr",
    "ê": "fr",
    "ã": "pt",
    "õ": "pt",
}


def detect_language(text: str) -> str:
    """The ISO 639-1 code of the language `text` is most likely in; "en" when unsure."""
    found = [word.lower() for word in words(text) if not any(c.isdigit() for c in word)]
    scores = {code: sum(word in _FUNCTION_KEYS[code] for word in found) for code in _ORDER}
    for char in unicodedata.normalize("NFC", text.lower()):
        if char in _LETTERS:
            scores[_LETTERS[char]] += 1
    best = max(_ORDER, key=lambda code: (scores[code], -_ORDER.index(code)))
    return best if scores[best] > 0 else "en"


@cache
def stop_words(language: str = "en") -> frozenset[str]:
    """Match keys of the words that carry no topic in `language` and in English (sources and
    defaults are English); other languages have the English ones."""
    codes = dict.fromkeys(["en", language])
    return frozenset(
        match_key(word)
        for code in codes
        for text in (FUNCTION_WORDS.get(code, ""), _MORE_STOP_WORDS.get(code, ""))
        for word in text.split()
    )


# French and Italian elide an article or a preposition into the next word: "l'île" is "île".
_ELIDED = frozenset(
    ["l", "d", "j", "m", "n", "s", "t", "c", "qu", "dell", "all", "nell", "dall", "sull", "un"]
)


def _content_form(word: str) -> str:
    head, _, tail = word.replace("\u2019", "'").rpartition("'")
    if head and match_key(head) in _ELIDED:
        return tail
    if head and match_key(tail) == "s":  # the English possessive: "city's" is "city"
        return head
    return word


def is_content(word: str, stops: frozenset[str], *, single_letters: bool = False) -> bool:
    """A word that carries a topic: no stop word, and no single letter (a digit is a number,
    a sign of a script written without spaces a word) unless `single_letters`."""
    key = match_key(word)
    single = len(key) == 1 and not (key.isdigit() or is_wide(key) or single_letters)
    return key not in stops and not single and any(c.isalnum() for c in key)


def content_words(
    text: str, language: str | None = None, *, single_letters: bool = False
) -> list[str]:
    """The distinct words that carry the text's topic, as printed (stop words of `language`,
    else of the text's own language, dropped; single letters too, unless `single_letters`:
    a search tells "vitamin C" from "vitamin D")."""
    stops = stop_words(language or detect_language(text))
    found = (printed(_content_form(word)) for word in words(text))
    return list(
        dict.fromkeys(
            word for word in found if is_content(word, stops, single_letters=single_letters)
        )
    )


def content_keys(text: str, language: str | None = None) -> list[str]:
    """The match keys of the text's content words (what two texts are compared by)."""
    return list(dict.fromkeys(match_key(word) for word in content_words(text, language)))


def keys(texts: Iterable[str]) -> set[str]:
    """Match keys of every word of the texts."""
    return {match_key(word) for text in texts for word in words(text)}
