"""toolgate: a sandboxed coding workspace and its tools for LLM agents, from Python.

    from toolgate import Toolgate

    tg = Toolgate("http://127.0.0.1:8080", api_key)
    with tg.session(profile="execute", files={"app.py": "print('hi')\\n"}) as s:
        print(s.run_command(command="python3 app.py")["stdout"])
"""
from ._async import AsyncSession, AsyncToolgate
from ._errors import ApprovalPending, ToolgateError
from ._http import RetryPolicy
from ._models import SessionInfo, StreamEvent, ToolResult
from ._sync import Session, Toolgate
from ._tools import API_VERSION, TOOL_NAMES
from ._version import __version__

__all__ = [
    "API_VERSION",
    "ApprovalPending",
    "AsyncSession",
    "AsyncToolgate",
    "RetryPolicy",
    "Session",
    "SessionInfo",
    "StreamEvent",
    "TOOL_NAMES",
    "ToolResult",
    "Toolgate",
    "ToolgateError",
    "__version__",
]
