import gc

from django.apps import AppConfig

# The cyclic collector's first threshold (CPython's default is 700 allocations). A
# worker keeps each event's scoring snapshot in memory (tens of thousands of records), and
# with the default a full collection over them landed in every ~15th first render of a
# 2,048-player standings page, taking it from 20 ms to 50 ms (bench/bench_pages.py). Ten
# times fewer collections removes that; reference counting still frees everything that
# is not a cycle at once, so memory use does not grow with it.
GC_FIRST_THRESHOLD = 10_000


class TournamentsConfig(AppConfig):
    name = "tournaments"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        _first, second, third = gc.get_threshold()
        gc.set_threshold(GC_FIRST_THRESHOLD, second, third)
