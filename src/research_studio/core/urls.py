"""URL normalization (one canonical form for dedupe, cache keys, source identity) and redaction."""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import PurePosixPath
from typing import Any
from urllib.parse import parse_qsl, unquote, urlencode, urlsplit, urlunsplit

from research_studio.core.words import is_utf8

TRACKING_PARAMETERS = frozenset(
    {"fbclid", "gclid", "dclid", "msclkid", "mc_cid", "mc_eid", "igshid", "ref_src", "_hsenc"}
)
DEFAULT_PORTS = {"http": 80, "https": 443}
# A TCP port a connection can be made to: 0 and anything above 65535 cannot be dialled.
VALID_PORTS = range(1, 65536)


def _is_tracking(name: str) -> bool:
    return name.lower().startswith("utm_") or name.lower() in TRACKING_PARAMETERS


def normalize_url(url: str) -> str:
    """Lower-case scheme and host, drop default port, fragment and tracking parameters.

    Total: a URL that cannot be parsed (an unclosed IPv6 bracket, a bad port) comes back
    stripped but otherwise as written, and fetching it is refused as one lost page.
    """
    try:
        parts = urlsplit(url.strip())
        port = parts.port if parts.scheme.lower() in DEFAULT_PORTS else None
    except ValueError:
        return url.strip()
    scheme = parts.scheme.lower()
    if scheme not in DEFAULT_PORTS:
        return urlunsplit((scheme, parts.netloc, parts.path, parts.query, "")).strip()
    host = (parts.hostname or "").lower()
    if ":" in host:  # IPv6 literal
        host = f"[{host}]"
    netloc = host if port in (None, DEFAULT_PORTS[scheme]) else f"{host}:{port}"
    if parts.username:
        netloc = f"{parts.username}@{netloc}"
    query = urlencode(
        [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if not _is_tracking(k)]
    )
    path = parts.path or "/"
    # Stripped again: a dropped fragment can leave the spaces that stood before it at the end.
    return urlunsplit((scheme, netloc, path, query, "")).strip()


def is_web_url(url: str) -> bool:
    """True for an absolute http(s) URL with a host and, when it names one, a port that exists.
    A text with a lone surrogate (an undecodable byte of a command-line argument) is none."""
    if not url.isascii() and not is_utf8(url):
        return False
    try:
        parts = urlsplit(url.strip())
        port = parts.port  # raises for a port that is no number or above 65535
    except ValueError:  # e.g. an unclosed IPv6 bracket
        return False
    return (
        parts.scheme.lower() in DEFAULT_PORTS
        and bool(parts.hostname)
        and (port is None or port in VALID_PORTS)
    )


def display_url(url: str, roots: Iterable[str] = ()) -> str:
    """A source's address as shown to readers: a web URL as it is; a local document (file://)
    as its path inside the documents folder that holds it, that folder's name first, else its
    file name alone: never this machine's absolute path. The URL stays the source's identifier.
    """
    if not url.strip().lower().startswith("file:"):
        return url
    try:
        path = PurePosixPath(unquote(urlsplit(url.strip()).path))
    except ValueError:
        return "local document"
    for root in sorted((PurePosixPath(r) for r in roots), key=lambda r: -len(r.parts)):
        if path.is_relative_to(root) and path != root:
            return str(PurePosixPath(root.name) / path.relative_to(root))
    return path.name or "local document"


# A file: URL standing on its own in text (not the tail of another URL such as https://x/file:y).
_FILE_URL_IN_TEXT = re.compile(r"(?<![^\s'\"(<\[])file:[^\s'\"<>()\[\]]+", re.IGNORECASE)


def display_nested(value: Any, roots: Iterable[str] = ()) -> Any:
    """The value with every local document's file:// URL in it, however deep, as `display_url`
    shows it: what a run writes for others to read (result.json, its manifest) names a document
    by its path in the documents folder, never by this machine's absolute path."""
    if isinstance(value, str):
        if value.strip().lower().startswith("file:"):
            return display_url(value, roots)
        if "file:" not in value.lower():
            return value
        return _FILE_URL_IN_TEXT.sub(lambda match: display_url(match.group(0), roots), value)
    if isinstance(value, list):
        return [display_nested(item, roots) for item in value]
    if isinstance(value, dict):
        return {key: display_nested(item, roots) for key, item in value.items()}
    return value


REDACTED = "****"
_ABSOLUTE_URL = re.compile(r"^[a-z][a-z0-9+.-]*://", re.IGNORECASE)
_URL_IN_TEXT = re.compile(r"\b[a-z][a-z0-9+.-]*://[^\s'\"<>]+", re.IGNORECASE)
# Parameter names (or parts of them, split at _ - .) that carry credentials.
_SECRET_WORDS = frozenset(
    {
        "token",
        "key",
        "apikey",
        "secret",
        "password",
        "passwd",
        "pwd",
        "pass",
        "auth",
        "authorization",
        "credential",
        "credentials",
        "signature",
        "sig",
        "session",
        "sid",
    }
)


def is_secret_name(name: str) -> bool:
    """True for a parameter or flag name that carries a credential (api_key, --token)."""
    lowered = unquote(name).lower()
    return lowered in _SECRET_WORDS or any(
        part in _SECRET_WORDS for part in re.split(r"[_\-.]", lowered)
    )


def _redact_pairs(text: str) -> str:
    pairs = []
    for pair in text.split("&"):
        name, sep, value = pair.partition("=")
        pairs.append(f"{name}={REDACTED}" if sep and value and is_secret_name(name) else pair)
    return "&".join(pairs)


def redact_url(url: str) -> str:
    """An absolute URL with its user info and credential-like query values masked; other text unchanged."""
    if not _ABSOLUTE_URL.match(url.strip()):
        return url
    try:
        parts = urlsplit(url.strip())
    except ValueError:  # a malformed host: mask everything between the scheme and the path
        return re.sub(r"://[^/?#]*", f"://{REDACTED}", url, count=1)
    netloc = parts.netloc
    if "@" in netloc:
        userinfo, _, hostport = netloc.rpartition("@")
        user, has_password, _ = userinfo.partition(":")
        netloc = f"{user}:{REDACTED}@{hostport}" if has_password else f"{REDACTED}@{hostport}"
    return urlunsplit(
        (
            parts.scheme,
            netloc,
            parts.path,
            _redact_pairs(parts.query),
            _redact_pairs(parts.fragment),
        )
    )


def is_masked_url(text: str) -> bool:
    """True for an absolute URL that `redact_url` masked (its secrets are gone)."""
    return bool(_ABSOLUTE_URL.match(text.strip())) and REDACTED in text


def redact_text(text: str) -> str:
    """Free text (an error message) with every URL in it passed through `redact_url`."""
    return _URL_IN_TEXT.sub(lambda match: redact_url(match.group(0)), text)


def redact_nested(value: Any) -> Any:
    """The value with every string in it, however deep, passed through `redact_url`."""
    if isinstance(value, str):
        return redact_url(value)
    if isinstance(value, list):
        return [redact_nested(item) for item in value]
    if isinstance(value, dict):
        return {key: redact_nested(item) for key, item in value.items()}
    return value


# A credential by its look: a known key prefix, or a long run of letters and digits.
_KEY_LIKE = re.compile(
    r"^(?:(?:sk|pk|rk|tvly|xox[a-z])-\S+|gh[pousr]_\S+|github_pat_\S+|AKIA\S+"
    r"|(?=[\w-]*\d)(?=[\w-]*[A-Za-z])[\w-]{24,})$"
)


def redact_args(args: list[str]) -> list[str]:
    """Command arguments with credentials masked: after a --token-like flag, in one, or key-like."""
    shown: list[str] = []
    after_secret_flag = False
    for arg in args:
        flag, sep, _ = arg.partition("=")
        is_flag = arg.startswith("-")
        secret_flag = is_flag and is_secret_name(flag.lstrip("-"))
        if (after_secret_flag and not is_flag) or _KEY_LIKE.match(arg):
            shown.append(REDACTED)
        elif secret_flag and sep:
            shown.append(f"{flag}={REDACTED}")
        else:
            shown.append(redact_url(arg))
        after_secret_flag = secret_flag and not sep
    return shown
