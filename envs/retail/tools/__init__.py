"""The retail tools, one mixin per area over :class:`~.base.RetailRules`.

Rules the business enforces (ownership, order states, windows, final sale, quantities, the
restocking-fee cap, money that must add up, stock on hand, a manager's authority) raise
rejections; conduct rules (identity first, an explicit yes, which fee applies, where money goes,
what to offer, whose store) live in ``policy.md`` so an agent can break them and a task can see it.
"""

from .exchanges import ExchangeTools
from .orders import CustomerTools
from .returns import ReturnTools
from .rewards import RewardTools
from .stores import StoreTools

__all__ = ["CustomerTools", "ExchangeTools", "ReturnTools", "RewardTools", "StoreTools"]
