"""The state directory: its layout (every path and file name, atomic writes), the corpus signature
and its freeze, journal-first writes, the single-writer lock and generations of embedded stores.
"""
