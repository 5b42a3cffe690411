"""search_documents with the caller's help: rephrasings and a hypothetical passage fused with the
question, over the real stdio server (SDK client) and in process."""

from __future__ import annotations

from mcp_stdio import assert_error, run_calls

QUESTION = "How do I tell whether returns have fatter tails than a bell curve?"
ALTERNATIVES = ["excess kurtosis of a return distribution, leptokurtic", "Jarque-Bera normality test skewness kurtosis"]
HYPOTHETICAL = (
    "Kurtosis measures how peaked a distribution is and how heavy its tails are. A normal "
    "distribution has a kurtosis of 3; a leptokurtic distribution, with excess kurtosis above "
    "zero, puts more mass in the tails, which is typical of asset returns."
)


def test_an_mcp_client_sends_alternatives_and_a_hypothetical_passage_and_gets_the_fused_answer(served_home):
    async def scenario(c):
        fused = (
            await c(
                "search_documents",
                {"query": QUESTION, "alternatives": ALTERNATIVES, "hypothetical_passage": HYPOTHETICAL, "limit": 6},
            )
        ).structured_content
        bare = (await c("search_documents", {"query": QUESTION, "limit": 6})).structured_content
        dated = (
            await c(
                "search_documents",
                {
                    "query": "kurtosis of returns",
                    "mode": "bm25",
                    "alternatives": ["kurtosis in papers published after 2016"],
                },
            )
        ).structured_content
        errors = [
            await c("search_documents", {"query": "var", "alternatives": ["a", "b", "c", "d", "e"]}),
            await c("search_documents", {"query": "var", "alternatives": ["x" * 301]}),
            await c("search_documents", {"query": "var", "alternatives": ["  "]}),
            await c("search_documents", {"query": "var", "hypothetical_passage": "y" * 1501}),
            await c("search_documents", {"query": "var", "hypothetical_passage": 7}),
        ]
        return fused, bare, dated, errors

    fused, bare, dated, errors = run_calls(served_home, scenario)
    inputs = fused["searched_text"]
    assert [i["kind"] for i in inputs] == ["question", "alternative", "alternative", "hypothetical"]
    assert [i["text"] for i in inputs] == [QUESTION, *ALTERNATIVES, HYPOTHETICAL]
    assert inputs[0]["weight"] == 1.0 and all(0 < i["weight"] <= 1.0 for i in inputs)
    assert abs(sum(i["share"] for i in inputs) - 1.0) < 0.01
    assert all(0 <= i["in_own_top"] <= len(fused["results"]) for i in inputs)
    assert any(i["in_own_top"] for i in inputs[1:])  # the caller's inputs placed returned passages
    assert fused["results"] and "kurtosis" in " ".join(p["text"].lower() for p in fused["results"][:3])
    assert [i["kind"] for i in bare["searched_text"]] == ["question"] and bare["searched_text"][0]["share"] == 1.0
    assert [p["chunk_id"] for p in fused["results"]] != [p["chunk_id"] for p in bare["results"]]
    # a period written only in an alternative scopes nothing, leaves its text and is reported
    assert dated["period"]["year_min"] is None and dated["documents_in_scope"] is None
    alternative = dated["searched_text"][1]
    assert alternative["period_ignored"] and "2016" not in alternative["text"]
    for result, field in zip(
        errors, ("alternatives", "alternatives", "alternatives", "hypothetical_passage", "hypothetical_passage")
    ):
        assert_error(result, "invalid_argument", field)


def test_the_question_s_period_scopes_every_input(context, invoke):
    reader = context.engine.parts.reader
    out = invoke(
        "search_documents",
        {
            "query": "skewness in papers published after 2016",
            "alternatives": ["value at risk of a portfolio"],
            "hypothetical_passage": HYPOTHETICAL,
            "limit": 10,
        },
    ).structured_content
    assert out["period"]["year_min"] == 2017 and out["documents_in_scope"] == 1
    assert out["results"] and {reader.documents[p["document_id"]].year for p in out["results"]} == {2019}
    assert out["searched_text"][0]["text"] == "skewness" or "2016" not in out["searched_text"][0]["text"]


def test_with_no_other_input_the_answer_is_the_bare_question_s(invoke):
    bare = invoke("search_documents", {"query": QUESTION, "limit": 8}).structured_content
    empty = invoke("search_documents", {"query": QUESTION, "limit": 8, "alternatives": []}).structured_content
    assert [(p["chunk_id"], p["score"]) for p in bare["results"]] == [
        (p["chunk_id"], p["score"]) for p in empty["results"]
    ]


def test_an_alternative_finds_what_the_question_s_words_miss(invoke):
    """A question in words the library does not use: its rephrasing in the library's words brings
    the passages that use them, and the answer credits it."""
    question = "zebra giraffe ocelot"
    bare = invoke("search_documents", {"query": question, "mode": "bm25", "limit": 5}).structured_content
    fused = invoke(
        "search_documents",
        {"query": question, "mode": "bm25", "limit": 5, "alternatives": ["conditional value at risk"]},
    ).structured_content
    assert not bare["results"]
    assert fused["results"] and fused["searched_text"][1]["in_own_top"] == len(fused["results"])
    assert fused["searched_text"][1]["share"] == 1.0


def test_the_description_and_the_prompt_teach_the_caller_to_help():
    from serving.mcp.prompt import research_protocol
    from serving.tools.search_documents import SearchDocumentsInput

    schema = SearchDocumentsInput.model_json_schema()["properties"]
    assert "rephrasings" in schema["alternatives"]["description"]
    assert "not a question" in schema["hypothetical_passage"]["description"]
    text = " ".join(research_protocol("q").split())
    assert "alternatives" in text and "hypothetical_passage" in text and "not as a question" in text
