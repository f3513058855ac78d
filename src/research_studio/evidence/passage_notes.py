"""The passage reports' notes (passages.PASSAGE_NOTES) in German, French and Spanish.

Same keys and placeholders ({used}, {sources}, {passages}) as the English notes; a language or
a reason without an entry here keeps the English note.
"""

from __future__ import annotations

from collections.abc import Mapping

_MODEL_HINT = {
    "de": "(zum Beispiel `--model openai:gpt-4o-mini` oder ein Ollama-Modell wie `--model ollama:llama3.1`)",
    "fr": "(par exemple `--model openai:gpt-4o-mini`, ou un modèle Ollama comme `--model ollama:llama3.1`)",
    "es": "(por ejemplo `--model openai:gpt-4o-mini`, o un modelo de Ollama como `--model ollama:llama3.1`)",
}

NOTES: dict[str, dict[str, str]] = {
    "de": {
        "extractive": "Dies ist eine Zusammenstellung wörtlich zitierter Passagen aus {used} der {sources} gelesenen Quellen, geordnet nach den Forschungsfragen, die sie beantworten; nichts wurde umformuliert, jeder Satz lässt sich an seiner Quelle prüfen. Für einen ausformulierten Bericht starten Sie den Lauf mit einem stärkeren Modell "
        + _MODEL_HINT["de"]
        + ".",
        "writer_failed": "Das Schreibmodell ist ausgefallen; dieser Bericht zeigt daher die geprüften Passagen so, wie sie gesammelt wurden, wörtlich zitiert.",
        "budget": "Das Budget des Laufs war erschöpft, bevor der Bericht geschrieben werden konnte; dieser Bericht zeigt die bis dahin gesammelten geprüften Passagen, wörtlich zitiert.",
        "uncited": "Der Text des Schreibmodells ließ sich nicht mit den Belegen verbinden und wird daher nicht gezeigt. Diese wörtlich zitierten Passagen der gelesenen Seiten sind das, was der Lauf prüfen konnte.",
        "unverified": "Dieser Lauf konnte keine Aussage an seinen Quellen prüfen: Kein vom Modell entnommenes Zitat wurde auf seiner Seite gefunden. Die Passagen unten sind wörtlich aus den gelesenen Seiten zitiert, die relevantesten zuerst; lesen Sie sie als Hinweise, nicht als Ergebnisse.",
        "nothing_read": "Dieser Lauf konnte zu dieser Frage keine Seite lesen und hat daher nichts zu berichten.",
    },
    "fr": {
        "extractive": "Ceci est un recueil de passages cités mot pour mot de {used} des {sources} sources lues, classés sous les questions de recherche auxquelles ils répondent ; rien n'a été reformulé, chaque phrase peut être vérifiée dans sa source. Pour un rapport rédigé, relancez avec un modèle plus puissant "
        + _MODEL_HINT["fr"]
        + ".",
        "writer_failed": "Le modèle rédacteur a échoué : ce rapport montre donc les passages vérifiés tels que collectés, cités mot pour mot.",
        "budget": "Le budget de l'exécution a été atteint avant la rédaction du rapport : ce rapport montre les passages vérifiés collectés jusque-là, cités mot pour mot.",
        "uncited": "Le texte du rédacteur n'a pas pu être rattaché aux preuves ; il n'est donc pas montré. Ces passages, cités mot pour mot des pages lues, sont ce que l'exécution a pu vérifier.",
        "unverified": "Cette exécution n'a pu vérifier aucune affirmation dans ses sources : aucune citation extraite par le modèle n'a été trouvée sur sa page. Les passages ci-dessous sont cités mot pour mot des pages lues, les plus pertinents d'abord ; lisez-les comme des pistes, non comme des résultats.",
        "nothing_read": "Cette exécution n'a pu lire aucune page pour cette question ; elle n'a donc rien à rapporter.",
    },
    "es": {
        "extractive": "Esta es una recopilación de pasajes citados literalmente de {used} de las {sources} fuentes leídas, agrupados bajo las preguntas de investigación que responden; nada se ha parafraseado, así que cada frase puede comprobarse en su fuente. Para un informe redactado, ejecute con un modelo más capaz "
        + _MODEL_HINT["es"]
        + ".",
        "writer_failed": "El modelo redactor falló, así que este informe muestra los pasajes verificados tal como se recogieron, citados literalmente.",
        "budget": "Se alcanzó el presupuesto de la ejecución antes de poder redactar el informe, así que este informe muestra los pasajes verificados recogidos hasta entonces, citados literalmente.",
        "uncited": "El texto del redactor no pudo vincularse a las pruebas, así que no se muestra. Estos pasajes, citados literalmente de las páginas leídas, son lo que la ejecución pudo verificar.",
        "unverified": "Esta ejecución no pudo verificar ninguna afirmación en sus fuentes: ninguna cita extraída por el modelo se encontró en su página. Los pasajes siguientes se citan literalmente de las páginas leídas, los más relevantes primero; léalos como pistas, no como hallazgos.",
        "nothing_read": "Esta ejecución no pudo leer ninguna página para esta pregunta, así que no tiene nada que informar.",
    },
}


def localized_notes(english: Mapping[str, str], code: str) -> dict[str, str]:
    """The notes table in language `code`: each reason translated where a translation exists."""
    translated = NOTES.get(code, {})
    return {reason: translated.get(reason, text) for reason, text in english.items()}
