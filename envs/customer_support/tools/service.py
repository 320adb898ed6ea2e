"""Knowledge articles and network outages (public information: no account needed), and linking a
customer's case to an outage."""

from __future__ import annotations

from typing import Any

from pytest_crmbench import require, tool
from pytest_crmbench.env.values import norm

from .base import SupportTools


class ServiceTools(SupportTools):
    @tool(kind="read", prose=("query",))
    def search_knowledge(self, query: str) -> dict[str, Any]:
        """Search the knowledge base; returns up to three articles (id, title, summary), best first.

        Args:
            query: A few words describing the problem, e.g. "wifi slow evenings".
        """
        words = set(norm(query).replace(",", " ").split())
        scored = []
        for article in self.state["articles"].values():
            vocabulary = set(norm(" ".join([article["title"], *article["keywords"]])).split())
            score = len(words & vocabulary)
            if score:
                scored.append((-score, article["article_id"], article))
        scored.sort(key=lambda row: row[:2])
        hits = [{k: a[k] for k in ("article_id", "title", "topic", "summary")} for _, _, a in scored[:3]]
        return {"query": query, "articles": hits}

    @tool(kind="read")
    def get_article(self, article_id: str) -> dict[str, Any]:
        """Get a knowledge article in full.

        Args:
            article_id: Article id, e.g. "KA-0101".
        """
        return self.get("articles", article_id)

    @tool(kind="read")
    def check_outages(self, postal_code: str) -> dict[str, Any]:
        """List the network outages that cover a postal code: active ones and those that ended in
        the last 30 days, with their services, start and end times.

        Args:
            postal_code: Service-address postal code, e.g. "78704".
        """
        code = postal_code.strip()
        rows = [
            o
            for o in self.state["outages"].values()
            if code in o["postal_codes"] and (o["ended_at"] is None or self.age_days(o["ended_at"]) <= 30)
        ]
        rows.sort(key=lambda o: o["started_at"], reverse=True)
        return {"postal_code": code, "outages": rows}

    @tool(kind="write")
    def link_case_to_outage(self, account_id: str, case_id: str, outage_id: str) -> dict[str, Any]:
        """Attach a customer's open case to an active outage that affects their service (the
        network operations team's master ticket); the case is updated when the outage ends.

        Args:
            account_id: The verified customer's account id.
            case_id: The customer's open case.
            outage_id: Outage id, e.g. "OUT-7001".
        """
        case = self.open_case(account_id, case_id)
        outage = self.get("outages", outage_id)
        require(outage["status"] == "active", 409, "OUTAGE_RESOLVED", f"{outage_id} has ended.", param="outage_id")
        message = f"{case_id} is already linked to {case['outage_id']}."
        require(case["outage_id"] is None, 409, "ALREADY_LINKED", message, param="case_id")
        account = self.state["accounts"][account_id]
        kinds = {s["kind"] for s in account["services"]}
        affected = account["postal_code"] in outage["postal_codes"] and kinds & set(outage["services"])
        message = f"{outage_id} does not cover {account_id}'s services at {account['postal_code']}."
        require(bool(affected), 422, "NOT_AFFECTED", message, param="outage_id")
        case["outage_id"] = outage_id
        return {"case_id": case_id, "outage_id": outage_id}
