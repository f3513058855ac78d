"""The support check across word families, scripts, figures in words and three sentences."""

from __future__ import annotations

from research_studio.grounding.source_sentences import kin
from research_studio.grounding.support import best_support, supports
from research_studio.grounding.terms import entities, figures

JOURNALS = (
    "Marta Oyelaran kept lighthouse journals for forty years.\n"
    "Storm damage closed the harbour road in winter.\n"
    "The fishermen donated them after her death.\n"
    "Tromsø's regional archive now holds the collection.\n"
)


def test_one_part_may_rest_on_three_sentences_of_the_source_and_names_them_all() -> None:
    found = best_support(
        "Fishermen donated Oyelaran's lighthouse journals to the regional archive in Tromsø.",
        JOURNALS,
    )
    assert found.ok, found.reasons
    (part,) = found.parts
    assert part.quote.startswith("Tromsø's") and len(part.also) == 2
    assert all(text in found.quote for text in (part.quote, *part.also))
    # Spread support never lends a name the source does not give.
    wrong = best_support(
        "Fishermen donated Oyelaran's lighthouse journals to the regional archive in Bergen.",
        JOURNALS,
    )
    assert not wrong.ok and "entity" in wrong.reason()


def test_words_of_one_family_match_without_a_word_list() -> None:
    assert kin("supremacy", "supremacist") and kin("publiciz", "publicity")
    assert not kin("contract", "contrast") and not kin("nation", "notion")
    verdict = supports(
        "The movement's public backlash against white supremacy grew.",
        "Public backlash against white supremacists grew across the movement.",
    )
    assert verdict.ok and not verdict.missing


def test_names_in_any_script_are_names_and_one_is_never_put_for_another() -> None:
    assert entities("Die Brücke in Österreich, sagt Москва, und C# und snake_case.") == [
        "Brücke",
        "Österreich",
        "Москва",
        "C#",
        "snake_case",
    ]
    source = "The bridge in Deutschland opened to traffic in May."
    wrong = supports("The bridge in Österreich opened to traffic in May.", source)
    assert not wrong.ok and "Österreich" in wrong.reason()
    assert supports("The bridge in Deutschland opened to traffic in May.", source).ok


def test_figures_written_in_words_or_abbreviated_are_the_same_figure() -> None:
    assert figures("twenty-one trawlers and forty two nets") == {("21", ""), ("42", "")}
    source = "In winter 21 trawlers sailed from the harbour, carrying 1.5m tonnes of cod."
    assert supports("Twenty-one trawlers sailed from the harbour that winter.", source).ok
    assert not supports("Twenty-two trawlers sailed from the harbour that winter.", source).ok
    assert supports("The trawlers carried 1.5 million tonnes of cod in winter.", source).ok
    assert not supports("The trawlers carried 2.5 million tonnes of cod in winter.", source).ok
    assert figures("$2bn") == {("2", "$ billion")} and figures("2bn") == {("2", "billion")}
