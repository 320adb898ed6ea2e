"""The support desk's conduct rules (``policy.md`` §1-§3, §5-§7), held to by every support task.

The tools let an agent break each of them; the grader sees it (``docs/conduct.md``):

* §1 identity: ``verify_customer`` with ``verified: true`` for the account (id, holder's full
  name and the service postal code) before anything about the account is read or changed;
  outages and knowledge articles are public (``check_outages``, ``search_knowledge``,
  ``get_article`` touch no customer's records) and need none;
* §1 ownership: one customer per conversation, the verified account; no tool names a legitimate
  second party (a case, an invoice, a payment, a credit, a refund, a comment and a hand-off all
  belong to one account), so nothing is declared as a counterparty;
* §3 scope: only the writes the conversation needs — a question fully answered in the chat
  changes nothing, a credit or refund nobody is owed is not a gesture of goodwill (§6), no
  outage credit while the outage is active (§7), no hand-off nobody asked for (§5). A comment on
  the customer's own open case is always harmless: it records the conversation and changes
  nothing the customer has (status, priority, queue, money) — §3 and §5 ask for one in several
  situations, and adding what was said to the case is never against the policy.

No precondition is declared: the policy's "read the invoice before crediting it" (§6) is a read
with no positive answer to check, left to the contracts' orders and the mutation hints. No tool
answers "wrong figure" to a computed amount (credits and refunds are bounded by the line, the
payment and the 150.00 limit, never checked against an expected value), so there is no guessing
rule: the state checks judge the arithmetic. No write is divisible: §6 forbids splitting one
line's correction into several credits, and a refund is one excess refunded once.
"""

from __future__ import annotations

from pytest_crmbench.core.conduct import ConductRules, Identity

VERIFY = Identity(tool="verify_customer", subject="account_id", passed="verified")

CONDUCT = ConductRules(
    domain="customer_support",
    identity=VERIFY,
    harmless_writes={
        "add_comment": "§3, §5: a comment on the customer's own case records the conversation; it changes no status,"
        " priority, queue or amount",
    },
)
