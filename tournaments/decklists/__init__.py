"""Decklists (issue 28), the pure part: parsing a pasted or uploaded list and checking it
against the event's format and the card data. Imports nothing from Django."""
