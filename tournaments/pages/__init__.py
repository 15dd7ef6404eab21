"""The read model: one function per screen or fragment, plain data from stored rows.

    common.py     small reads several screens share (the clock; the current round
                  and the other domain predicates are tournaments.domain's)
    public.py     the phones' and the venue's pages (standings, pairings, player, ...)
    bracket.py    the top cut as screens show it
    organizer.py  the event screen's panels, the row a result changes

Imports no view; live.py caches what these return, views render it.
"""
