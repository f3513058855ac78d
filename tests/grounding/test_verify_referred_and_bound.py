"""`verify` follows what a writer says another way: a name the page gives by a pronoun, a people
for its place, a measure in another unit, a count the statement itself enumerates, support over
two sentences with two dates of one story; and refuses what a page says of the other side: a
figure said of a loss where the statement says profit, a rise the page gives as a fall, or a
sentence saying the opposite lent to complete a part."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from research_studio.faces.cli import app
from research_studio.grounding.alignment import enumerated_counts
from research_studio.grounding.names import place_forms
from research_studio.grounding.referents import referents
from research_studio.grounding.terms import figure_matches
from tests.helpers import verify_supports_and_refuses

runner = CliRunner()

CURIE_PAGE = (
    "# Marie Curie\n\n"
    "Marie Curie was born in Warsaw in 1867. She moved to Paris in 1891 to study physics. "
    "In 1903 she shared the Nobel Prize in Physics with Pierre Curie and Henri Becquerel.\n"
)
TURTLE_PAGE = (
    "# Turtle survey\n\n"
    "Dr. Amina Okafor, a marine biologist at the University of Lagos, led the 2021 survey. "
    "Her team counted 412 green turtles nesting on the island, up from 250 in 2015. "
    "The government has since banned fishing within two kilometres of the nesting beaches.\n"
)
RESULTS_PAGE = (
    "# Acme results\n\n"
    "Acme Corp reported a net loss of $35 million for 2022, compared with a profit of $12 "
    "million a year earlier. The company blamed higher energy costs and weaker sales in Asia.\n"
)
FOUNDERS_PAGE = (
    "# Google\n\n"
    "Google was founded in 1998 by Larry Page and Sergey Brin while they were PhD students at "
    "Stanford University.\n"
)
BRIDGE_PAGE = (
    "# The bridge\n\nThe bridge, which opened in 1937, spans 1,280 metres across the strait.\n"
)

STUDY_PAGE = (
    "# Walking study\n\n"
    "The study followed 1,200 adults in Norway for ten years. Researchers at the University of "
    "Oslo found that people who walked at least 30 minutes a day had a 20% lower risk of heart "
    "disease. They did not find a link between walking and cancer risk. Lead author Ingrid Berg "
    "said the results applied mainly to older adults.\n"
)
TESLA_PAGE = (
    "# Tesla\n\n"
    "Tesla was founded in 2003 by Martin Eberhard and Marc Tarpenning. Elon Musk joined the "
    "company in 2004 as chairman after leading its first funding round. He became chief "
    "executive in 2008. The company delivered its first Roadster in 2008.\n"
)
RELEASE_PAGE = (
    "# PostgreSQL 16\n\n"
    "PostgreSQL 16 was released on September 14, 2023. It added logical replication from "
    "standby servers and improved query parallelism. Version 15, released a year earlier, "
    "introduced the MERGE command.\n"
)

COFFEE_PAGE = (
    "# Coffee\n\n"
    "Global coffee prices fell 15% in the second half of 2023 as Brazil's harvest recovered. "
    "Smaller producers in Ethiopia reported lower incomes. Consumption in China grew by 12% "
    "over the same period.\n"
)
NOVEL_PAGE = (
    "# The novel\n\n"
    "The novel was written by Chinua Achebe and published in 1958. It follows Okonkwo, a "
    "wrestler and leader in an Igbo village. Achebe died in 2013 in Boston at the age of 82.\n"
)
RACE_PAGE = (
    "# Marathon\n\n"
    "Maria Santos won the 2019 Boston Marathon in 2 hours 21 minutes. She finished 40 seconds "
    "ahead of Kenyan runner Joyce Kiplagat.\n"
)

CASES = [
    pytest.param(
        CURIE_PAGE,
        "Curie relocated to Paris in 1891.",
        "She moved to Paris in 1891",
        "Pierre Curie relocated to Paris in 1891.",
        "'relocated'",  # "She moved" is Marie Curie, named before her
        id="a-pronoun-carries-its-name",
    ),
    pytest.param(
        CURIE_PAGE,
        "Born in Warsaw in 1867, Curie moved to Paris in 1891 to study physics.",
        "She moved to Paris in 1891",
        "Born in Warsaw in 1867, Curie moved to Paris in 1867 to study physics.",
        "terms",
        id="two-dates-of-one-story",
    ),
    pytest.param(
        RESULTS_PAGE,
        "Acme blamed higher energy costs and weaker Asian sales.",
        "The company blamed higher energy costs",
        "Acme blamed higher energy costs and weaker African sales.",
        "entity: the source does not name 'African'",
        id="a-people-for-its-place",
    ),
    pytest.param(
        BRIDGE_PAGE,
        "The bridge spans 1.28 km across the strait.",
        "The bridge, which opened in 1937, spans 1,280 metres",
        "The bridge spans 12.8 km across the strait.",
        "figure: 12.8 km",
        id="a-measure-in-another-unit",
    ),
    pytest.param(
        FOUNDERS_PAGE,
        "Google was founded in 1998 by two Stanford PhD students, Larry Page and Sergey Brin.",
        "Google was founded in 1998",
        "Google was founded in 1998 by three Stanford PhD students, Larry Page and Sergey Brin.",
        "figure: 3",
        id="a-count-the-statement-enumerates",
    ),
    pytest.param(
        TURTLE_PAGE,
        "The number of green turtles nesting on the island rose from 250 in 2015 to 412.",
        "Her team counted 412 green turtles",
        "The number of green turtles nesting on the island fell from 412 to 250.",
        "'fell'",  # the sentence saying "up from" is no support for a fall
        id="up-from-is-a-rise",
    ),
    pytest.param(
        RESULTS_PAGE,
        "Acme Corp reported a net loss of $35 million for 2022.",
        "Acme Corp reported a net loss of $35 million",
        "Acme Corp reported a net profit of $35 million for 2022.",
        "'profit'",  # the sentence says $35 million of a loss
        id="a-figure-said-of-the-other-side",
    ),
    pytest.param(
        RESULTS_PAGE,
        "The company blamed higher energy costs for its loss.",
        "The company blamed higher energy costs",
        "The company blamed lower energy costs for its loss.",
        "'lower'",
        id="an-opposite-sentence-completes-nothing",
    ),
    pytest.param(
        STUDY_PAGE,
        "University of Oslo researchers found no link between walking and cancer risk.",
        "They did not find a link between walking and cancer risk",
        "The study found that walking lowered cancer risk.",
        "polarity: the source negates 'cancer'",
        id="what-a-negation-denies-runs-to-its-clause-end",
    ),
    pytest.param(
        STUDY_PAGE,
        "Berg said the results applied mainly to older adults.",
        "Lead author Ingrid Berg said",
        "Berg said the results applied mainly to younger adults.",
        "'younger' where the source says 'older'",
        id="younger-is-not-older",
    ),
    pytest.param(
        TESLA_PAGE,
        "Elon Musk became chief executive in 2008.",
        "He became chief executive in 2008",
        "Martin Eberhard became chief executive in 2008.",
        "the source lacks 'martin', 'eberhard', 'became'",  # "He" is Elon Musk
        id="a-pronoun-stands-for-one-person-only",
    ),
    pytest.param(
        TESLA_PAGE,
        "Musk joined Tesla in 2004 as chairman.",
        "Elon Musk joined the company in 2004",
        "Elon Musk joined the company in 2008 as chairman.",
        "figure: 2008",  # the sentence saying all of it has 2004; 2008 is another event's
        id="another-years-sentence-lends-no-words",
    ),
    pytest.param(
        RELEASE_PAGE,
        "PostgreSQL 16 added logical replication from standby servers.",
        "It added logical replication",
        "PostgreSQL 16 introduced the MERGE command.",
        "the source lacks 'introduced', 'merge'",  # version 15's sentence lends nothing
        id="another-versions-sentence-lends-no-words",
    ),
    pytest.param(
        COFFEE_PAGE,
        "Consumption in China rose 12% over the same period.",
        "Consumption in China grew by 12%",
        "Consumption in China shrank by 12% over the same period.",  # "shrank" is "shrink"
        "polarity",
        id="an-irregular-past-keeps-its-direction",
    ),
    pytest.param(
        COFFEE_PAGE,
        "Smaller producers in Ethiopia reported lower incomes.",
        "Smaller producers in Ethiopia",
        "Smaller producers in Ethiopia reported higher incomes.",  # "smaller" is said by both
        "polarity: the statement says 'higher' where the source says 'decrease'",
        id="a-direction-word-against-its-opposite-alone",
    ),
    pytest.param(
        NOVEL_PAGE,
        "Achebe's novel was published in 1958.",
        "The novel was written by Chinua Achebe and published in 1958",
        "The novel was written by Chinua Achebe and published in 2013.",
        "figure: 2013",  # the sentence saying all of it has another year
        id="the-sentence-saying-it-all-decides-the-figure",
    ),
    pytest.param(
        RACE_PAGE,
        "Santos finished 40 seconds ahead of Joyce Kiplagat.",
        "She finished 40 seconds ahead",
        "Santos finished 40 seconds behind Joyce Kiplagat.",
        "polarity",
        id="behind-is-not-ahead",
    ),
    pytest.param(
        RACE_PAGE,
        "Maria Santos won the 2019 Boston Marathon.",
        "Maria Santos won the 2019 Boston Marathon",
        "Maria Santos lost the 2019 Boston Marathon.",
        "polarity",
        id="lost-is-not-won",
    ),
    pytest.param(
        TESLA_PAGE,
        "Martin Eberhard and Marc Tarpenning founded Tesla in 2003.",
        "Tesla was founded in 2003 by Martin Eberhard and Marc Tarpenning",
        "Elon Musk founded Tesla in 2003.",
        "entity: the sentences found name Martin Eberhard and Marc Tarpenning, not Elon Musk",
        id="one-person-put-for-another",
    ),
    pytest.param(
        NOVEL_PAGE,
        "The novel was written by Chinua Achebe.",
        "The novel was written by Chinua Achebe",
        "The novel was written by Okonkwo Achebe.",  # "Okonkwo" is on the page, elsewhere
        "entity: 'Okonkwo Achebe' where the source says 'Chinua Achebe'",
        id="another-first-name-before-the-surname",
    ),
    pytest.param(
        RELEASE_PAGE,
        "PostgreSQL 16 came out on 14 September 2023.",  # "came out" is "was released"
        "PostgreSQL 16 was released on September 14, 2023",
        "PostgreSQL 16 came out on 14 September 2022.",
        "figure: 14 September 2022",
        id="a-verb-of-two-words",
    ),
    pytest.param(
        "# Acme\n\nIts chief financial officer, Tom Reyes, resigned in March 2023.\n",
        "Tom Reyes, Acme's CFO, resigned in March 2023.",
        "Its chief financial officer, Tom Reyes, resigned",
        "Tom Reyes, Acme's CTO, resigned in March 2023.",
        "entity: the source does not name 'CTO'",
        id="a-title-written-out-in-lower-case",
    ),
]


@pytest.mark.parametrize(("page_text", "statement", "passage", "wrong", "why"), CASES)
def test_verify_follows_what_is_said_another_way_and_refuses_the_other_side(
    tmp_path: Path, page_text: str, statement: str, passage: str, wrong: str, why: str
) -> None:
    page = tmp_path / "page.md"
    page.write_text(page_text, encoding="utf-8")
    verify_supports_and_refuses(page, statement, passage, wrong, why)


def test_a_pronoun_refers_to_the_first_name_before_it_and_only_when_it_comes_first() -> None:
    sentences = [
        "Alice Moreau met Bob Stone in 1990.",
        "She moved to Lyon in 1991.",  # Alice, the first name before it
        "Later she taught chemistry.",  # still Alice: the text goes on about her
        "Carl Diaz said he would stay.",  # names Carl before its pronoun: no reference
    ]
    found = referents(tuple(sentences))
    assert found[sentences[1]] == {"alice", "moreau"}
    assert found[sentences[2]] == {"alice", "moreau"}
    assert sentences[3] not in found


def test_a_pronoun_reaches_no_further_than_three_sentences() -> None:
    sentences = ["Alice Moreau arrived.", "x y.", "z w.", "v u.", "t s.", "She left."]
    assert sentences[-1] not in referents(tuple(sentences))


@pytest.mark.parametrize(
    ("people", "place"),
    [("Asian", "Asia"), ("Italian", "Italy"), ("Chinese", "China"), ("Israeli", "Israel"),
     ("Swedish", "Sweden"), ("Texan", "Texas"), ("Mexican", "Mexico"), ("German", "Germany"),
     ("European", "Europe"), ("French", "France"), ("Dutch", "Netherlands")],
)  # fmt: skip
def test_a_people_and_its_place_name_each_other(people: str, place: str) -> None:
    assert place.lower() in place_forms(people)
    assert people.lower() in place_forms(place)


def test_a_people_is_never_another_place() -> None:
    assert "africa" not in place_forms("Asian")
    assert "austria" not in place_forms("Australian")
    assert "july" not in place_forms("Julian")  # a month is no place


@given(st.sampled_from(["two", "three", "four", "2", "3", "4"]), st.integers(2, 5))
def test_an_enumerated_count_holds_only_for_as_many_names(count: str, listed: int) -> None:
    names = [f"Name{chr(65 + index)} Person" for index in range(listed)]
    items = ", ".join(names[:-1]) + " and " + names[-1]
    found = enumerated_counts(f"The prize went to {count} scientists, {items}.")
    number = {"two": 2, "three": 3, "four": 4}.get(count) or int(count)
    assert found == ({(str(number), "")} if number == listed else set())


@given(st.integers(1, 999_999), st.sampled_from([("m", "km", 1e3), ("g", "kg", 1e3)]))
def test_a_measure_matches_in_another_unit_at_the_statements_precision(
    amount: int, units: tuple[str, str, float]
) -> None:
    small, large, factor = units
    stated = f"{amount / factor:g}"
    assert figure_matches((stated, large), (str(amount), small))
    assert not figure_matches((f"{amount * 10 / factor:g}", large), (str(amount), small))
    assert not figure_matches((stated, "kwh"), (str(amount), small))


def test_a_figure_is_refused_when_its_sentence_says_it_of_the_other_side(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    only = RESULTS_PAGE.split(" The company")[0].split("\n\n", 1)[1]  # one sentence, no title
    page.write_text(only + "\n", encoding="utf-8")
    wrong = "Acme Corp reported a net profit of $35 million for 2022."
    answer = json.loads(
        runner.invoke(app, ["verify", wrong, "--source", str(page), "--json"]).stdout
    )
    assert answer["supported"] is False, answer
    assert any("'profit' where the source says 'loss'" in r for r in answer["reasons"]), answer
    right = "Acme Corp reported a profit of $12 million a year before 2022."
    answer = json.loads(
        runner.invoke(app, ["verify", right, "--source", str(page), "--json"]).stdout
    )
    assert answer["supported"], answer
