"""list_documents: the bibliography newest first, filters, pages, bad arguments."""

from __future__ import annotations

from mcp_stdio import assert_error, run_calls


def test_list_documents_over_stdio(served_home):
    async def scenario(c):
        docs = (await c("list_documents", {"limit": 2})).structured_content
        assert_error(await c("list_documents", {"limit": 0}), "invalid_argument", "limit")
        return docs

    docs = run_calls(served_home, scenario, warm_up=False)
    years = [d["year"] for d in docs["documents"]]
    assert years == sorted(years, reverse=True) and docs["next_offset"] == 2


def test_list_documents_filters_and_pages(invoke):
    everything = invoke("list_documents", {}).structured_content
    assert everything["total"] == 3 and everything["documents"][-1]["year"] is None
    page = invoke("list_documents", {"offset": 1, "limit": 1}).structured_content
    assert page["documents"][0] == everything["documents"][1] and page["next_offset"] == 2
    titled = invoke("list_documents", {"title": "dispersion"}).structured_content
    assert [d["title"] for d in titled["documents"]] == ["Measures of Dispersion"]
    dated = invoke("list_documents", {"year_max": 2016}).structured_content
    assert [d["year"] for d in dated["documents"]] == [2015]


def test_year_bounds_are_inclusive_and_undated_documents_come_last(invoke):
    """The description's claims: inclusive bounds, a bound drops undated documents, undated last."""

    def years(**arguments):
        return [d["year"] for d in invoke("list_documents", arguments).structured_content["documents"]]

    assert years() == [2019, 2015, None]
    assert years(year_min=2015, year_max=2015) == [2015]
    assert years(year_min=2015, year_max=2019) == [2019, 2015]
    assert years(year_min=2019) == [2019] and years(year_max=2015) == [2015]
