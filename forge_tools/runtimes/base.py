"""The runtime seam: what an agent (opencode, forge-tools' own gate, more later) does with a call.

A runtime owns the three parts that make an agent's answer its own: its config reading, its resolver
(agents and their ordered rules) and its shell lowering (which text of a bash line it matches against
rules). It answers one question, `decide`: allow, ask or deny for this call, the deciding rule with
its origin, and a reason in words. It never runs anything. `forge-tools run` enforces the gate
(`permission.gate.PermissionGate.decide` through `visibility.call_decision.decide_call`) whatever the
runtime; the `forge` runtime *is* that gate, so for a forge config the two answers are one.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from forge_tools.named_tuple import NamedTuple

if TYPE_CHECKING:
    from forge_tools.config.loader import LoadedConfig, LoadOptions
    from forge_tools.permission.agents import Agent
    from forge_tools.permission.calls import CallDecision
    from forge_tools.rule import Action, Rule
    from forge_tools.visibility.pipeline import PipelineResult, Request


class RuntimeAnswer(NamedTuple):
    """One runtime's decision of one call: the checks it made (a `CallDecision`, as the gate's) and
    why, in words."""

    runtime: str  # the runtime's name: "opencode", "forge"
    version: str  # the version whose behaviour is reproduced ("1.18.33"); forge-tools' own for forge
    decision: CallDecision
    reason: str  # one line: what was matched against what
    extra: dict[str, Any] | None = None  # the runtime's own terms (Claude's reason_type, fidelity, ...)

    @property
    def action(self) -> Action:
        return self.decision.action

    @property
    def deciding_rule(self) -> Rule | None:
        return self.decision.deciding_rule

    @property
    def label(self) -> str:
        """`opencode 1.18.33`, `forge-tools 0.x (the gate)`: how answers name the runtime."""
        return f"{self.runtime} {self.version}"

    def to_json(self) -> dict[str, Any]:
        return {"runtime": self.runtime, "version": self.version, **self.decision.to_json(),
                "reason": self.reason, **(self.extra or {})}


class Runtime(Protocol):
    """An agent as forge-tools reproduces it. One package per agent under `forge_tools/runtimes/`,
    named in `runtimes.RUNTIMES`."""

    name: str
    version: str

    def read_config(self, opts: LoadOptions) -> LoadedConfig:
        """The agent's config, read as the agent reads it (located values)."""

    def agents(self, loaded: LoadedConfig) -> dict[str, Agent]:
        """The agent's resolver: every agent with its ordered ruleset."""

    def resolve(self, loaded: LoadedConfig, request: Request) -> PipelineResult:
        """One turn for one agent: the tools it is offered and the turn's rules."""

    def lower(self, line: str) -> list[str]:
        """The agent's shell lowering: the texts of a bash line it matches against `bash` rules."""

    def decide(self, result: PipelineResult, tool_id: str, args: dict[str, Any],
               project_root: Path, cwd: Path | None = None) -> RuntimeAnswer:
        """What the agent does with this call in this turn (started in `cwd`, default the project
        root), without running it."""


class OpencodeVocabulary:
    """The reader and resolver of the runtimes whose config is opencode's vocabulary (opencode and
    forge-tools itself): one `config` loader and one `permission.agents`, so the two runtimes can
    differ only in their shell lowering and their decider."""

    def read_config(self, opts: LoadOptions) -> LoadedConfig:
        from forge_tools.config.loader import load_config

        return load_config(opts)

    def agents(self, loaded: LoadedConfig) -> dict[str, Agent]:
        from forge_tools.permission.agents import load_agents

        return load_agents(loaded)

    def resolve(self, loaded: LoadedConfig, request: Request) -> PipelineResult:
        from forge_tools.visibility.pipeline import resolve

        return resolve(loaded, request)
