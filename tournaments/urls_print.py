"""The organizer's print views, under /t/<slug>/manage/print/ (managers only, GET)."""

from django.urls import URLPattern, path

from tournaments.views import printing

urlpatterns: list[URLPattern] = [
    path("", printing.index, name="print_index"),
    path("pairings/by-name/", printing.pairings_by_name, name="print_pairings_by_name"),
    path("pairings/by-table/", printing.pairings_by_table, name="print_pairings_by_table"),
    path("slips/", printing.slips, name="print_slips"),
    path("standings/", printing.standings, name="print_standings"),
    path("pod-seating/", printing.pod_seating, name="print_pod_seating"),
    path("poster/", printing.poster, name="print_poster"),
]
