"""The report's language: detected from the question by stop words, and the headings code renders."""

from __future__ import annotations

import re
from collections.abc import Mapping

# Frequent function words of each language; a question's language is the one it uses most.
_WORDS: dict[str, str] = {
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
_STOP_WORDS = {code: frozenset(words.split()) for code, words in _WORDS.items()}
# Ties go to the earlier language (English first: sources and defaults are English).
_ORDER = ("en", "de", "fr", "es", "it", "pt", "nl")
_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?")
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

LANGUAGE_NAMES: dict[str, str] = {
    "en": "English",
    "de": "German",
    "fr": "French",
    "es": "Spanish",
    "it": "Italian",
    "pt": "Portuguese",
    "nl": "Dutch",
}


def detect_language(text: str) -> str:
    """The ISO 639-1 code of the language `text` is most likely in; "en" when unsure."""
    words = [word.lower() for word in _WORD.findall(text)]
    scores = {code: sum(word in _STOP_WORDS[code] for word in words) for code in _ORDER}
    for char in text.lower():
        if char in _LETTERS:
            scores[_LETTERS[char]] += 1
    best = max(_ORDER, key=lambda code: (scores[code], -_ORDER.index(code)))
    return best if scores[best] > 0 else "en"


def report_language(setting: str | None, question: str) -> str:
    """The language code the report is written in: the setting, else the question's."""
    if setting:
        return normalize_language(setting)
    return detect_language(question)


def normalize_language(value: str) -> str:
    """A code from a code or an English name ("de", "German", "pt-BR"); unknown values kept."""
    cleaned = value.strip().lower()
    by_name = {name.lower(): code for code, name in LANGUAGE_NAMES.items()}
    if cleaned in by_name:
        return by_name[cleaned]
    return cleaned.split("-")[0].split("_")[0] or "en"


def language_name(code: str) -> str:
    """The English name of a language code (the code itself when unknown)."""
    return LANGUAGE_NAMES.get(code, code)


def writing_rule(code: str) -> str:
    """The writer prompt's line saying which language to write in."""
    name = language_name(code)
    return (
        f"- Write the whole report (title, headings and every statement) in {name}, "
        f"even where the evidence is in another language."
    )


# Headings and labels code renders, by English text; languages without an entry use English.
HEADINGS: dict[str, dict[str, str]] = {
    "Summary": {"de": "Zusammenfassung", "fr": "Résumé", "es": "Resumen"},
    "Conclusion": {"de": "Fazit", "fr": "Conclusion", "es": "Conclusión"},
    "Sources": {"de": "Quellen", "fr": "Sources", "es": "Fuentes"},
    "Research Quality": {
        "de": "Qualität der Recherche",
        "fr": "Qualité de la recherche",
        "es": "Calidad de la investigación",
    },
    "Remaining gaps": {
        "de": "Offene Lücken",
        "fr": "Lacunes restantes",
        "es": "Lagunas pendientes",
    },
    "Limitations of this run": {
        "de": "Grenzen dieses Laufs",
        "fr": "Limites de cette exécution",
        "es": "Limitaciones de esta ejecución",
    },
    "About this report": {
        "de": "Über diesen Bericht",
        "fr": "À propos de ce rapport",
        "es": "Acerca de este informe",
    },
    "Other findings": {
        "de": "Weitere Ergebnisse",
        "fr": "Autres résultats",
        "es": "Otros hallazgos",
    },
    "Findings": {"de": "Ergebnisse", "fr": "Résultats", "es": "Hallazgos"},
    "Verified claims": {
        "de": "Geprüfte Aussagen",
        "fr": "Affirmations vérifiées",
        "es": "Afirmaciones verificadas",
    },
    "Bottom line": {"de": "Fazit", "fr": "En bref", "es": "En resumen"},
    "Metric": {"de": "Kennzahl", "fr": "Indicateur", "es": "Métrica"},
    "Value": {"de": "Wert", "fr": "Valeur", "es": "Valor"},
}


def heading(english: str, code: str = "en") -> str:
    """The heading in the language `code`, falling back to English."""
    return HEADINGS.get(english, {}).get(code, english)


def translations(english: str) -> list[str]:
    """Every rendering of a heading (English first), for code that finds sections by heading."""
    return list(dict.fromkeys([english, *HEADINGS.get(english, {}).values()]))


def translate_table(table: Mapping[str, str], code: str) -> dict[str, str]:
    """A table of English texts with each value translated where a translation exists."""
    return {key: heading(value, code) for key, value in table.items()}
