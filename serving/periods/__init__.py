"""Periods: a publication period written in a question ("before 2010", "in the 1990s", "a 2015
study") read into inclusive year bounds, its clause removed from the searched text. `apply` is
the entry (`apply_period`); `grammar` reads one expression with the words of `words`; `context`
decides where an expression dates the library's documents; `topic` keeps years that are the
question's subject. Imports nothing else of serving (docs/DESIGN.md §6, Periods).
"""
