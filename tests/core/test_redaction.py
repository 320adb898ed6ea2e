"""The one redaction of secrets: by variable name, inside URLs, in JSON text, before any cut."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_crmbench.core.redaction import _URL, REDACTED, clip, redact, redacted_text, scrub_urls, secret_values


def test_secrets_are_found_by_variable_name_and_redacted_everywhere() -> None:
    environ = {
        "OPENAI_API_KEY": "sk-abcdef123456",
        "GITHUB_TOKEN": "ghp_xyz98765",
        "HOME": "/home/someone",
        "SHORT_KEY": "abc",
    }
    secrets = secret_values(environ)
    assert set(secrets) == {"sk-abcdef123456", "ghp_xyz98765"}
    value = {"args": ["--crm-api-base=https://sk-abcdef123456@host", "-k", "x"], "n": 1, "home": "/home/someone"}
    assert redact(value, secrets) == {
        "args": [f"--crm-api-base=https://{REDACTED}@host", "-k", "x"],
        "n": 1,
        "home": "/home/someone",
    }


def test_the_environment_is_the_default_source(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret-value-123")
    assert redact("Incorrect API key provided: sk-secret-value-123.") == f"Incorrect API key provided: {REDACTED}."


def test_urls_lose_their_credentials_wherever_they_appear() -> None:
    arg = "--crm-api-base=https://alice:sk-live-SECRET@proxy.example.com/v1?api_key=QUERYSECRET"
    assert scrub_urls(arg) == "--crm-api-base=https://<redacted>@proxy.example.com/v1?<redacted>"
    assert scrub_urls("http://127.0.0.1:8000/v1") == "http://127.0.0.1:8000/v1"
    assert "SECRET" not in json.dumps(redact({"pytest": {"args": ["-k", "x", arg]}}, []))


@given(
    st.lists(st.sampled_from(["a", "b:", ":/", "//", "@", "?", "k=v", " ", "/", "#", "h.example", "1"])).map("".join)
)
def test_text_without_a_scheme_separator_cannot_hold_a_url(text: str) -> None:
    # scrub_urls returns text without "://" untouched, without running the pattern (a trajectory
    # line is tens of KB and rarely holds a URL): sound only if the pattern never matches there.
    if "://" not in text:
        assert _URL.search(text) is None
        assert scrub_urls(text) is text
    else:
        assert "://" in scrub_urls(text)


def test_a_secret_is_found_in_json_text_too() -> None:
    secret = 'pa"ss\\word-12345'
    line = json.dumps({"error": f"rejected {secret}"})
    assert secret not in json.loads(redact(line, [secret]))["error"]


@pytest.mark.parametrize("cut", range(280, 320))
def test_redaction_comes_before_the_cut(cut: int) -> None:
    # Errors were once cut to 300 characters and then redacted: a key across the cut survived as
    # "...key sk-test-SE" in results.jsonl, traces and the terminal (issue 11 item 15).
    secret = "sk-test-SECRETKEY-0123456789"
    text = "x" * (cut - 10) + " key " + secret + " and more"
    shown = redacted_text(text, 300, [secret])
    assert len(shown) <= 300
    assert not any(secret[:n] in shown for n in range(6, len(secret) + 1))


def test_clip_marks_a_cut() -> None:
    assert clip("abcdef", 4) == "abc…"
    assert clip("abc", 4) == "abc"
