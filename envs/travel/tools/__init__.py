"""The travel tools, one mixin per area; ``environment.py`` combines them in this order.

Rules the airline's and the hotels' systems enforce (ownership, seats, routes, fare conditions that
forbid a change, rooms, a prepaid rate, money that cannot go negative or be refunded twice, the bag
limit, exit-row age, insurance on the booking, compensation only for a disrupted flight and only
once) raise rejections. Conduct rules (identity first, an explicit yes, which refund a fare or a
hotel's terms earn, what a disruption is owed, the 24-hour rule, seat fees and tier benefits,
which insurance reasons are covered) live in ``policy.md``: the tools take the amounts the agent
computed, so an agent can break them and a task can see it.
"""

from .flights import FlightTools
from .hotels import HotelTools
from .insurance import InsuranceTools
from .seats import SeatTools
from .service import ServiceTools
from .travellers import TravellerTools

__all__ = ["FlightTools", "HotelTools", "InsuranceTools", "SeatTools", "ServiceTools", "TravellerTools"]
