"""The passage reports' notes (passages.PASSAGE_NOTES) in German, French, Spanish, Italian,
Portuguese and Dutch.

Same keys and placeholders ({used}, {sources}, {passages}) as the English notes; a language or
a reason without an entry here keeps the English note.
"""

from __future__ import annotations

from collections.abc import Mapping

_MODEL_HINT = {
    "de": "(zum Beispiel `--model openai:gpt-4o-mini` oder ein Ollama-Modell wie `--model ollama:llama3.1`)",
    "fr": "(par exemple `--model openai:gpt-4o-mini`, ou un modèle Ollama comme `--model ollama:llama3.1`)",
    "es": "(por ejemplo `--model openai:gpt-4o-mini`, o un modelo de Ollama como `--model ollama:llama3.1`)",
    "it": "(per esempio `--model openai:gpt-4o-mini`, o un modello Ollama come `--model ollama:llama3.1`)",
    "pt": "(por exemplo `--model openai:gpt-4o-mini`, ou um modelo Ollama como `--model ollama:llama3.1`)",
    "nl": "(bijvoorbeeld `--model openai:gpt-4o-mini`, of een Ollama-model zoals `--model ollama:llama3.1`)",
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
        "unchecked": "Die Prüfung der Zitate war für diesen Lauf ausgeschaltet, daher wurde keine Aussage an ihren Quellen geprüft. Die Passagen unten sind wörtlich aus den gelesenen Seiten zitiert; lesen Sie sie als Hinweise, nicht als Ergebnisse.",
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
        "unchecked": "La vérification des citations était désactivée pour cette exécution : aucune affirmation n'a été vérifiée dans ses sources. Les passages ci-dessous sont cités mot pour mot des pages lues ; lisez-les comme des pistes, non comme des résultats.",
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
        "unchecked": "La verificación de las citas estaba desactivada en esta ejecución, así que ninguna afirmación se verificó en sus fuentes. Los pasajes siguientes se citan literalmente de las páginas leídas; léalos como pistas, no como hallazgos.",
        "nothing_read": "Esta ejecución no pudo leer ninguna página para esta pregunta, así que no tiene nada que informar.",
    },
    "it": {
        "extractive": "Questa è una raccolta di passaggi citati alla lettera da {used} delle {sources} fonti lette, raggruppati sotto le domande di ricerca a cui rispondono; nulla è stato parafrasato, quindi ogni frase può essere verificata nella sua fonte. Per un rapporto scritto, esegui con un modello più capace "
        + _MODEL_HINT["it"]
        + ".",
        "writer_failed": "Il modello di scrittura non ha funzionato, quindi questo rapporto mostra i passaggi verificati così come raccolti, citati alla lettera.",
        "budget": "Il budget dell'esecuzione è stato raggiunto prima che il rapporto potesse essere scritto, quindi questo rapporto mostra i passaggi verificati raccolti fino ad allora, citati alla lettera.",
        "uncited": "Il testo del modello di scrittura non ha potuto essere collegato alle prove, quindi non viene mostrato. Questi passaggi, citati alla lettera dalle pagine lette, sono ciò che l'esecuzione ha potuto verificare.",
        "unverified": "Questa esecuzione non ha potuto verificare alcuna affermazione nelle sue fonti: nessuna citazione estratta dal modello è stata trovata nella sua pagina. I passaggi seguenti sono citati alla lettera dalle pagine lette, i più pertinenti per primi; leggeteli come indizi, non come risultati.",
        "unchecked": "La verifica delle citazioni era disattivata per questa esecuzione, quindi nessuna affermazione è stata verificata nelle sue fonti. I passaggi seguenti sono citati alla lettera dalle pagine lette; leggeteli come indizi, non come risultati.",
        "nothing_read": "Questa esecuzione non ha potuto leggere alcuna pagina per questa domanda, quindi non ha nulla da riferire.",
    },
    "pt": {
        "extractive": "Esta é uma compilação de trechos citados literalmente de {used} das {sources} fontes lidas, agrupados sob as perguntas de pesquisa a que respondem; nada foi parafraseado, por isso cada frase pode ser verificada na sua fonte. Para um relatório redigido, execute com um modelo mais capaz "
        + _MODEL_HINT["pt"]
        + ".",
        "writer_failed": "O modelo redator falhou, por isso este relatório mostra os trechos verificados tal como foram recolhidos, citados literalmente.",
        "budget": "O orçamento da execução foi atingido antes de o relatório poder ser redigido, por isso este relatório mostra os trechos verificados recolhidos até então, citados literalmente.",
        "uncited": "O texto do redator não pôde ser ligado às evidências, por isso não é mostrado. Estes trechos, citados literalmente das páginas lidas, são o que a execução pôde verificar.",
        "unverified": "Esta execução não pôde verificar nenhuma afirmação nas suas fontes: nenhuma citação extraída pelo modelo foi encontrada na sua página. Os trechos abaixo são citados literalmente das páginas lidas, os mais relevantes primeiro; leia-os como pistas, não como resultados.",
        "unchecked": "A verificação das citações estava desligada nesta execução, por isso nenhuma afirmação foi verificada nas suas fontes. Os trechos abaixo são citados literalmente das páginas lidas; leia-os como pistas, não como resultados.",
        "nothing_read": "Esta execução não pôde ler nenhuma página para esta pergunta, por isso não tem nada a relatar.",
    },
    "nl": {
        "extractive": "Dit is een verzameling letterlijk geciteerde passages uit {used} van de {sources} gelezen bronnen, gegroepeerd onder de onderzoeksvragen die ze beantwoorden; niets is geparafraseerd, dus elke zin is na te gaan in zijn bron. Voor een uitgeschreven rapport start u de run met een sterker model "
        + _MODEL_HINT["nl"]
        + ".",
        "writer_failed": "Het schrijfmodel faalde, dus dit rapport toont de geverifieerde passages zoals ze zijn verzameld, letterlijk geciteerd.",
        "budget": "Het budget van de run was op voordat het rapport geschreven kon worden, dus dit rapport toont de tot dan verzamelde geverifieerde passages, letterlijk geciteerd.",
        "uncited": "De tekst van het schrijfmodel kon niet aan het bewijs worden gekoppeld en wordt daarom niet getoond. Deze passages, letterlijk geciteerd uit de gelezen pagina's, zijn wat de run kon verifiëren.",
        "unverified": "Deze run kon geen enkele uitspraak in zijn bronnen verifiëren: geen door het model geëxtraheerd citaat werd op zijn pagina gevonden. De passages hieronder zijn letterlijk geciteerd uit de gelezen pagina's, de meest relevante eerst; lees ze als aanwijzingen, niet als bevindingen.",
        "unchecked": "De controle van de citaten stond voor deze run uit, dus geen enkele uitspraak is in zijn bronnen geverifieerd. De passages hieronder zijn letterlijk geciteerd uit de gelezen pagina's; lees ze als aanwijzingen, niet als bevindingen.",
        "nothing_read": "Deze run kon voor deze vraag geen enkele pagina lezen en heeft dus niets te melden.",
    },
}


def localized_notes(english: Mapping[str, str], code: str) -> dict[str, str]:
    """The notes table in language `code`: each reason translated where a translation exists."""
    translated = NOTES.get(code, {})
    return {reason: translated.get(reason, text) for reason, text in english.items()}
