"""The one redaction of secrets: whatever crmbench writes or prints passes through :func:`redact`.

Secrets are the values of environment variables named like credentials (``OPENAI_API_KEY``,
``GITHUB_TOKEN`` ...) and the credentials inside URLs (``https://user:key@host``, ``?api_key=``).
Text is always redacted *before* it is cut to a length (:func:`redacted_text`): cutting first
could split a key so that its head no longer matches and survives (issue 11 item 15).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

T = TypeVar("T")

REDACTED = "<redacted>"
MIN_SECRET_CHARS = 8
"""Shorter values (``AUTH_MODE=on``) are too common as ordinary words to replace everywhere."""

_SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL|AUTH", re.IGNORECASE)
_URL = re.compile(
    r"(?P<scheme>[a-zA-Z][a-zA-Z0-9+.-]*://)(?P<userinfo>[^/@\s]*@)?(?P<rest>[^\s?#]*)(?P<query>[?#]\S*)?"
)


def is_secret_name(name: str) -> bool:
    """Whether an environment variable is named like a credential (``OPENAI_API_KEY``, ``GH_TOKEN``)."""
    return bool(_SECRET_NAME.search(name))


def secret_values(environ: Mapping[str, str] | None = None) -> list[str]:
    """Values of environment variables named like credentials, longest first."""
    environ = os.environ if environ is None else environ
    found = {v for k, v in environ.items() if _SECRET_NAME.search(k) and len(v) >= MIN_SECRET_CHARS}
    return sorted(found, key=len, reverse=True)


def scrub_urls(text: str) -> str:
    """URLs without credentials: userinfo (``user:key@``) and query strings (``?api_key=``) go."""
    if "://" not in text:  # every URL the pattern matches has one; a trajectory line rarely does
        return text

    def clean(match: re.Match[str]) -> str:
        userinfo = REDACTED + "@" if match.group("userinfo") else ""
        query = "?" + REDACTED if match.group("query") else ""
        return f"{match.group('scheme')}{userinfo}{match.group('rest')}{query}"

    return _URL.sub(clean, text)


def redact(value: T, secrets: Sequence[str] | None = None) -> T:
    """``value`` with every secret replaced, at any depth of strings, mappings and lists.

    ``secrets`` defaults to :func:`secret_values` of the current environment. A secret is also
    found in its JSON-escaped form, so JSON text (a result line) is redacted as well as its values.
    """
    known = secret_values() if secrets is None else list(secrets)
    return _redact(value, known)  # type: ignore[no-any-return]


def _redact(value: Any, secrets: list[str]) -> Any:
    if isinstance(value, str):
        for secret in secrets:
            value = value.replace(secret, REDACTED)
            escaped = json.dumps(secret)[1:-1]
            if escaped != secret:
                value = value.replace(escaped, REDACTED)
        return scrub_urls(value)
    if isinstance(value, Mapping):
        return {k: _redact(v, secrets) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_redact(v, secrets) for v in value]
    return value


def clip(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, marked with an ellipsis when cut."""
    return text if len(text) <= limit else text[: max(0, limit - 1)] + "…"


def redacted_text(text: str, limit: int | None = None, secrets: Sequence[str] | None = None) -> str:
    """Redact, then (never before) cut to ``limit`` characters."""
    cleaned = redact(text, secrets)
    return cleaned if limit is None else clip(cleaned, limit)
