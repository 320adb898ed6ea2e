"""The progress line never breaks pytest's line of letters (issue 32, smaller ones).

It used to be written whenever it was due, so a line of ``u`` and ``F`` letters was cut in two, the
second half without its file name. Now, at the default verbosity, it waits until pytest itself ends
a line (at the terminal's width, after ``[ NN%]``) and goes between two lines of letters.
"""

from __future__ import annotations

import re

from tests.integration.helpers import CrmProject
from tests.integration.test_models import payments  # noqa: F401  (fixture)

LETTERS = re.compile(r"^(tasks/payments\.yaml )?[.uFEs]+ +\[ *\d+%\]$")


def test_progress_lines_sit_between_whole_lines_of_letters(payments: CrmProject) -> None:  # noqa: F811
    result = payments.run("--crm-agent=null", "--crm-progress=0.000001", "-p", "no:randomly")
    lines = result.stdout.lines
    shown = [i for i, line in enumerate(lines) if "crmbench progress:" in line]
    assert len(shown) >= 3, result.stdout.str()
    for i in shown:
        assert lines[i].startswith("crmbench progress: ")  # never after letters on the same line
        assert LETTERS.match(lines[i - 1]), lines[i - 1]  # the line above is whole, with its [ NN%]
        assert LETTERS.match(lines[i + 1]) or "crmbench progress:" in lines[i + 1], lines[i + 1]
    letters = [line for line in lines if re.fullmatch(r"(tasks/payments\.yaml )?[.uFEs]+( +\[ *\d+%\])?", line)]
    assert len(letters) > len(shown)
    assert all(LETTERS.match(line) for line in letters), "a line of letters was cut: " + repr(letters)
