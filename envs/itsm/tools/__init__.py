"""The itsm tools, one mixin per area; ``environment.py`` combines them."""

from .changes import ChangeTools
from .cmdb import CmdbTools
from .incidents import IncidentTools
from .people import PeopleTools
from .problems import ProblemTools
from .requests import RequestTools

__all__ = ["ChangeTools", "CmdbTools", "IncidentTools", "PeopleTools", "ProblemTools", "RequestTools"]
