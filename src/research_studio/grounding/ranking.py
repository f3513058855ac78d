"""Source quality for ranking: credibility, content type and recency, by code."""

from __future__ import annotations

from urllib.parse import urlsplit

from research_studio.grounding.credibility import freshness

PRIMARY_DOCUMENT = 0.9  # PDFs, documentation, the user's own files
REFERENCE = 0.8
DISCUSSION = 0.3  # forums and social media
DEFAULT_CONTENT = 0.6
REFERENCE_HOSTS = ("wikipedia.org", "britannica.com", "nih.gov", "who.int")
DISCUSSION_HOSTS = (
    "reddit.com",
    "quora.com",
    "twitter.com",
    "x.com",
    "facebook.com",
    "pinterest.com",
    "tiktok.com",
    "instagram.com",
)
QUALITY_WEIGHTS = {"credibility": 0.6, "content_type": 0.2, "recency": 0.2}


def _host_in(host: str, domains: tuple[str, ...]) -> bool:
    return any(host == domain or host.endswith("." + domain) for domain in domains)


def content_type_score(url: str) -> float:
    """How much a kind of page tends to be worth: primary documents, reference, discussion."""
    parts = urlsplit(url)
    host, path = (parts.hostname or "").lower(), parts.path.lower()
    if parts.scheme == "file" or path.endswith(".pdf") or "/docs/" in path:
        return PRIMARY_DOCUMENT
    if _host_in(host, REFERENCE_HOSTS):
        return REFERENCE
    if _host_in(host, DISCUSSION_HOSTS):
        return DISCUSSION
    return DEFAULT_CONTENT


def quality_score(url: str, published: str | None, credibility: float) -> float:
    """0.6 × credibility + 0.2 × content type + 0.2 × recency."""
    score = (
        QUALITY_WEIGHTS["credibility"] * credibility
        + QUALITY_WEIGHTS["content_type"] * content_type_score(url)
        + QUALITY_WEIGHTS["recency"] * freshness(published)
    )
    return round(score, 3)
