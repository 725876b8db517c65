"""What the sync and async clients share about HTTP: headers, when a request may be retried and after how
long, how an answer becomes a value or a ToolgateError, and the Server-Sent Events line format.

Retries are safe by construction: a tool call always carries an Idempotency-Key (one is made when the
caller gives none), so a repeat after a lost answer replays the stored outcome instead of running the
tool again. Reads (GET), deletes and file uploads are idempotent anyway. Anything else (a batch, creating
a session) is retried only when the request never reached the service (connection refused).
"""
from __future__ import annotations

import json
import random
import uuid
from dataclasses import dataclass
from typing import Any, Dict, Iterable, Iterator, Optional
from urllib.parse import quote

import httpx

from ._errors import ApprovalPending, ToolgateError
from ._models import StreamEvent, ToolResult
from ._version import __version__

USER_AGENT = f"toolgate-python/{__version__}"

#: Statuses a safe request is repeated after: rate limited, and a replica or proxy that could not answer.
RETRY_STATUSES = frozenset({429, 502, 503})


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how long to wait: exponential backoff with jitter, or the service's Retry-After."""

    max_retries: int = 3
    base_delay: float = 0.2
    max_delay: float = 10.0

    def delay(self, attempt: int, response: Optional[httpx.Response] = None) -> float:
        if response is not None:
            after = response.headers.get("retry-after")
            if after is not None:
                try:
                    return min(float(after), self.max_delay)
                except ValueError:
                    pass
        return min(self.base_delay * (2**attempt), self.max_delay) * (0.5 + random.random() / 2)


def new_idempotency_key() -> str:
    return f"tgk_{uuid.uuid4().hex}"


def path_segment(value: str) -> str:
    return quote(value, safe="")


def file_path(value: str) -> str:
    """A workspace path for /files/{path}: slashes kept, everything else percent-encoded once."""
    return quote(value.lstrip("/"), safe="/")


def retryable(method: str, headers: Dict[str, str]) -> bool:
    """Whether repeating the request cannot do anything twice."""
    return method in ("GET", "HEAD", "DELETE", "PUT") or "Idempotency-Key" in headers


def should_retry_status(response: httpx.Response) -> bool:
    return response.status_code in RETRY_STATUSES


def decode(response: httpx.Response) -> Any:
    """The JSON body of a success, or raises the envelope of a failure as ToolgateError."""
    if response.status_code == 204:
        return None
    try:
        body = response.json()
    except ValueError:
        if response.is_success:
            raise ToolgateError("UNEXPECTED_RESPONSE", f"Not JSON: {response.text[:200]}", status=response.status_code)
        body = None
    if response.status_code == 202 and isinstance(body, dict) and body.get("pending"):
        raise ApprovalPending(body)
    if not response.is_success:
        raise ToolgateError.from_envelope(body if body is not None else response.text, response.status_code)
    return body


def raise_for_bytes(response: httpx.Response) -> None:
    """For answers that are bytes on success: a failure still has the JSON envelope."""
    if not response.is_success:
        try:
            body: Any = response.json()
        except ValueError:
            body = response.text
        raise ToolgateError.from_envelope(body, response.status_code)


def tool_result(body: Any) -> ToolResult:
    return ToolResult.model_validate(body)


def compact(args: Dict[str, Any]) -> Dict[str, Any]:
    """Arguments left at None are not sent: the service applies its own defaults."""
    return {key: value for key, value in args.items() if value is not None}


class SseParser:
    """Turns the lines of a text/event-stream into events (data lines joined, comments skipped)."""

    def __init__(self) -> None:
        self._event = "message"
        self._data: list = []
        self._id: Optional[str] = None

    def feed(self, lines: Iterable[str]) -> Iterator[StreamEvent]:
        for line in lines:
            event = self.line(line)
            if event is not None:
                yield event

    def line(self, line: str) -> Optional[StreamEvent]:
        """Takes one line; returns the event it completes, if any."""
        if line == "":
            event = None
            if self._data:
                raw = "\n".join(self._data)
                try:
                    data = json.loads(raw)
                except ValueError:
                    data = raw
                event = StreamEvent(event=self._event, data=data, id=self._id)
            self._event, self._data, self._id = "message", [], None
            return event
        if line.startswith(":"):
            return None
        name, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if name == "event":
            self._event = value
        elif name == "data":
            self._data.append(value)
        elif name == "id":
            self._id = value
        return None


def end_of_stream(event: StreamEvent) -> ToolResult:
    """The `end` event's envelope as a result, or its failure raised."""
    body = event.data
    if isinstance(body, dict) and body.get("success") is True and "data" in body:
        return tool_result(body)
    if isinstance(body, dict) and body.get("pending"):
        raise ApprovalPending(body)
    raise ToolgateError.from_envelope(body, body.get("status") if isinstance(body, dict) else None)
