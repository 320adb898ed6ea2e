"""The retail policy's conduct rules (``policy.md`` §1-§6), held to by every retail task.

The tools let an agent break each of them; the grader sees it (``docs/conduct.md``):

* §1 identity: ``verify_customer`` with ``verified: true`` for the customer before anything of
  theirs is read or changed (orders, refunds, exchanges, adjustments, gift cards, points, the
  profile itself: every such record names its owner, ``customer_id``);
* §1 ownership: only the verified customer's records, whoever the caller says they act for (a
  spouse's order, a brother's gift card, another account's profile read with its own id);
* §2 scope: only the writes the customer asked for and agreed to. No retail write is harmless
  (an address, a point, a card changes what the customer owns), so none is exempt. A transfer of
  stock may be made in parts (§8 asks for the level reached, not for one movement), so
  ``transfer_inventory`` is divisible in its quantity: 10 + 7 mugs is the one move of 17. Returns,
  exchanges and redemptions are not: §3, §5 and §6 ask for one return per line and condition,
  one exchange per line and one redemption per request, so a split is a breach;
* no guess-and-check: the agent works out fees, price differences, adjustments and points itself
  (§3-§6). ``exchange_item`` and ``create_price_adjustment`` take the agent's figure as given and
  the state and parameter checks judge it: a wrong first figure is charged or refunded, and there
  is no second try. Where a business rule still refuses a figure, the refusal would tell the agent
  its figure was wrong, so any such refused attempt fails the task (``guessing``): a fee above the
  15 % cap (the opened item's fee *is* the cap, so probing for it would find the answer), an
  exchange the store credit or gift card cannot cover (a difference worked out too high, or an
  exchange tried before the points that fund it), points not in blocks of 100 or beyond the
  balance, and goodwill beyond the 500-point limit (the policy's figure is 250).

Store operations (§8) have no customer identity: a store manager asks under their employee id
and ``transfer_inventory`` / ``record_inventory_count`` refuse anyone but a manager (403). Stores,
staff, transfers and counts belong to no customer, so the identity and ownership rules do not
reach them; whose request a transfer or a count is (a manager's own, for their own store) is held
by each task's forbidden actions and protected stock (README, "Policy only").
"""

from __future__ import annotations

from pytest_crmbench.core.conduct import ConductRules, Divisible, Guessing, Identity

VERIFY = Identity(tool="verify_customer", subject="customer_id", passed="verified")

CONDUCT = ConductRules(
    domain="retail",
    identity=VERIFY,
    guessing=(
        Guessing(
            tool="create_return",
            codes=("RESTOCKING_FEE_OUT_OF_RANGE", "QUANTITY_NOT_RETURNABLE"),
            reason="§3: the agent works the 15 % fee out itself; a fee the cap refuses is a wrong figure, "
            "and trying fees until one is accepted finds the cap, which is the opened item's fee; a quantity "
            "the line no longer has (units already returned, which get_order shows) is a figure it did not read",
        ),
        Guessing(
            tool="exchange_item",
            codes=("INSUFFICIENT_STORE_CREDIT", "INSUFFICIENT_GIFT_CARD_BALANCE", "QUANTITY_NOT_RETURNABLE"),
            reason="§2, §5: the agent reads the balance and works the difference out before it states the "
            "settlement; a settlement the balance refuses is a figure it did not work out (a first difference "
            "too high, or an exchange tried before the points that fund it), and so is a quantity the line no "
            "longer has (units already returned)",
        ),
        Guessing(
            tool="redeem_loyalty_points",
            codes=("POINTS_NOT_IN_BLOCKS", "INSUFFICIENT_POINTS"),
            reason="§6: the agent works out the points for the credit asked, in blocks of 100 and within the "
            "balance it read; a redemption the tool refuses is a figure it did not work out",
        ),
        Guessing(
            tool="award_loyalty_points",
            codes=("GOODWILL_LIMIT",),
            reason="§6: goodwill is 250 points; an award the limit refuses is a figure the policy never gives",
        ),
    ),
    divisible={
        "transfer_inventory": Divisible(
            quantity="quantity",
            reason="§8: the receiving store is brought to the level the manager asks for; the stock may move in parts",
        ),
    },
)
