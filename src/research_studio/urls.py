"""URL normalization: one canonical form for dedupe, cache keys and source identity."""

from __future__ import annotations

from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

TRACKING_PARAMETERS = frozenset(
    {"fbclid", "gclid", "dclid", "msclkid", "mc_cid", "mc_eid", "igshid", "ref_src", "_hsenc"}
)
DEFAULT_PORTS = {"http": 80, "https": 443}


def _is_tracking(name: str) -> bool:
    return name.lower().startswith("utm_") or name.lower() in TRACKING_PARAMETERS


def normalize_url(url: str) -> str:
    """Lower-case scheme and host, drop default port, fragment and tracking parameters."""
    parts = urlsplit(url.strip())
    scheme = parts.scheme.lower()
    if scheme not in DEFAULT_PORTS:
        return urlunsplit((scheme, parts.netloc, parts.path, parts.query, ""))
    host = (parts.hostname or "").lower()
    if ":" in host:  # IPv6 literal
        host = f"[{host}]"
    port = parts.port
    netloc = host if port in (None, DEFAULT_PORTS[scheme]) else f"{host}:{port}"
    if parts.username:
        netloc = f"{parts.username}@{netloc}"
    query = urlencode(
        [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if not _is_tracking(k)]
    )
    path = parts.path or "/"
    return urlunsplit((scheme, netloc, path, query, ""))


def is_web_url(url: str) -> bool:
    """True for an absolute http(s) URL with a host."""
    parts = urlsplit(url.strip())
    return parts.scheme.lower() in DEFAULT_PORTS and bool(parts.hostname)
