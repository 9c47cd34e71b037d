"""The research profile's `call_subagent(agent_name, task)`: hand a task to another agent.

The agent runs to its end with its own instructions, model and toolkit (settings
`agents`, see `agent/subagents.py`) and its final answer is this call's result; what it
does on the way is shown to the user as nested events. The registry holds a generic
instance; a runtime registers one whose description and schema list its agents
(`configured`), so the model knows what it can delegate to.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from karyi.core.errors import ErrorCode, ToolFailure
from karyi.core.results import ToolResult
from karyi.tools.base import Tool
from karyi.tools.context import ToolContext
from karyi.tools.typed import ToolParams, TypedTool, arg, param_class

DESCRIPTION = (
    "Delegate a task to a subagent: it works on its own, with its own instructions and "
    "tools, and returns its final answer. Give it a complete, self-contained task (it does "
    "not see this conversation)."
)


@param_class
class CallSubagentParams(ToolParams):
    """`call_subagent`'s parameters."""

    agent_name: str = arg(min_length=1, description="The subagent to run")
    task: str = arg(
        min_length=1, description="What the subagent should do, with everything it needs to know"
    )


class CallSubagent(TypedTool[CallSubagentParams]):
    """`call_subagent(agent_name, task)`."""

    name = "call_subagent"
    display_name = "Call Subagent"
    description = DESCRIPTION + " The agents are defined in settings `agents`."
    example = {"agent_name": "explore", "task": "Find where the settings file is parsed."}

    def check(self, params: Mapping[str, Any]) -> str | None:
        """A task is more than blanks."""
        if not self.args(params).task.strip():
            return "task: expected a description of the work, got only blanks"
        return None

    def describe(self, params: Mapping[str, Any]) -> str:
        """See `Tool.describe`."""
        a = self.args(params)
        task = " ".join(a.task.split())
        return f"Ask {a.agent_name}: {task[:100]}"

    async def execute(self, params: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        """Run the subagent and return its answer."""
        runner = ctx.subagents
        if runner is None:
            raise ToolFailure(ErrorCode.DISABLED, "subagents need an agent; this context has none")
        a = self.args(params)
        name = a.agent_name
        agents = runner.agents()
        if name not in agents:
            known = ", ".join(agents) or "none (define them in settings `agents`)"
            raise ToolFailure(
                ErrorCode.INVALID_TOOL_INPUT,
                f"agent_name: no subagent {name!r}; available: {known}",
            )
        done = await runner.run(name, a.task, ctx)
        facts = {
            "agent": done.agent,
            "stop_reason": done.stop_reason,
            "steps": done.steps,
            "calls": done.calls,
            "input_tokens": done.input_tokens,
            "output_tokens": done.output_tokens,
        }
        if done.answer is None or done.stop_reason not in ("end_turn", "final_answer"):
            why = done.error or done.stop_reason.replace("_", " ")
            raise ToolFailure(
                ErrorCode.TOOL_ERROR,
                f"subagent {name} stopped without an answer ({why}) after {done.steps} step(s)",
            )
        return ToolResult.ok(
            done.answer or "(the subagent gave an empty answer)",
            display=f"{name}: {done.stop_reason.replace('_', ' ')} after {done.steps} step(s), "
            f"{len(done.calls)} tool call(s)",
            data=facts,
        )


def configured(agents: Mapping[str, str]) -> Tool:
    """A `call_subagent` whose description lists `agents` (name -> description)."""
    listing = "; ".join(f"{n}: {d}" if d else n for n, d in agents.items())
    description = f"{DESCRIPTION} Available agents — {listing or 'none'}."
    props = dict(CallSubagent.parameters["properties"])
    props["agent_name"] = {
        **props["agent_name"],
        "description": f"The subagent to run: one of {', '.join(agents) or 'none'}",
    }
    parameters = {**CallSubagent.parameters, "properties": props}
    cls = type(
        "CallSubagent", (CallSubagent,), {"description": description, "parameters": parameters}
    )
    tool: Tool = cls()
    return tool
