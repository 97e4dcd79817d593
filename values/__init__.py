"""daihinmin.values: cards and moves, the exact immutable values every other package uses.

They sit below the rules; the 8x15 table and its codec (the wire) are in :mod:`daihinmin.protocol`.
"""
