"""The public read-only JSON API, included at /t/<slug>/ before the player page.

A player id may hold "/" and "." (shared/spec/interchange.md): <path:pid> followed by
".json" takes everything up to the last ".json", so "team/1.x" is
players/team/1.x.json. The player page's own pattern ends in "/", so the two never meet.
"""

from django.urls import URLPattern, path

from tournaments.views import api, outlook

urlpatterns: list[URLPattern] = [
    path("standings.json", api.standings, name="api_standings"),
    path("pairings.json", api.pairings, name="api_pairings"),
    path("players/<path:pid>.json", api.player, name="api_player"),
    path("outlook.json", api.outlook, name="api_outlook"),
    # Not JSON: a player's "What do I need?" card asking for itself while it computes
    # (outside players/, whose ids may hold "/": no player page can be shadowed).
    path("outlook/<path:pid>/", outlook.card, name="outlook_card"),
]
