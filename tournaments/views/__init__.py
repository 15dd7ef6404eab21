"""Function-based views: public pages (public.py) and the organizer's screens (organizer.py)."""
