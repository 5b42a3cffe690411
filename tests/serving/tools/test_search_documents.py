"""search_documents: results, windows, anchors, filters, periods, sessions, modes, bad arguments."""

from __future__ import annotations

from mcp_stdio import assert_error, run_calls

from corpus.config import ServedConfig
from corpus.state.layout import StateLayout
from corpus.state.signature import compute_signature


def test_search_over_stdio(served_home):
    async def scenario(c):
        out = {
            "search": (
                await c("search_documents", {"query": "How is value at risk estimated from past returns?", "limit": 4})
            ).structured_content
        }
        out["hybrid"] = (
            await c("search_documents", {"query": "kurtosis of papers published before 2018", "mode": "hybrid"})
        ).structured_content
        out["bm25"] = (
            await c("search_documents", {"query": "kurtosis", "mode": "bm25", "author": "EVGENIA"})
        ).structured_content
        await c(
            "session_put", {"name": "recent", "kind": "scope", "provenance": "user_pasted", "value": {"year_min": 2016}}
        )
        out["scoped"] = (
            await c("search_documents", {"query": "skewness", "scope": {"session": "recent"}})
        ).structured_content
        return out

    out = run_calls(served_home, scenario)
    layout = StateLayout(served_home)
    signature = compute_signature(layout)
    search = out["search"]
    assert search["mode"] == ServedConfig().default_mode and search["results"] and search["trace"]["window"] == 10_000
    assert search["trace"]["corpus_signature"] == signature
    for p in search["results"]:
        assert set(p) >= {
            "chunk_id",
            "document_id",
            "score",
            "cite",
            "section",
            "text",
            "anchor",
            "flags",
            "truncated",
            "remaining_chars",
            "continuation",
        }
        start, end = p["anchor"]["ranges"][0]
        canonical = layout.canonical_text(p["document_id"]).read_text(encoding="utf-8")
        assert canonical[start:end].startswith(p["text"][:200])
    per_doc = [p["document_id"] for p in search["results"]]
    assert max(per_doc.count(d) for d in per_doc) <= ServedConfig().per_document
    hybrid = out["hybrid"]
    assert hybrid["mode"] == "hybrid" and hybrid["period"]["year_max"] == 2017
    assert hybrid["period"]["clause"] and "2018" not in hybrid["searched_text"][0]["text"]
    assert hybrid["documents_in_scope"] == 1  # 2015 only: 2019 is out, the undated one excluded
    assert out["bm25"]["results"] and all(
        "Nitishinskaya" in " ".join(p["cite"]["authors"]) for p in out["bm25"]["results"]
    )
    assert out["scoped"]["period"]["year_min"] == 2016 and out["scoped"]["period"]["source_min"] == "session"


def test_bad_arguments_are_structured_errors(served_home):
    async def scenario(c):
        assert_error(await c("search_documents", {"query": 42}), "invalid_argument", "query")
        assert_error(await c("search_documents", {"query": "var", "limit": 1000}), "invalid_argument", "limit")
        assert_error(await c("search_documents", {"query": ""}), "invalid_argument", "query")
        assert_error(await c("search_documents", {"query": "   "}), "invalid_argument", "query")
        assert_error(await c("search_documents", {"query": "x" * 100_000}), "invalid_argument", "query")
        assert_error(await c("search_documents", {"query": "var", "mode": "magic"}), "invalid_argument", "mode")
        assert_error(
            await c("search_documents", {"query": "var", "colour": "red"}), "invalid_argument", "unknown argument"
        )
        assert_error(
            await c("search_documents", {"query": "var", "year_min": 2020, "year_max": 2010}), "invalid_argument"
        )
        return True

    assert run_calls(served_home, scenario, warm_up=False)


def test_bm25_search_selection_and_period(context, invoke):
    out = invoke(
        "search_documents", {"query": "skewness kurtosis variance", "mode": "bm25", "limit": 10}
    ).structured_content
    reader = context.engine.parts.reader
    docs = [p["document_id"] for p in out["results"]]
    assert out["results"] and max(docs.count(d) for d in docs) <= context.config.per_document
    for p in out["results"]:
        passage = reader.passages[p["chunk_id"]]
        assert len(passage.text.strip()) >= context.config.min_passage_chars
        assert p["text"] == passage.text.rstrip() and not p["truncated"]
    scores = [p["score"] for p in out["results"]]
    assert scores == sorted(scores, reverse=True)

    dated = invoke(
        "search_documents", {"query": "skewness in papers published after 2016", "mode": "bm25"}
    ).structured_content
    assert dated["period"]["year_min"] == 2017 and dated["period"]["source_min"] == "question"
    assert "2016" not in dated["searched_text"][0]["text"]
    assert {reader.documents[p["document_id"]].year for p in dated["results"]} == {2019}
    caller = invoke(
        "search_documents", {"query": "skewness in papers published after 2016", "mode": "bm25", "year_min": 2010}
    ).structured_content
    assert caller["period"]["year_min"] == 2010 and caller["period"]["source_min"] == "caller"
    # the caller's bound wins: the 2015 document is back in scope (the undated one never is)
    assert (dated["documents_in_scope"], caller["documents_in_scope"]) == (1, 2)
    off = invoke(
        "search_documents", {"query": "papers published after 2016 on skewness", "mode": "bm25", "auto_period": False}
    ).structured_content
    assert off["period"]["year_min"] is None and off["searched_text"][0]["text"].endswith("skewness")


def test_a_narrow_scope_fills_the_limit_and_the_period_says_its_rule(context, invoke):
    reader = context.engine.parts.reader
    document_id, passages = max(reader.by_document.items(), key=lambda item: len(item[1]))
    limit = min(8, len(passages))
    assert limit > 2  # more than the old cap of 2, so starvation would show
    out = invoke(
        "search_documents", {"query": "variance of returns", "document_id": document_id, "limit": limit}
    ).structured_content
    assert len(out["results"]) == limit and {p["document_id"] for p in out["results"]} == {document_id}
    dated = invoke("search_documents", {"query": "What did a 2015 study say about kurtosis?"}).structured_content
    assert (dated["period"]["year_min"], dated["period"]["year_max"]) == (2015, 2015)
    assert (
        "a 2015 publication" in dated["period"]["note"]
        and dated["searched_text"][0]["text"] == "What did a study say about kurtosis?"
    )
    assert isinstance(dated["no_answer_likely"], bool) and dated["evidence"] is not None


def test_the_description_states_what_the_server_does(served_home):
    """Mode, per-document cap (with and without fill), abstention threshold and the caller's
    bound winning over the query's period: each as the description renders it for its config."""
    from serving.mcp.server import ServingContext, call_tool
    from serving.tools.search_documents import SPEC

    def run(config, **arguments):
        ctx = ServingContext(StateLayout(served_home), config)
        out = call_tool(SPEC, ctx, {"query": "variance and standard deviation of returns", **arguments})
        return SPEC.describe(ctx), out.structured_content

    capped = ServedConfig(default_mode="dense", per_document=1, fill_limit=False, no_answer_threshold=0.0)
    text, out = run(capped, limit=10)
    assert out["mode"] == "dense" and "mode=dense unless" in text
    documents = [p["document_id"] for p in out["results"]]
    assert len(documents) == len(set(documents)) == 3 and "at most 1 per document:" in text
    assert out["no_answer_likely"] and "at least 0.0," in text
    filled = ServedConfig(per_document=1, fill_limit=True, no_answer_threshold=1.0)
    text, out = run(filled, limit=5, query="kurtosis of papers published before 2018", year_max=2019)
    assert len(out["results"]) == 5 and "at most 1 per document (more when fewer documents match)" in text
    assert not out["no_answer_likely"] and "at least 1.0," in text
    assert out["period"]["year_max"] == 2019 and out["period"]["source_max"] == "caller"


def test_hits_show_their_matching_sentences_and_full_detail_the_whole_passage(served_home):
    """The default text shows each hit's matching sentences at their passage offsets (what
    get_passage reads whole); the structured content keeps the whole passage; detail=full shows it."""
    from corpus.reading.reader import CorpusReader
    from serving.answer.contract import MATCH_WINDOW, MATCHED_HITS
    from serving.mcp.server import ServingContext, call_tool
    from serving.tools.search_documents import SPEC

    ctx = ServingContext(StateLayout(served_home), ServedConfig())
    query = {"query": "how is the variance of portfolio returns estimated", "limit": 5}
    compact, full = (call_tool(SPEC, ctx, {**query, "detail": d}) for d in ("match", "full"))
    reader = CorpusReader.open(StateLayout(served_home))
    text = compact.content[0].text
    windowed = 0
    for rank, hit in enumerate(compact.structured_content["results"], start=1):
        passage = reader.passages[hit["chunk_id"]].text
        assert hit["text"] == passage.rstrip()  # whole in the structured content
        match = hit["match"]
        shown = passage[match["start"] : match["end"]]
        assert match["length"] == len(passage) and hit["chunk_id"] in text and hit["cite"]["text"] in text
        if rank > MATCHED_HITS:  # listed: cite and ids only
            assert shown not in text
            continue
        assert shown in text
        if match["end"] - match["start"] < len(passage):
            windowed += 1
            assert f"[{match['start']}–{match['end']} of {len(passage)}]" in text
            assert match["end"] - match["start"] <= MATCH_WINDOW or "$$" in shown or "|" in shown
        assert hit["text"] in full.content[0].text
    assert windowed >= 2 and len(text) < len(full.content[0].text) / 2


def test_the_answer_says_when_the_hypothetical_passage_and_the_question_disagree(served_home):
    """A flag set or lifted by the hypothetical passage alone is explained; agreement is silent; the
    question's own reading is the bare search's probability whatever the caller added."""
    from serving.mcp.server import ServingContext, call_tool
    from serving.tools.search_documents import SPEC, disagreement

    assert "hypothetical passage, which found no close passage" in disagreement(0.9, 0.1, 0.7)
    assert "question alone reads 0.80" in disagreement(0.2, 0.8, 0.7)
    assert disagreement(0.9, 0.8, 0.7) is None and disagreement(0.1, 0.2, 0.7) is None
    assert disagreement(None, None, 0.7) is None
    ctx = ServingContext(StateLayout(served_home), ServedConfig())
    query = "how is the variance of portfolio returns estimated"
    bare = call_tool(SPEC, ctx, {"query": query}).structured_content
    helped = call_tool(SPEC, ctx, {"query": query, "hypothetical_passage": "Sea turtles nest on sandy beaches."})
    out = helped.structured_content
    assert bare["question_no_answer_probability"] == bare["no_answer_probability"]
    assert out["question_no_answer_probability"] is not None
    assert out["no_answer_probability"] != out["question_no_answer_probability"]
    if out["no_answer_note"]:
        assert out["no_answer_note"] in helped.content[0].text
