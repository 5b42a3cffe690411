"""Question scaffolding: the words that frame a research question but name nothing in it.

"According to the literature, what do papers say about CVaR?" asks about CVaR; "according",
"literature", "papers" and "say" name nothing the library could lack, so the abstention's
features (serving.abstention.model) leave them out of a question's terms. Stop words are the analyser's
business; these are the question-framing words beyond them.
"""

from __future__ import annotations

SCAFFOLDING = frozenset(
    """
according describe described describes explain explained explains say says said tell tells
mention mentioned mentions discuss discussed discusses summarise summarize give list show
paper papers article articles literature research study studies work works publication
publications document documents source sources library author authors text texts
""".split()
)
