"""The one tokenizer: whole words of any script, folded for matching, stop words per language."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from research_studio.core.queries import content_words as query_words
from research_studio.core.queries import similarity
from research_studio.core.words import (
    JOINERS,
    content_keys,
    content_words,
    is_word_char,
    match_key,
    stop_words,
    tokens,
    words,
)
from research_studio.grounding.terms import content_words as statement_words
from research_studio.sources.docindex import query_words as index_words


def _oracle(text: str) -> list[str]:
    """Maximal runs of letters, marks and digits, a single joiner between two of them kept."""
    text = unicodedata.normalize("NFKC", text)
    found: list[str] = []
    current = ""
    for index, char in enumerate(text):
        following = text[index + 1] if index + 1 < len(text) else ""
        if is_word_char(char) or (
            char in JOINERS and current and following and is_word_char(following)
        ):
            current += char
        elif current:
            found.append(current)
            current = ""
    if current:
        found.append(current)
    return found


# Text from anywhere: letters and marks of many scripts, digits, joiners, punctuation, spaces.
_TEXT = st.lists(
    st.one_of(
        st.characters(categories=["L", "M", "N", "P", "Zs"]),
        st.sampled_from([*JOINERS, "Dächer", "हिन्दी", "a\u0308", "城市", " ", "l'", "’s"]),
    ),
    max_size=40,
).map("".join)


@given(_TEXT)
def test_tokens_are_never_fragments_of_a_word_in_any_script(text: str) -> None:
    found = words(text)
    assert found == _oracle(text)
    normal = unicodedata.normalize("NFKC", text)
    position = 0
    for word in found:
        start = normal.index(word, position)
        end = start + len(word)
        # Nothing of the word is left on either side of the token.
        assert start == 0 or not is_word_char(normal[start - 1])
        assert end == len(normal) or not is_word_char(normal[end])
        position = end


@given(_TEXT)
def test_content_words_are_whole_words_and_never_one_letter(text: str) -> None:
    whole = {match_key(word) for word in words(text)}
    for word in content_words(text):
        key = match_key(word)
        assert len(key) > 1 or key.isdigit() or unicodedata.east_asian_width(key) in "WF"
        # A content word is a word of the text (an elided article or possessive taken off).
        assert any(key == other or other.endswith(key) or other.startswith(key) for other in whole)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Dächer", ["Dächer"]),
        ("Da\u0308cher", ["Dächer"]),  # decomposed: the mark stays with its letter
        ("हिन्दी भाषा", ["हिन्दी", "भाषा"]),
        ("l'île d’Yeu", ["l'île", "d’Yeu"]),
        ("Hitze\u00adinsel", ["Hitze\u00adinsel"]),
        ("城市热岛 2024", ["城市热岛", "2024"]),
    ],
)
def test_words_stay_whole(text: str, expected: list[str]) -> None:
    assert words(text) == expected


def test_german_question_has_whole_content_words_without_stop_words() -> None:
    question = "Wie stark kühlen helle Dächer und Bäume die Städte bei Hitze?"
    assert content_words(question) == [
        "stark",
        "kühlen",
        "helle",
        "dächer",
        "bäume",
        "städte",
        "hitze",
    ]
    assert content_keys(question)[3:5] == ["dacher", "baume"]


def test_every_place_that_splits_words_keeps_them_whole() -> None:
    question = "Wie kühlen Dächer und Bäume die Städte?"
    for found in (query_words(question), statement_words(question), index_words(question)):
        assert {"dächer", "bäume", "städte"} <= {match_key(word) for word in found} | set(found)
        assert not {"d", "cher", "b", "ume", "und", "die"} & set(found)
    assert tokens("Dächer kühlen um 3,5 Grad") == ["dacher", "kuhlen", "um", "3,5", "grad"]


def test_searches_keep_single_letters_and_digits_apart() -> None:
    assert content_words("vitamin D and round 2") == ["vitamin", "round", "2"]
    assert query_words("vitamin D and round 2") == ["vitamin", "d", "round", "2"]
    assert similarity("vitamin C benefits", "vitamin D benefits") < 1.0
    assert similarity("heat evidence round 2", "heat evidence round 3") < 1.0


def test_diacritics_fold_for_matching_not_for_printing() -> None:
    assert match_key("Dächer") == match_key("DACHER") == "dacher"
    assert content_words("Städte") == ["städte"]
    assert similarity("Hitze in Städten", "hitze in stadten") == 1.0


@pytest.mark.parametrize(
    ("code", "word"),
    [("de", "und"), ("fr", "les"), ("es", "los"), ("it", "della"), ("pt", "não"), ("nl", "het")],
)
def test_stop_words_per_language(code: str, word: str) -> None:
    assert match_key(word) in stop_words(code) and match_key(word) not in stop_words("ja")
    # English words stay stop words under every language (sources are often English).
    assert "the" in stop_words(code)


def test_stop_words_follow_the_texts_language() -> None:
    # "die" is German for "the", and an English verb.
    assert "die" not in content_words("Wie kühlen Bäume die Stadt?")
    assert "die" in content_words("Why do corals die in hot water?")
