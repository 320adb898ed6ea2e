"""What every marketing tool shares: open campaigns, scheduled sends, text matching."""

from __future__ import annotations

from typing import Any

from pytest_crmbench import ToolEnvironment, require

from ..data_model import OPEN_CAMPAIGN


class MarketingTools(ToolEnvironment):
    """Base of the marketing tool mixins: shared rules, no tools of its own."""

    def open_campaign(self, campaign_id: str, param: str = "campaign_id") -> dict[str, Any]:
        """The campaign, provided it is Planned or In Progress (Completed and Aborted are read-only)."""
        campaign = self.get("campaigns", campaign_id, param=param)
        message = f"Campaign {campaign_id} is {campaign['status']}; it is read-only."
        require(campaign["status"] in OPEN_CAMPAIGN, 409, "CAMPAIGN_CLOSED", message, param=param)
        return campaign

    def scheduled_send(self, send_id: str) -> dict[str, Any]:
        send = self.get("sends", send_id)
        message = f"Send {send_id} is {send['status']}; only a scheduled send can change."
        require(send["status"] == "scheduled", 409, "SEND_NOT_SCHEDULED", message)
        return send
