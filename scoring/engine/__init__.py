"""Pure scoring engine: EventRecord in, Standings out (standard library only)."""

from .api import compute_standings
from .records import EventRecord, Standings

__all__ = ["EventRecord", "Standings", "compute_standings"]
