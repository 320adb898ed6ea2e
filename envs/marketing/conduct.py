"""The marketing policy's conduct rules (``policy.md`` §1-§5), held to by every marketing task.

**No identity rule.** The user is a member of NorthPeak's marketing team (or a sales colleague)
working the platform on the company's behalf (policy preamble); there is no customer to verify and
no tool that verifies anyone. Contacts are the company's audience, not the user's private records,
so there is no ownership check either: the conduct family's ownership is relative to a verified
customer, and here every contact, segment, campaign and send belongs to the same marketing team.

What does hold on every task, and is the only negative check marketing has (the specification
gives the domain no forbidden or protected declarations, N = 0):

* **scope**: only the writes the user asked for, and no more of one than asked. A question (a
  contact's status, an A/B result, a refused re-subscription) changes nothing; a campaign created
  twice, a second ``schedule_send`` to the same segment, a budget transfer nobody asked for, an
  unasked status change or cancellation all fail ``conduct.scope``. No write is always harmless:
  every marketing write changes who is emailed, with what, or with whose money.
* **divisible**: removing contacts from a segment may be done in several calls (``contact_ids``
  adds up); the state checks judge who is left.
* no **precondition** rule: §4's "read the segment before scheduling" is a read with no pass/fail
  answer, so it stays an action-order check where the tasks need it.
* no **guessing** rule: no marketing tool answers "wrong figure" (a budget transfer is bounded by
  the unspent budget, a hard limit, not checked against an expected value; A/B rates are the
  agent's arithmetic, judged in the reply).
"""

from __future__ import annotations

from pytest_crmbench.core.conduct import ConductRules, Divisible

CONDUCT = ConductRules(
    domain="marketing",
    divisible={
        "remove_from_segment": Divisible(
            quantity="contact_ids",
            reason="§2: non-consented contacts are removed before a commercial send; in one call or several",
        ),
    },
)
