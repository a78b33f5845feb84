"""Layer one (SPEC 3.1) as a table: model ids, providers, clients and flags."""

from __future__ import annotations

import pytest

from forge_tools.visibility.model_layer import MODEL_RULES, ModelContext, model_verdict


@pytest.mark.parametrize(
    ("model", "patch"),
    [
        ("openai/gpt-5", True),
        ("openai/gpt-5.1-codex", True),
        ("openai/gpt-4o", False),
        ("openai/gpt-4.1", False),
        ("x/gpt-oss-120b", False),
        ("anthropic/claude-sonnet-4", False),
        ("openai/GPT-5", False),  # case-sensitive
        ("openrouter/openai/gpt-5", True),  # the model id is everything after the first slash
        (None, False),
    ],
)
def test_patch_mode_decides_apply_patch_against_edit_and_write(model: str | None, patch: bool) -> None:
    ctx = ModelContext.of(model, "cli", ())
    assert ctx.patch_mode is patch
    assert model_verdict("apply_patch", ctx).kept is patch
    assert model_verdict("edit", ctx).kept is not patch
    assert model_verdict("write", ctx).kept is not patch


@pytest.mark.parametrize(
    ("model", "flags", "kept"),
    [
        ("opencode/big-pickle", (), True),
        ("opencode-go/kimi", (), True),
        ("anthropic/claude-sonnet-4", (), False),
        ("anthropic/claude-sonnet-4", ("exa",), True),
        ("anthropic/claude-sonnet-4", ("parallel",), True),
        ("anthropic/claude-sonnet-4", ("lsp",), False),
        ("opencodex/m", (), False),
    ],
)
def test_websearch_needs_provider_or_flag(model: str, flags: tuple[str, ...], kept: bool) -> None:
    assert model_verdict("websearch", ModelContext.of(model, "cli", flags)).kept is kept


@pytest.mark.parametrize(
    ("client", "flags", "kept"),
    [("cli", (), True), ("app", (), True), ("desktop", (), True), ("vscode", (), False),
     ("acp", ("question",), True), ("web", (), False)],
)
def test_question_depends_on_client(client: str, flags: tuple[str, ...], kept: bool) -> None:
    assert model_verdict("question", ModelContext.of("a/b", client, flags)).kept is kept


def test_a_drop_quotes_its_rule_and_situation() -> None:
    verdict = model_verdict("apply_patch", ModelContext.of("anthropic/claude-sonnet-4", "cli", ()))
    assert not verdict.kept
    assert verdict.rule is not None and verdict.rule.id == "patch-mode"
    assert verdict.rule.text in verdict.reason
    assert "anthropic/claude-sonnet-4" in verdict.reason


def test_tools_without_a_row_are_kept() -> None:
    verdict = model_verdict("bash", ModelContext.of("openai/gpt-5", "vscode", ()))
    assert verdict.kept and verdict.rule is None


def test_every_rule_has_an_id_text_and_fix_and_ids_are_unique() -> None:
    ids = [r.id for r in MODEL_RULES]
    assert len(ids) == len(set(ids))
    for rule in MODEL_RULES:
        assert rule.text and rule.fix and rule.tools
        assert rule.to_json()["kind"] == "model"
