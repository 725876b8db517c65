"""The answers the client hands back as objects: a session's settings, a tool call's envelope, an event
of a streamed call. Extra fields are kept, so a newer service's additions pass through."""
from __future__ import annotations

from typing import Any, Dict, List, Optional

from pydantic import BaseModel, ConfigDict, Field


class SessionInfo(BaseModel):
    """A session as POST/GET /v1/sessions describe it (the token only once, on creation)."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)

    id: str
    token: Optional[str] = None
    profile: str
    permissions: List[str] = []
    categories: List[str] = []
    created_at: Optional[str] = Field(default=None, alias="createdAt")
    expires_at: Optional[str] = Field(default=None, alias="expiresAt")
    metadata: Dict[str, Any] = {}


class ToolResult(BaseModel):
    """A successful tool call: its audit id, its data and its metadata (time, bytes, attempts, …)."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)

    call_id: str = Field(alias="callId")
    data: Any
    metadata: Dict[str, Any] = {}


class StreamEvent(BaseModel):
    """One Server-Sent Event of a streamed call: `start`, `output` ({stream, chunk}), `end` (the envelope)."""

    event: str
    data: Any
    id: Optional[str] = None

    @property
    def text(self) -> str:
        """The chunk of an `output` event ("" for the others)."""
        if self.event == "output" and isinstance(self.data, dict):
            return str(self.data.get("chunk", ""))
        return ""

    @property
    def stream(self) -> Optional[str]:
        """`stdout`, `stderr` or `log` for an `output` event."""
        return self.data.get("stream") if isinstance(self.data, dict) else None
