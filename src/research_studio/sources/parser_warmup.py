"""Imported by the parser fork server only: load the PDF parser there, so every worker forks warm."""

from research_studio.sources.parsing import warm_up

warm_up()
