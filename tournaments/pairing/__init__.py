"""Pure pairing engines: Swiss, round robin (pod), league tables and top-cut brackets.

Standard library plus rustworkx (exact matching for Swiss); no Django.  Callers pass
plain frozen dataclasses and a seeded `random.Random`; results are plain data.
"""

from tournaments.pairing.bracket import (
    BracketMatch,
    final_placings,
    next_round,
    seed_top_cut,
    suggested_swiss_rounds,
)
from tournaments.pairing.round_robin import RoundRobinRound, round_robin_schedule
from tournaments.pairing.swiss import (
    Pairing,
    PairingCost,
    RestrictedCost,
    SwissPlayer,
    cost,
    lower_bound,
    pair_swiss,
    pair_swiss_exact,
    restricted_cost,
)
from tournaments.pairing.tables import (
    Seating,
    TablePlayer,
    repeat_meetings,
    seat_tables,
    table_sizes,
)

__all__ = [
    "BracketMatch",
    "Pairing",
    "PairingCost",
    "RestrictedCost",
    "RoundRobinRound",
    "Seating",
    "SwissPlayer",
    "TablePlayer",
    "cost",
    "final_placings",
    "lower_bound",
    "next_round",
    "pair_swiss",
    "pair_swiss_exact",
    "repeat_meetings",
    "restricted_cost",
    "round_robin_schedule",
    "seat_tables",
    "seed_top_cut",
    "suggested_swiss_rounds",
    "table_sizes",
]
