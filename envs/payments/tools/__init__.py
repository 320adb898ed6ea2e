"""The payments tools, one mixin per area; ``environment.py`` combines them in this order."""

from .accounts import AccountTools
from .checkout import CheckoutTools
from .history import HistoryTools
from .methods import MethodTools
from .refunds import RefundTools
from .transfers import TransferTools

__all__ = ["AccountTools", "CheckoutTools", "HistoryTools", "MethodTools", "RefundTools", "TransferTools"]
