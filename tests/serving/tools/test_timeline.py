"""timeline: best passage per document grouped by year, undated documents last."""

from __future__ import annotations

from mcp_stdio import run_calls


def test_timeline_over_stdio(served_home):
    async def scenario(c):
        return (await c("timeline", {"query": "variance"})).structured_content

    timeline = run_calls(served_home, scenario)
    assert timeline["years"][-1]["year"] is None or all(g["year"] is not None for g in timeline["years"])
