"""The customer-support tools, one mixin per area; ``environment.py`` combines them in this order."""

from .accounts import AccountTools
from .billing import BillingTools
from .cases import CaseTools
from .service import ServiceTools

__all__ = ["AccountTools", "BillingTools", "CaseTools", "ServiceTools"]
