"""LangChain adapter: a session's tools as langchain-core StructuredTools (`pip install toolgate[langchain]`).

Each tool takes the JSON Schema toolgate declares for it (OpenAI's format, which LangChain's chat models
bind as they are) and runs through the session's batch endpoint, so the model gets the tool's own text
rendering (numbered lines for read_file, …); a failed call raises ToolException with that text, which
LangChain hands back to the model (handle_tool_error=True).
"""
from __future__ import annotations

from typing import Any, List, Optional, Union

from langchain_core.tools import StructuredTool, ToolException

from ._async import AsyncSession
from ._sync import Session


def _text(answer: Any) -> str:
    result = answer["results"][0]
    if not result["success"]:
        raise ToolException(result["text"])
    return str(result["text"])


def toolgate_tools(session: Union[Session, AsyncSession], *, category: Optional[str] = None) -> List[StructuredTool]:
    """The tools `session` may call. Pass an AsyncSession for tools with an async `ainvoke`."""
    if isinstance(session, AsyncSession):
        raise TypeError("for an AsyncSession, use `await atoolgate_tools(session)`")
    return [_tool(declaration, session) for declaration in session.tools("openai", category=category)]


async def atoolgate_tools(session: AsyncSession, *, category: Optional[str] = None) -> List[StructuredTool]:
    """toolgate_tools for an AsyncSession: the tools run with `ainvoke`."""
    return [_tool(declaration, session) for declaration in await session.tools("openai", category=category)]


def _tool(declaration: Any, session: Union[Session, AsyncSession]) -> StructuredTool:
    function = declaration["function"]
    name = function["name"]

    def run(**arguments: Any) -> str:
        assert isinstance(session, Session)
        return _text(session.batch([{"name": name, "arguments": arguments}]))

    async def arun(**arguments: Any) -> str:
        assert isinstance(session, AsyncSession)
        return _text(await session.batch([{"name": name, "arguments": arguments}]))

    return StructuredTool.from_function(
        func=run if isinstance(session, Session) else None,
        coroutine=arun if isinstance(session, AsyncSession) else None,
        name=name,
        description=function["description"],
        args_schema=function["parameters"],
        handle_tool_error=True,
    )
