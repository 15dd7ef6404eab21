"""The decklist checker's problems: templates of the one catalogue (tournaments.messages).

Pure (no Django). The checker makes a `Message` of one of these templates and its values;
a decklist stores its problems as `Message.data()` (Decklist.problems) and a page says
them in its reader's language (tournaments.labels.spoken). Nothing reads a problem's
English back: a card's name is a parameter, whatever it says.

A problem about one line of the list is `LINE(line=n, problem=<the problem's Message>)`;
one found in a .dek file before it was turned into text is `DEK_FILE(problem=...)`.

The English texts are the msgids of the shipped catalogues (locale/*/LC_MESSAGES): a
change here is a change there.
"""

from __future__ import annotations

from tournaments.messages import gettext_noop, ngettext, template

# A problem about one line of the list: %(problem)s is one of the others (a Message).
LINE = template("decklist.line", gettext_noop("line %(line)s: %(problem)s"))
DEK_FILE = template("decklist.dek_file", gettext_noop("in the .dek file: %(problem)s"))

# What an older version stored as a sentence no template makes (migration 0017): shown as
# it was written, untranslated. Not marked: there is nothing to translate.
STORED_TEXT = template("decklist.stored_text", "%(text)s")

# Reading the text forms.
COUNT_DIGITS = template(
    "decklist.count_digits",
    gettext_noop("the count %(count)s must be written with the digits 0-9"),
)
COUNT_TOO_BIG = template(
    "decklist.count_too_big", gettext_noop("a count of %(count)s is more than %(most)s")
)
COUNT_ZERO = template(
    "decklist.count_zero", gettext_noop("a count of 0: leave the card out instead")
)
COUNT_UNREADABLE = template("decklist.count_unreadable", gettext_noop("the count cannot be read"))
NO_NAME = template("decklist.no_name", gettext_noop("the line has a count but no card name"))
NO_COUNT = template(
    "decklist.no_count", gettext_noop("%(text)s has no count: write it as '1 %(name)s'")
)
NAME_TOO_LONG = template(
    "decklist.name_too_long", gettext_noop("a card name is at most %(most)s characters")
)
LIST_UNREADABLE = template(
    "decklist.list_unreadable", gettext_noop("the list could not be read (%(error)s)")
)
LIST_NOT_TEXT = template("decklist.list_not_text", gettext_noop("the list is not text"))
TOO_MANY_LINES = template(
    "decklist.too_many_lines", gettext_noop("the list has more than %(most)s lines")
)

# Reading MTGO's .dek.
DEK_UNREADABLE = template(
    "decklist.dek_unreadable", gettext_noop("the .dek file could not be read (%(error)s)")
)
DEK_NOT_TEXT = template("decklist.dek_not_text", gettext_noop("the .dek file is not text"))
DEK_NO_NAME = template("decklist.dek_no_name", gettext_noop("a card without a name"))
DEK_NO_QUANTITY = template("decklist.dek_no_quantity", gettext_noop("%(name)s has no quantity"))
DEK_QUANTITY = template(
    "decklist.dek_quantity",
    gettext_noop("the quantity %(quantity)s of %(name)s is not a number"),
)
DEK_QUANTITY_UNREADABLE = template(
    "decklist.dek_quantity_unreadable", gettext_noop("the quantity cannot be read")
)
DEK_TOO_MANY = template(
    "decklist.dek_too_many", gettext_noop("the .dek file has more than %(most)s cards")
)
DEK_ENTITIES = template(
    "decklist.dek_entities",
    gettext_noop("the .dek file declares a DOCTYPE or entities: not accepted"),
)
DEK_NOT_XML = template(
    "decklist.dek_not_xml",
    gettext_noop("the .dek file is not well-formed XML (line %(line)s): %(error)s"),
)
DEK_NOT_DEK = template(
    "decklist.dek_not_dek", gettext_noop("the file is not an MTGO .dek file (no <Deck>)")
)

# Checking against the format and the card data.
NOT_A_CARD = template("decklist.not_a_card", gettext_noop("'%(name)s' is not a card"))
NOT_A_CARD_HINT = template(
    "decklist.not_a_card_hint",
    gettext_noop("'%(name)s' is not a card; did you mean %(suggestion)s?"),
)
BANNED = template("decklist.banned", gettext_noop("%(name)s is banned in %(format)s"))
RESTRICTED = template(
    "decklist.restricted",
    gettext_noop("%(name)s is restricted in %(format)s: at most 1 copy, the list has %(count)s"),
)
NOT_LEGAL = template("decklist.not_legal", gettext_noop("%(name)s is not legal in %(format)s"))
TOO_MANY_COPIES = template(
    "decklist.too_many_copies",
    ngettext(
        "%(count)s copy of %(name)s (main deck and sideboard): at most %(most)s allowed",
        "%(count)s copies of %(name)s (main deck and sideboard): at most %(most)s allowed",
        "count",
    ),
)
MAIN_TOO_SMALL = template(
    "decklist.main_too_small",
    ngettext(
        "the main deck has %(count)s card: at least %(least)s are needed",
        "the main deck has %(count)s cards: at least %(least)s are needed",
        "count",
    ),
)
SIDE_TOO_BIG = template(
    "decklist.side_too_big",
    ngettext(
        "the sideboard has %(count)s card: at most %(most)s are allowed",
        "the sideboard has %(count)s cards: at most %(most)s are allowed",
        "count",
    ),
)

# A list refused whole (nothing in it could be registered): shown at once in the
# request's language, and stored when a list checked again is refused (the rules or the
# card data changed, a backup restored): tournaments.services.decklists.ListRefused.
LIST_EMPTY = template(
    "decklist.list_empty",
    gettext_noop("The list is empty: paste your list, or choose a .txt or .dek file."),
)
LIST_TOO_LONG = template(
    "decklist.list_too_long",
    gettext_noop(
        "The list is longer than %(most)s kB: a decklist is at most 250 lines. Paste only the list."
    ),
)
DEK_NO_CARDS = template("decklist.dek_no_cards", gettext_noop("it holds no cards"))
