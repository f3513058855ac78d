"""What a run lost, said in its report: failed searches and pages, dropped material, early stops."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from research_studio.core.languages import heading
from research_studio.core.records import ErrorRecord
from research_studio.grounding.quotes import escape_markdown, markdown_address

MAX_LISTED = 5


@dataclass
class Losses:
    """Everything a report should admit to."""

    errors: Sequence[ErrorRecord] = ()
    sources_dropped: int = 0
    statements_dropped: int = 0
    numbers_unsupported: int = 0
    instructions_dropped: int = 0
    outside_time_range: int = 0
    stop_reason: str = ""
    attempts: int = 1
    conflicts: Sequence[str] = ()  # open conflicts between sources, one Markdown line each


def _is_page(error: ErrorRecord) -> bool:
    return error["target"].startswith(("http://", "https://", "file://"))


def _is_search(error: ErrorRecord) -> bool:
    return not _is_page(error) and " search for " in error["message"]


# Each loss as a sentence per report language; English stands in for the others.
SENTENCES: dict[str, dict[str, str]] = {
    "searches": {
        "en": "{n} search(es) failed:",
        "de": "{n} Suche(n) sind fehlgeschlagen:",
        "fr": "{n} recherche(s) ont échoué :",
        "es": "{n} búsqueda(s) fallaron:",
        "it": "{n} ricerca/e non sono riuscite:",
        "pt": "{n} pesquisa(s) falharam:",
        "nl": "{n} zoekopdracht(en) zijn mislukt:",
    },
    "pages": {
        "en": "{n} page(s) could not be read:",
        "de": "{n} Seite(n) konnten nicht gelesen werden:",
        "fr": "{n} page(s) n'ont pas pu être lues :",
        "es": "{n} página(s) no se pudieron leer:",
        "it": "{n} pagina/e non si sono potute leggere:",
        "pt": "{n} página(s) não puderam ser lidas:",
        "nl": "{n} pagina('s) konden niet worden gelezen:",
    },
    "steps": {
        "en": "{n} model or processing step(s) failed (in {nodes}).",
        "de": "{n} Modell- oder Verarbeitungsschritt(e) sind fehlgeschlagen (in {nodes}).",
        "fr": "{n} étape(s) de modèle ou de traitement ont échoué (dans {nodes}).",
        "es": "{n} paso(s) del modelo o del procesamiento fallaron (en {nodes}).",
        "it": "{n} passaggio/i del modello o dell'elaborazione non sono riusciti (in {nodes}).",
        "pt": "{n} etapa(s) do modelo ou do processamento falharam (em {nodes}).",
        "nl": "{n} model- of verwerkingsstap(pen) zijn mislukt (in {nodes}).",
    },
    "sources_dropped": {
        "en": "{n} source(s) were dropped for low credibility.",
        "de": "{n} Quelle(n) wurden wegen geringer Glaubwürdigkeit verworfen.",
        "fr": "{n} source(s) ont été écartées pour faible crédibilité.",
        "es": "{n} fuente(s) se descartaron por baja credibilidad.",
        "it": "{n} fonte/i sono state scartate per scarsa credibilità.",
        "pt": "{n} fonte(s) foram descartadas por baixa credibilidade.",
        "nl": "{n} bron(nen) zijn weggelaten wegens lage geloofwaardigheid.",
    },
    "statements_dropped": {
        "en": "{n} statement(s) of the draft were removed: no verified quote supports them.",
        "de": "{n} Aussage(n) des Entwurfs wurden entfernt: kein geprüftes Zitat stützt sie.",
        "fr": "{n} affirmation(s) du brouillon ont été retirées : aucune citation vérifiée ne les appuie.",
        "es": "{n} afirmación(es) del borrador se eliminaron: ninguna cita verificada las respalda.",
        "it": "{n} affermazione/i della bozza sono state rimosse: nessuna citazione verificata le sostiene.",
        "pt": "{n} afirmação(ões) do rascunho foram removidas: nenhuma citação verificada as sustenta.",
        "nl": "{n} uitspraak/uitspraken uit het concept zijn verwijderd: geen geverifieerd citaat ondersteunt ze.",
    },
    "numbers_unsupported": {
        "en": "{n} statement(s) were removed because a figure in them is not in their sources.",
        "de": "{n} Aussage(n) wurden entfernt, weil eine Zahl darin nicht in ihren Quellen steht.",
        "fr": "{n} affirmation(s) ont été retirées car un chiffre n'apparaît pas dans leurs sources.",
        "es": "{n} afirmación(es) se eliminaron porque una cifra no aparece en sus fuentes.",
        "it": "{n} affermazione/i sono state rimosse perché un numero in esse non è nelle loro fonti.",
        "pt": "{n} afirmação(ões) foram removidas porque um número nelas não está nas suas fontes.",
        "nl": "{n} uitspraak/uitspraken zijn verwijderd omdat een getal erin niet in hun bronnen staat.",
    },
    "instructions_dropped": {
        "en": "{n} passage(s) or statement(s) were removed because they carried instructions "
        "or addresses from page text.",
        "de": "{n} Passage(n) oder Aussage(n) wurden entfernt, weil sie Anweisungen oder Adressen "
        "aus Seitentext enthielten.",
        "fr": "{n} passage(s) ou affirmation(s) ont été retirés car ils portaient des instructions "
        "ou des adresses tirées des pages.",
        "es": "{n} pasaje(s) o afirmación(es) se eliminaron porque contenían instrucciones o "
        "direcciones del texto de las páginas.",
        "it": "{n} passaggio/i o affermazione/i sono stati rimossi perché contenevano istruzioni o indirizzi dal testo delle pagine.",
        "pt": "{n} trecho(s) ou afirmação(ões) foram removidos porque continham instruções ou endereços do texto das páginas.",
        "nl": "{n} passage(s) of uitspraak/uitspraken zijn verwijderd omdat ze instructies of adressen uit paginatekst bevatten.",
    },
    "outside_time_range": {
        "en": "{n} search result(s) dated outside the time range were left out.",
        "de": "{n} Suchergebnis(se) außerhalb des Zeitraums wurden weggelassen.",
        "fr": "{n} résultat(s) de recherche datés hors de la période ont été écartés.",
        "es": "{n} resultado(s) de búsqueda fechados fuera del periodo se omitieron.",
        "it": "{n} risultato/i di ricerca datati fuori dal periodo sono stati esclusi.",
        "pt": "{n} resultado(s) de pesquisa datados fora do período foram deixados de fora.",
        "nl": "{n} zoekresulta(a)t(en) buiten de periode zijn weggelaten.",
    },
    "stopped_early": {
        "en": "Research stopped early ({reason}); the report uses what was found.",
        "de": "Die Recherche endete vorzeitig ({reason}); der Bericht nutzt, was gefunden wurde.",
        "fr": "La recherche s'est arrêtée tôt ({reason}) ; le rapport utilise ce qui a été trouvé.",
        "es": "La investigación se detuvo antes ({reason}); el informe usa lo encontrado.",
        "it": "La ricerca si è fermata in anticipo ({reason}); il rapporto usa ciò che è stato trovato.",
        "pt": "A pesquisa parou antes do previsto ({reason}); o relatório usa o que foi encontrado.",
        "nl": "Het onderzoek stopte vroegtijdig ({reason}); het rapport gebruikt wat er gevonden is.",
    },
    "resumed": {
        "en": "The run was interrupted and resumed ({n} attempts).",
        "de": "Der Lauf wurde unterbrochen und fortgesetzt ({n} Versuche).",
        "fr": "L'exécution a été interrompue puis reprise ({n} tentatives).",
        "es": "La ejecución se interrumpió y se reanudó ({n} intentos).",
        "it": "L'esecuzione è stata interrotta e ripresa ({n} tentativi).",
        "pt": "A execução foi interrompida e retomada ({n} tentativas).",
        "nl": "De run werd onderbroken en hervat ({n} pogingen).",
    },
    "conflict": {
        "en": "Sources disagree and no third source settles it: {line}.",
        "de": "Die Quellen widersprechen sich, und keine dritte Quelle entscheidet: {line}.",
        "fr": "Les sources se contredisent et aucune troisième source ne tranche : {line}.",
        "es": "Las fuentes discrepan y ninguna tercera fuente lo resuelve: {line}.",
        "it": "Le fonti sono in disaccordo e nessuna terza fonte lo risolve: {line}.",
        "pt": "As fontes divergem e nenhuma terceira fonte resolve a questão: {line}.",
        "nl": "De bronnen spreken elkaar tegen en geen derde bron beslecht het: {line}.",
    },
    "more": {
        "en": "… and {n} more (see result.json)",
        "de": "… und {n} weitere (siehe result.json)",
        "fr": "… et {n} de plus (voir result.json)",
        "es": "… y {n} más (ver result.json)",
        "it": "… e altri {n} (vedi result.json)",
        "pt": "… e mais {n} (ver result.json)",
        "nl": "… en nog {n} (zie result.json)",
    },
}


def _say(kind: str, language: str, **values: object) -> str:
    texts = SENTENCES[kind]
    return texts.get(language, texts["en"]).format(**values)


def _target(error: ErrorRecord) -> str:
    """What failed, on a Markdown line: a page as the Sources list writes its address (never a
    path of this machine), a search's query as the foreign text it is."""
    if _is_page(error):
        return markdown_address(error["target"])
    return escape_markdown(error["target"] or error["node"])


def _listed(errors: Sequence[ErrorRecord], language: str) -> str:
    lines = [f"  - {_target(error)}: {error['kind']}" for error in errors[:MAX_LISTED]]
    if len(errors) > MAX_LISTED:
        lines.append(f"  - {_say('more', language, n=len(errors) - MAX_LISTED)}")
    return "\n".join(lines)


def _distinct(errors: Sequence[ErrorRecord]) -> list[ErrorRecord]:
    """Each page failure once (parallel workers that wanted the same page both record it), in
    an order of their own: what a report admits to does not depend on which worker failed first."""
    distinct = {
        (error["target"], error["node"], error["kind"], error["message"]): error for error in errors
    }
    return [distinct[key] for key in sorted(distinct)]


def limitation_lines(losses: Losses, language: str = "en") -> list[str]:
    """One bullet per kind of loss, in the report's language (empty when nothing was lost)."""
    pages = _distinct([error for error in losses.errors if _is_page(error)])
    searches = sorted(
        (error for error in losses.errors if _is_search(error)), key=lambda error: error["target"]
    )
    others = [error for error in losses.errors if not _is_page(error) and not _is_search(error)]
    lines = []
    if searches:
        lines.append(
            f"- {_say('searches', language, n=len(searches))}\n{_listed(searches, language)}"
        )
    if pages:
        lines.append(f"- {_say('pages', language, n=len(pages))}\n{_listed(pages, language)}")
    if others:
        nodes = ", ".join(sorted({error["node"] for error in others}))
        lines.append(f"- {_say('steps', language, n=len(others), nodes=nodes)}")
    for kind in (
        "sources_dropped",
        "statements_dropped",
        "numbers_unsupported",
        "instructions_dropped",
        "outside_time_range",
    ):
        count = getattr(losses, kind)
        if count:
            lines.append(f"- {_say(kind, language, n=count)}")
    if losses.stop_reason.startswith(("budget", "deadline")):
        lines.append(f"- {_say('stopped_early', language, reason=losses.stop_reason)}")
    lines += [f"- {_say('conflict', language, line=line)}" for line in losses.conflicts]
    if losses.attempts > 1:
        lines.append(f"- {_say('resumed', language, n=losses.attempts)}")
    return lines


def limitations_section(losses: Losses, language: str = "en") -> str | None:
    """A '## Limitations of this run' section in `language`, or None when nothing was lost."""
    lines = limitation_lines(losses, language)
    if not lines:
        return None
    return f"## {heading('Limitations of this run', language)}\n\n" + "\n".join(lines)
