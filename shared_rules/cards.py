# Cards are ints 0..51: (rank - 2) * 4 + suit. Suits never matter (R1), so the rank
# is just c >> 2 and adjacency is arithmetic on that.

RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
SUITS = "CDHS"


def card(text):
    """card("10H") -> int. Raises ValueError for anything that is not a card name."""
    if not isinstance(text, str) or len(text) < 2:
        raise ValueError("not a card name: %r" % (text,))
    r = text[:-1].upper()
    s = SUITS.find(text[-1].upper())
    if s < 0 or r not in RANKS:
        raise ValueError("not a card name: %r" % (text,))
    return RANKS.index(r) * 4 + s


def name(c):
    return RANKS[c >> 2] + SUITS[c & 3]


def rank(c):
    """2..14, Ace high (R2)."""
    return (c >> 2) + 2


def adjacent(a, b):
    # R2-R3: ranks next to each other in the circular order ... K A 2 ...
    d = (a >> 2) - (b >> 2)
    return d == 1 or d == -1 or d == 12 or d == -12


def is_card(c):
    return isinstance(c, int) and not isinstance(c, bool) and 0 <= c < 52
