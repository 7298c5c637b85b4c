"""The portable cluster snapshot: what ``tasplan snapshot`` writes and ``--cluster`` reads.

``prune`` keeps the scheduling-relevant part of each object, ``format`` encodes pods as a
table of shared metadata and specs (the reason a snapshot reloads an order of magnitude
faster than a ``kubectl get -o json`` dump), ``write`` stores it atomically, optionally gzip.
"""
