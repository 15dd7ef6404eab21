"""The only writers, one module per concern; each write runs in `writing.writing(...)`.

    writing.py    the block every write runs in: transaction, lock, audit, version,
                  recompute of the standings, live pages told after commit
    players.py    register, rename, drop, re-admit
    results.py    a match's result, a league table's places
    rounds.py     pair the next round, undo it, the Day-2 cut
    playoff.py    the top cut: seed it, pair its next round
    corrections.py  after a correction moved the cut's seeds: re-seed it or keep it
    lifecycle.py  create, plan, finish
    clock.py      the round clock
    staff.py      who may run the event
    imports.py    an interchange document becomes an event

The names below are the package's public API (views, commands, the admin and tests
call `services.record_result(...)`); each lives in the module that its concern names.
"""

from tournaments.services.clock import add_clock_minutes, pause_clock, resume_clock, start_clock
from tournaments.services.corrections import keep_top_cut, reseed_top_cut
from tournaments.services.imports import import_document
from tournaments.services.lifecycle import (
    create_tournament,
    finish,
    new_seed,
    reopen,
    update_plan,
)
from tournaments.services.players import (
    DuplicateNames,
    drop_player,
    readmit_player,
    register_players,
    remove_player,
    rename_player,
)
from tournaments.services.playoff import start_top_cut
from tournaments.services.results import check_two_player_result, record_game, record_result
from tournaments.services.rounds import cut_to_next_phase, pair_next_round, undo_round
from tournaments.services.seating import round_rng
from tournaments.services.staff import (
    add_staff,
    create_account,
    create_staff_account,
    remove_staff,
    renew_set_password_link,
    set_password_path,
    set_staff_role,
)
from tournaments.services.writing import ServiceError, lock, writing

__all__ = [
    "DuplicateNames",
    "ServiceError",
    "add_clock_minutes",
    "add_staff",
    "check_two_player_result",
    "create_account",
    "create_staff_account",
    "create_tournament",
    "cut_to_next_phase",
    "drop_player",
    "finish",
    "import_document",
    "keep_top_cut",
    "lock",
    "new_seed",
    "pair_next_round",
    "pause_clock",
    "readmit_player",
    "record_game",
    "record_result",
    "register_players",
    "remove_player",
    "remove_staff",
    "rename_player",
    "renew_set_password_link",
    "reopen",
    "reseed_top_cut",
    "resume_clock",
    "round_rng",
    "set_password_path",
    "set_staff_role",
    "start_clock",
    "start_top_cut",
    "undo_round",
    "update_plan",
    "writing",
]
