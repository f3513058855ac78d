"""Every export format from a real finished run folder, read back with the formats' own readers."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import docx
import pypdf
import pytest

from research_studio.core.errors import ResearchStudioError
from research_studio.export import FORMATS, export_run

pytestmark = pytest.mark.e2e


def _cited(folder: Path) -> dict[str, str]:
    """The report's Sources list as {sid: url}, from result.json."""
    result = json.loads((folder / "result.json").read_text(encoding="utf-8"))
    listed = re.findall(r"^- \[(S\d+)\] ", result["report"], flags=re.MULTILINE)
    urls = {source["sid"]: source["url"] for source in result["sources"]}
    return {sid: urls[sid] for sid in listed}


@pytest.mark.parametrize("fmt", FORMATS)
def test_each_format_exports(finished_run_folder: Path, fmt: str) -> None:
    run_id = json.loads((finished_run_folder / "run.json").read_text())["run_id"]
    exported = export_run(finished_run_folder, fmt)  # type: ignore[arg-type]
    assert exported.filename == f"{run_id}.{fmt}"
    assert "/" not in exported.filename
    assert exported.content
    if fmt == "md":
        assert exported.content == (finished_run_folder / "report.md").read_bytes()
    if fmt == "pdf":
        assert exported.content.startswith(b"%PDF") and exported.media_type == "application/pdf"


def test_html_is_self_contained_and_every_citation_reaches_its_entry(run_with_table: Path) -> None:
    page = export_run(run_with_table, "html").content.decode("utf-8")
    assert "<script" not in page and "<link" not in page and " src=" not in page
    assert "<style>" in page and "<table>" in page and "Research Quality" in page
    ids = set(re.findall(r' id="([^"]+)"', page))
    cites = re.findall(r'<a class="cite" href="#([^"]+)" data-sid="(S\d+)"', page)
    body = (run_with_table / "report.md").read_text(encoding="utf-8")
    listed = _cited(run_with_table)
    assert len(cites) == len(re.findall(r"\[S\d+\]", body)) - len(listed)
    assert all(anchor in ids and anchor == f"source-{sid}" for anchor, sid in cites)
    for sid, url in listed.items():
        entry = re.search(rf'<li id="source-{sid}"[^>]*>(.*?)</li>', page, re.DOTALL)
        assert entry and f'href="{url}"' in entry.group(1)
    assert '<span class="ind ind-strong">✓✓</span>' in page
    assert '<span class="ind ind-warn">⚠</span>' in page


def test_pdf_keeps_headings_statements_sources_and_internal_links(
    finished_run_folder: Path,
) -> None:
    reader = pypdf.PdfReader(io.BytesIO(export_run(finished_run_folder, "pdf").content))
    text = " ".join(" ".join(page.extract_text().split()) for page in reader.pages)
    result = json.loads((finished_run_folder / "result.json").read_text(encoding="utf-8"))
    assert "coral bleaching heat stress" in text and "Summary" in text and "Sources" in text
    cited = next(s for s in result["statements"] if s["kind"] == "cited")
    # Printed with its citations before the final stop: compare the words before them.
    assert " ".join(cited["text"].rstrip(".!?").split())[:60] in text
    sources = _cited(finished_run_folder)
    pages = [page.indirect_reference for page in reader.pages]
    internal, external = [], []
    for page in reader.pages:
        for annotation in page.get("/Annots", []):
            annotation = annotation.get_object()
            if "/Dest" in annotation:
                internal.append((pages.index(annotation["/Dest"][0]), annotation["/Dest"][3]))
            else:
                external.append(annotation["/A"]["/URI"])
    body_cites = len(re.findall(r"\[S\d+\]", result["report"])) - len(sources)
    assert len(internal) >= body_cites  # a citation cut by a line break is two link areas
    assert len(set(internal)) == len(sources)  # one target per Sources entry
    sources_page = next(i for i, p in enumerate(reader.pages) if "[S1] " in p.extract_text())
    assert {page for page, _y in internal} == {sources_page}
    assert set(external) == set(sources.values())
    assert reader.outline  # headings become bookmarks


def test_docx_has_heading_styles_a_table_and_links(run_with_table: Path) -> None:
    document = docx.Document(io.BytesIO(export_run(run_with_table, "docx").content))
    styles = {p.style.name for p in document.paragraphs if p.style is not None}
    assert {"Heading 1", "Heading 2"} <= styles
    headings = [p.text for p in document.paragraphs if p.style and p.style.name == "Heading 2"]
    assert "Sources" in headings and "Research Quality" in headings
    assert any(table.rows[0].cells[0].text == "Metric" for table in document.tables)
    links = [link for p in document.paragraphs for link in p.hyperlinks]
    fragments = {link.fragment for link in links if link.fragment}
    addresses = {link.address for link in links if link.address}
    sources = _cited(run_with_table)
    assert fragments == {f"source_{sid}" for sid in sources}
    assert addresses == set(sources.values())
    xml = document.element.xml
    assert all(f'w:name="source_{sid}"' in xml for sid in sources)  # each target exists
    assert "✓✓" in xml and "⚠" in xml and "中文" in xml


def test_bibtex_and_ris_have_one_entry_per_cited_source(finished_run_folder: Path) -> None:
    sources = _cited(finished_run_folder)
    run_id = json.loads((finished_run_folder / "run.json").read_text())["run_id"]
    bib = export_run(finished_run_folder, "bib").content.decode("utf-8")
    keys = re.findall(r"^@misc\{([^,]+),", bib, flags=re.MULTILINE)
    assert keys == [f"rs-{run_id}-{sid}" for sid in sources]
    assert re.findall(r"^  url = \{(.*)\},$", bib, flags=re.MULTILINE) == list(sources.values())
    assert "year = {2024}" in bib and "urldate = {" in bib
    ris = export_run(finished_run_folder, "ris").content.decode("utf-8")
    assert ris.count("TY  - ELEC\r\n") == ris.count("ER  - \r\n") == len(sources)
    assert re.findall(r"^UR  - (.*)\r$", ris, flags=re.MULTILINE) == list(sources.values())
    assert export_run(finished_run_folder, "bib").content.decode("utf-8") == bib  # stable


def test_a_folder_without_a_finished_report_is_a_one_line_error(
    finished_run_folder: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "unfinished"
    folder.mkdir()
    (folder / "run.json").write_bytes((finished_run_folder / "run.json").read_bytes())
    with pytest.raises(ResearchStudioError, match="no finished report") as caught:
        export_run(folder, "pdf")
    assert "\n" not in str(caught.value)
    with pytest.raises(ResearchStudioError, match="no run found"):
        export_run(tmp_path / "nothing-here", "html")
