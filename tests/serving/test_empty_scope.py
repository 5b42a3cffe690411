"""Filters that match no document answer with the filter at fault and the nearest values the
corpus holds, over a real stdio server (search_documents, timeline, list_documents), never as an
absent answer."""

from __future__ import annotations

from mcp_stdio import run_calls

QUERY = "How is value at risk estimated from past returns?"


def test_empty_scopes_over_stdio(served_home):
    async def scenario(c):
        listed = (await c("list_documents", {})).structured_content["documents"]
        dated_2015 = next(d["document_id"] for d in listed if d["year"] == 2015)
        await c(
            "session_put", {"name": "future", "kind": "scope", "provenance": "user_pasted", "value": {"year_min": 2040}}
        )
        calls = {
            "author": ("search_documents", {"query": QUERY, "author": "Nitishinskia"}),
            "years": ("search_documents", {"query": QUERY, "year_min": 2000, "year_max": 2010}),
            "outside": ("search_documents", {"query": QUERY, "document_id": dated_2015, "year_min": 2018}),
            "session": ("search_documents", {"query": QUERY, "scope": {"session": "future"}}),
            "question_period": ("search_documents", {"query": QUERY + " in papers before 1990"}),
            "timeline": ("timeline", {"query": QUERY, "author": "Larkinn Jonathon"}),
            "listing": ("list_documents", {"author": "Margenott", "year_min": 2015}),
            "fine": ("search_documents", {"query": QUERY, "author": "nitishinskaya"}),
        }
        out = {}
        for key, (tool, arguments) in calls.items():
            result = await c(tool, arguments)
            assert not result.is_error, result.content[0].text
            out[key] = (result.structured_content, result.content[0].text)
        return out

    out = run_calls(served_home, scenario)
    for key in ("author", "years", "outside", "session", "question_period", "timeline"):
        structured, text = out[key]
        empty = structured["empty_scope"]
        assert empty is not None and structured["documents_in_scope"] == 0, key
        assert "the filter failed, not the library" in text and "No passage found" not in text, key
        assert f"Next: {empty['next_call']}" in text and empty["corpus_years"] == [2015, 2019], key
        if key != "timeline":
            assert structured["no_answer_likely"] is False and structured["no_answer_probability"] is None
    author = out["author"][0]["empty_scope"]
    assert author["filters"] == ["author"] and "Nitishinskaya" in author["nearest_authors"][0]
    assert "Nitishinskaya" in author["next_call"] and "Nitishinskaya" in out["author"][1]
    years = out["years"][0]["empty_scope"]
    assert years["filters"] == ["year_min", "year_max"] and years["nearest_years"] == [2015]
    assert "2000–2010" in years["reason"] and "year_min=2015" in years["next_call"]
    outside = out["outside"][0]["empty_scope"]
    assert set(outside["filters"]) == {"year_min", "document_id"} and outside["nearest_years"] == [2015]
    assert "dated 2015" in outside["reason"]
    assert out["session"][0]["empty_scope"]["filters"] == ["year_min"]
    assert out["session"][0]["empty_scope"]["nearest_years"] == [2019]
    assert out["question_period"][0]["empty_scope"]["filters"] == ["year_max"]
    assert "Larkin" in out["timeline"][0]["empty_scope"]["nearest_authors"][0]
    listing, text = out["listing"]
    assert listing["total"] == 0 and listing["empty_scope"]["filters"] == ["author"]
    assert listing["empty_scope"]["next_call"] == 'list_documents(author="Maxwell Margenot")'
    assert "the filter failed, not the library" in text
    fine = out["fine"][0]
    assert fine["empty_scope"] is None and fine["results"]
    assert 0.0 <= fine["no_answer_probability"] <= 1.0
