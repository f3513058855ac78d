"""The report's cited sources as BibTeX and RIS, one entry per source, keys stable per run."""

from __future__ import annotations

import re

from research_studio.export.document import CitedSource, RunDocument

_YEAR = re.compile(r"^\s*(\d{4})")
_DATE = re.compile(r"^\s*(\d{4})-(\d{2})-(\d{2})")
_BIB_SPECIAL = {
    "\\": r"\textbackslash{}",
    "{": r"\{",
    "}": r"\}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}


def citation_key(run_id: str, sid: str) -> str:
    """A key stable for a run and source, e.g. rs-20261122-175734-746084-S1."""
    return "rs-" + re.sub(r"[^A-Za-z0-9-]", "-", f"{run_id}-{sid}")


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _bib_text(text: str) -> str:
    return "".join(_BIB_SPECIAL.get(char, char) for char in _one_line(text))


def _bib_url(url: str) -> str:
    # url fields are verbatim in biblatex and the url package; only braces and spaces break them.
    return url.replace("{", "%7B").replace("}", "%7D").replace(" ", "%20")


def _year(source: CitedSource) -> str | None:
    match = _YEAR.match(source.published or "")
    return match.group(1) if match else None


def bibtex(document: RunDocument) -> str:
    """One @misc entry per cited source (url, urldate and howpublished for BibTeX and biblatex)."""
    entries = []
    for source in document.sources:
        title = ("title", "{" + _bib_text(source.title or source.address) + "}")
        if source.link is not None:
            fields = [
                title,
                ("howpublished", r"\url{" + _bib_url(source.link) + "}"),
                ("url", _bib_url(source.link)),
                ("urldate", document.accessed),
            ]
        else:  # a local document: its path in the documents folder, no machine path
            fields = [title, ("howpublished", "{" + _bib_text(source.address) + "}")]
            fields.append(("urldate", document.accessed))
        if year := _year(source):
            fields.append(("year", year))
        if match := _DATE.match(source.published or ""):
            fields.append(("date", "-".join(match.groups())))
        fields.append(("note", _bib_text(f"Accessed {document.accessed}; cited as [{source.sid}]")))
        body = ",\n".join(f"  {name} = {{{value}}}" for name, value in fields)
        entries.append(f"@misc{{{citation_key(document.run_id, source.sid)},\n{body}\n}}\n")
    return "\n".join(entries)


def _ris_date(text: str) -> str:
    match = _DATE.match(text)
    return "/".join(match.groups()) if match else text


def ris(document: RunDocument) -> str:
    """One TY  - ELEC … ER  - record per cited source (CRLF line ends, as the format asks)."""
    records = []
    for source in document.sources:
        lines = [
            ("TY", "ELEC"),
            ("ID", citation_key(document.run_id, source.sid)),
            ("TI", _one_line(source.title or source.address)),
            ("UR" if source.link is not None else "AV", _one_line(source.address)),
            ("Y2", _ris_date(document.accessed)),
        ]
        if year := _year(source):
            lines.append(("PY", year))
        if match := _DATE.match(source.published or ""):
            lines.append(("DA", "/".join(match.groups())))
        if source.provider:
            lines.append(("DB", _one_line(source.provider)))
        lines.append(("N1", f"Cited as [{source.sid}] in: {_one_line(document.query)}"))
        lines.append(("ER", ""))
        records.append("".join(f"{tag}  - {value}\r\n" for tag, value in lines))
    return "".join(records)
