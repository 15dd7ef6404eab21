"""The production entry point: gunicorn's uvicorn worker (README, venue mode).

Live pages' event streams (/t/<slug>/live/) are answered on the event loop by
tournaments.stream, thousands per process; every other request runs Django as plain WSGI
in a fixed pool of WEB_THREADS threads (a2wsgi), with its persistent database connections,
exactly as under a threaded WSGI server. Request bodies are read on the event loop first
(tournaments.guard), so no page thread waits on a slow client. (Django's own ASGI handler would run each request
in a thread of its own and hop between threads at every sync middleware.)
"""

import os

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tournaments.settings")

from a2wsgi import WSGIMiddleware
from django.conf import settings
from django.core.wsgi import get_wsgi_application

pages = WSGIMiddleware(get_wsgi_application(), workers=settings.WEB_THREADS)

from tournaments.guard import guarded  # noqa: E402
from tournaments.stream import asgi_streams  # noqa: E402  (needs the apps loaded)
from tournaments.timing import server_timing  # noqa: E402

if settings.LIVE_PREWARM:
    # The card index for decklists is built now, in a page thread, not in the first
    # player's submission (tournaments.services.cards.warm_card_lookup).
    from tournaments.services.cards import warm_card_lookup

    pages.executor.submit(warm_card_lookup)

from tournaments import webpush  # noqa: E402

# Web Push (issue 29): an unusable VAPID key stops the server here, in one line; the
# sender delivers the outbox from a thread of this process (tournaments.webpush).
webpush.check_configuration()
if webpush.sender_enabled():
    webpush.start_in_background()

# Bodies are read whole on the event loop before a page thread sees the request (a slow
# client holds a coroutine, never a thread): tournaments/guard.py.
application = guarded(
    asgi_streams(server_timing(pages), pages.executor), proxies=settings.TRUSTED_PROXIES
)
