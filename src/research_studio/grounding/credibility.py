"""Source credibility: 0.30 domain trust + 0.15 freshness + 0.25 authority + 0.30 content quality."""

from __future__ import annotations

import datetime as dt
from urllib.parse import urlsplit

# Domain trust by kind of site; suffixes match the end of the host, names match the host or a parent domain.
HIGH_TRUST = {".edu": 0.9, ".gov": 0.9, "arxiv.org": 0.9, "nature.com": 0.9, "wikipedia.org": 0.75}
LOW_TRUST = {"medium.com": 0.45, "quora.com": 0.4, "pinterest.com": 0.3}
DEFAULT_TRUST = 0.6
LOCAL_DOCUMENT_TRUST = 0.8  # the user's own documents, chosen by the user
WEIGHTS = {"domain_trust": 0.30, "freshness": 0.15, "authority": 0.25, "content_quality": 0.30}


def domain_trust(url: str) -> float:
    """Trust of a URL's domain from the table; a sensible default for the rest."""
    parts = urlsplit(url)
    if parts.scheme == "file":
        return LOCAL_DOCUMENT_TRUST
    host = (parts.hostname or "").lower()
    for table in (HIGH_TRUST, LOW_TRUST):
        for domain, trust in table.items():
            if domain.startswith("."):
                if host.endswith(domain) or f"{domain}." in f"{host}.":
                    return trust
            elif host == domain or host.endswith("." + domain):
                return trust
    return DEFAULT_TRUST


def freshness(published: str | None, today: dt.date | None = None) -> float:
    """1.0 within a year, 0.8 within three, 0.6 within five, 0.4 older; 0.5 when unknown."""
    if not published:
        return 0.5
    try:
        date = dt.date.fromisoformat(published[:10])
    except ValueError:
        return 0.5
    age_days = ((today or dt.date.today()) - date).days
    if age_days <= 365:
        return 1.0
    if age_days <= 3 * 365:
        return 0.8
    if age_days <= 5 * 365:
        return 0.6
    return 0.4


def credibility(domain: float, fresh: float, authority: float, content_quality: float) -> float:
    """The weighted credibility score."""
    score = (
        WEIGHTS["domain_trust"] * domain
        + WEIGHTS["freshness"] * fresh
        + WEIGHTS["authority"] * authority
        + WEIGHTS["content_quality"] * content_quality
    )
    return round(score, 3)
