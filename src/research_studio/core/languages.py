"""The report's language: detected from the question by stop words, and the headings code renders."""

from __future__ import annotations

from collections.abc import Mapping

# One detection, by the tokenizer and function words of `core.words`; re-exported here.
from research_studio.core.words import detect_language as detect_language

LANGUAGE_NAMES: dict[str, str] = {
    "en": "English",
    "de": "German",
    "fr": "French",
    "es": "Spanish",
    "it": "Italian",
    "pt": "Portuguese",
    "nl": "Dutch",
}


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


# Headings, labels and sentences code writes into a report, by English text; a language
# without an entry keeps the English.
HEADINGS: dict[str, dict[str, str]] = {
    "Summary": {"de": "Zusammenfassung", "fr": "Résumé", "es": "Resumen", "it": "Sintesi",
                "pt": "Resumo", "nl": "Samenvatting"},
    "Conclusion": {"de": "Fazit", "fr": "Conclusion", "es": "Conclusión", "it": "Conclusione",
                   "pt": "Conclusão", "nl": "Conclusie"},
    "Sources": {"de": "Quellen", "fr": "Sources", "es": "Fuentes", "it": "Fonti",
                "pt": "Fontes", "nl": "Bronnen"},
    "Research Quality": {
        "de": "Qualität der Recherche",
        "fr": "Qualité de la recherche",
        "es": "Calidad de la investigación",
        "it": "Qualità della ricerca",
        "pt": "Qualidade da pesquisa",
        "nl": "Kwaliteit van het onderzoek",
    },
    "Remaining gaps": {
        "de": "Offene Lücken",
        "fr": "Lacunes restantes",
        "es": "Lagunas pendientes",
        "it": "Lacune rimanenti",
        "pt": "Lacunas restantes",
        "nl": "Resterende hiaten",
    },
    "Limitations of this run": {
        "de": "Grenzen dieses Laufs",
        "fr": "Limites de cette exécution",
        "es": "Limitaciones de esta ejecución",
        "it": "Limiti di questa esecuzione",
        "pt": "Limitações desta execução",
        "nl": "Beperkingen van deze run",
    },
    "About this report": {
        "de": "Über diesen Bericht",
        "fr": "À propos de ce rapport",
        "es": "Acerca de este informe",
        "it": "Informazioni su questo rapporto",
        "pt": "Sobre este relatório",
        "nl": "Over dit rapport",
    },
    "Other findings": {
        "de": "Weitere Ergebnisse",
        "fr": "Autres résultats",
        "es": "Otros hallazgos",
        "it": "Altri risultati",
        "pt": "Outras conclusões",
        "nl": "Overige bevindingen",
    },
    "Findings": {"de": "Ergebnisse", "fr": "Résultats", "es": "Hallazgos", "it": "Risultati",
                 "pt": "Resultados", "nl": "Bevindingen"},
    "Verified claims": {
        "de": "Geprüfte Aussagen",
        "fr": "Affirmations vérifiées",
        "es": "Afirmaciones verificadas",
        "it": "Affermazioni verificate",
        "pt": "Afirmações verificadas",
        "nl": "Geverifieerde beweringen",
    },
    "Bottom line": {"de": "Fazit", "fr": "En bref", "es": "En resumen", "it": "In breve",
                    "pt": "Em resumo", "nl": "Kortom"},
    "Metric": {"de": "Kennzahl", "fr": "Indicateur", "es": "Métrica", "it": "Indicatore",
               "pt": "Métrica", "nl": "Maatstaf"},
    "Value": {"de": "Wert", "fr": "Valeur", "es": "Valor", "it": "Valore", "pt": "Valor",
              "nl": "Waarde"},
    "Research questions": {
        "de": "Forschungsfragen",
        "fr": "Questions de recherche",
        "es": "Preguntas de investigación",
        "it": "Domande di ricerca",
        "pt": "Perguntas de pesquisa",
        "nl": "Onderzoeksvragen",
    },
    "Question": {"de": "Frage", "fr": "Question", "es": "Pregunta", "it": "Domanda",
                 "pt": "Pergunta", "nl": "Vraag"},
    "Answer": {"de": "Antwort", "fr": "Réponse", "es": "Respuesta", "it": "Risposta",
               "pt": "Resposta", "nl": "Antwoord"},
    "answered by cited statements": {
        "de": "durch zitierte Aussagen beantwortet",
        "fr": "répondue par des affirmations citées",
        "es": "respondida por afirmaciones citadas",
        "it": "con risposta in affermazioni citate",
        "pt": "respondida por afirmações citadas",
        "nl": "beantwoord door geciteerde uitspraken",
    },
    "not answered by the sources read": {
        "de": "von den gelesenen Quellen nicht beantwortet",
        "fr": "sans réponse dans les sources lues",
        "es": "sin respuesta en las fuentes leídas",
        "it": "senza risposta nelle fonti lette",
        "pt": "sem resposta nas fontes lidas",
        "nl": "niet beantwoord door de gelezen bronnen",
    },
    "its key terms": {
        "de": "ihre Schlüsselbegriffe",
        "fr": "ses termes clés",
        "es": "sus términos clave",
        "it": "i suoi termini chiave",
        "pt": "os seus termos-chave",
        "nl": "de kernbegrippen ervan",
    },
    "Research report": {
        "de": "Recherchebericht",
        "fr": "Rapport de recherche",
        "es": "Informe de investigación",
        "it": "Rapporto di ricerca",
        "pt": "Relatório de pesquisa",
        "nl": "Onderzoeksrapport",
    },
    (
        "The sources read do not answer this question: the passages cited below do not mention "
        "{terms}. Read them as what was found, not as an answer."
    ): {
        "de": "Die gelesenen Quellen beantworten diese Frage nicht: Die unten zitierten Passagen "
        "erwähnen {terms} nicht. Lesen Sie sie als das, was gefunden wurde, nicht als Antwort.",
        "fr": "Les sources lues ne répondent pas à cette question : les passages cités ci-dessous "
        "ne mentionnent pas {terms}. Lisez-les comme ce qui a été trouvé, non comme une réponse.",
        "es": "Las fuentes leídas no responden a esta pregunta: los pasajes citados a "
        "continuación no mencionan {terms}. Léalos como lo que se encontró, no como una "
        "respuesta.",
        "it": "Le fonti lette non rispondono a questa domanda: i passaggi citati qui sotto non "
        "menzionano {terms}. Leggeteli come ciò che è stato trovato, non come una risposta.",
        "pt": "As fontes lidas não respondem a esta pergunta: os trechos citados abaixo não "
        "mencionam {terms}. Leia-os como o que foi encontrado, não como uma resposta.",
        "nl": "De gelezen bronnen beantwoorden deze vraag niet: de hieronder geciteerde passages "
        "noemen {terms} niet. Lees ze als wat er gevonden is, niet als een antwoord.",
    },
    (
        "The sources read do not answer this question: the passages cited below leave most of "
        "its research questions unanswered (listed at the end). Read them as what was found, not "
        "as an answer."
    ): {
        "de": "Die gelesenen Quellen beantworten diese Frage nicht: Die unten zitierten Passagen "
        "lassen die meisten ihrer Forschungsfragen offen (am Ende aufgeführt). Lesen Sie sie als "
        "das, was gefunden wurde, nicht als Antwort.",
        "fr": "Les sources lues ne répondent pas à cette question : les passages cités ci-dessous "
        "laissent sans réponse la plupart de ses questions de recherche (énumérées à la fin). "
        "Lisez-les comme ce qui a été trouvé, non comme une réponse.",
        "es": "Las fuentes leídas no responden a esta pregunta: los pasajes citados a "
        "continuación dejan sin respuesta la mayoría de sus preguntas de investigación "
        "(enumeradas al final). Léalos como lo que se encontró, no como una respuesta.",
        "it": "Le fonti lette non rispondono a questa domanda: i passaggi citati qui sotto "
        "lasciano senza risposta la maggior parte delle sue domande di ricerca (elencate alla "
        "fine). Leggeteli come ciò che è stato trovato, non come una risposta.",
        "pt": "As fontes lidas não respondem a esta pergunta: os trechos citados abaixo deixam "
        "sem resposta a maioria das suas perguntas de pesquisa (listadas no final). Leia-os como "
        "o que foi encontrado, não como uma resposta.",
        "nl": "De gelezen bronnen beantwoorden deze vraag niet: de hieronder geciteerde passages "
        "laten de meeste van de onderzoeksvragen open (aan het eind opgesomd). Lees ze als wat er "
        "gevonden is, niet als een antwoord.",
    },
    "Overall confidence": {"de": "Gesamtvertrauen", "fr": "Confiance globale",
                           "es": "Confianza global", "it": "Affidabilità complessiva",
                           "pt": "Confiança global", "nl": "Algeheel vertrouwen"},
    "Cross-validated claims": {"de": "Mehrfach bestätigte Aussagen",
                               "fr": "Affirmations recoupées", "es": "Afirmaciones contrastadas",
                               "it": "Affermazioni confermate da più fonti",
                               "pt": "Afirmações confirmadas por várias fontes",
                               "nl": "Door meerdere bronnen bevestigde beweringen"},
    "Hallucination score": {"de": "Halluzinationswert", "fr": "Score d'hallucination",
                            "es": "Puntuación de alucinación", "it": "Punteggio di allucinazione",
                            "pt": "Pontuação de alucinação", "nl": "Hallucinatiescore"},
    "Sources used": {"de": "Genutzte Quellen", "fr": "Sources utilisées",
                     "es": "Fuentes usadas", "it": "Fonti usate", "pt": "Fontes usadas",
                     "nl": "Gebruikte bronnen"},
    "Iterations": {"de": "Durchläufe", "fr": "Itérations", "es": "Iteraciones",
                   "it": "Iterazioni", "pt": "Iterações", "nl": "Iteraties"},
    "Checks switched off": {"de": "Ausgeschaltete Prüfungen", "fr": "Vérifications désactivées",
                            "es": "Comprobaciones desactivadas", "it": "Controlli disattivati",
                            "pt": "Verificações desligadas", "nl": "Uitgeschakelde controles"},
    (
        "Indicators: ✓✓ cross-validated by two or more sources and confidence ≥ 0.8 · ✓ "
        "confidence ≥ 0.6 · ⚠ lower confidence."
    ): {
        "de": "Zeichen: ✓✓ von zwei oder mehr Quellen bestätigt und Vertrauen ≥ 0.8 · ✓ "
        "Vertrauen ≥ 0.6 · ⚠ geringeres Vertrauen.",
        "fr": "Indicateurs : ✓✓ recoupé par deux sources ou plus et confiance ≥ 0.8 · ✓ "
        "confiance ≥ 0.6 · ⚠ confiance plus faible.",
        "es": "Indicadores: ✓✓ contrastado por dos o más fuentes y confianza ≥ 0.8 · ✓ "
        "confianza ≥ 0.6 · ⚠ confianza menor.",
        "it": "Indicatori: ✓✓ confermato da due o più fonti e affidabilità ≥ 0.8 · ✓ "
        "affidabilità ≥ 0.6 · ⚠ affidabilità minore.",
        "pt": "Indicadores: ✓✓ confirmado por duas ou mais fontes e confiança ≥ 0.8 · ✓ "
        "confiança ≥ 0.6 · ⚠ confiança menor.",
        "nl": "Tekens: ✓✓ bevestigd door twee of meer bronnen en vertrouwen ≥ 0.8 · ✓ "
        "vertrouwen ≥ 0.6 · ⚠ lager vertrouwen.",
    },
}  # fmt: skip


def heading(english: str, code: str = "en") -> str:
    """The heading in the language `code`, falling back to English."""
    return HEADINGS.get(english, {}).get(code, english)


def translations(english: str) -> list[str]:
    """Every rendering of a heading (English first), for code that finds sections by heading."""
    return list(dict.fromkeys([english, *HEADINGS.get(english, {}).values()]))


def translate_table(table: Mapping[str, str], code: str) -> dict[str, str]:
    """A table of English texts with each value translated where a translation exists."""
    return {key: heading(value, code) for key, value in table.items()}
