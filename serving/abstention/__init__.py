"""Abstention: the probability that the library holds no answer to a question, one scale in every
mode. `model` holds the logistic models and their features; `terms` a question's content stems
and their IDF in the library (which a hit's matching sentences are weighed in too); `coverage` a
question's semantic coverage over the top passages' token vectors; `scaffolding` the
question-framing words no topic is made of. Reads the parts it is handed (a BM25 index, a reader,
token vectors), never the engine (docs/DESIGN.md §6, Abstention).
"""
