#!/usr/bin/env python
import os
import sys

if __name__ == "__main__":
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tournaments.settings")
    from django.core.exceptions import ImproperlyConfigured
    from django.core.management import execute_from_command_line

    try:
        execute_from_command_line(sys.argv)
    except ImproperlyConfigured as exc:
        # A setting that is missing or wrong is the reader's to fix: one line naming it,
        # not a traceback through Django's loading of the settings.
        sys.exit(f"Configuration error: {exc}")
