"""Errors: every error answer of toolgate (the envelope's code, type, message, suggestion) raised as one
exception type, so an agent can branch on `err.code` the way the HTTP contract documents it."""
from __future__ import annotations

from typing import Any, Dict, Optional


class ToolgateError(Exception):
    """An error envelope from toolgate (or a failed call inside a stream or a batch)."""

    def __init__(
        self,
        code: str,
        message: str,
        *,
        status: Optional[int] = None,
        type: Optional[str] = None,
        suggestion: Optional[str] = None,
        details: Optional[Dict[str, Any]] = None,
        call_id: Optional[str] = None,
        request_id: Optional[str] = None,
    ) -> None:
        self.code = code
        self.message = message
        self.status = status
        self.type = type
        self.suggestion = suggestion
        self.details = details or {}
        self.call_id = call_id
        self.request_id = request_id
        text = f"{code}: {message}"
        if suggestion:
            text += f" (suggestion: {suggestion})"
        super().__init__(text)

    @classmethod
    def from_envelope(cls, body: Any, status: Optional[int] = None) -> "ToolgateError":
        error = body.get("error") if isinstance(body, dict) else None
        if not isinstance(error, dict):
            return cls("UNEXPECTED_RESPONSE", f"HTTP {status}: {str(body)[:500]}", status=status)
        return cls(
            str(error.get("code", "UNKNOWN")),
            str(error.get("message", "")),
            status=status if status is not None else body.get("status"),
            type=error.get("type"),
            suggestion=error.get("suggestion"),
            details=error.get("details"),
            call_id=body.get("callId"),
            request_id=body.get("requestId"),
        )


class ApprovalPending(ToolgateError):
    """The call waits for an operator's approval (HTTP 202): fetch `result_url` once it is decided."""

    def __init__(self, body: Dict[str, Any]) -> None:
        super().__init__(
            "APPROVAL_PENDING",
            str(body.get("message") or "The call waits for an operator's approval"),
            status=202,
            call_id=body.get("callId"),
        )
        self.result_url: Optional[str] = body.get("resultUrl")
        self.expires_at: Optional[str] = body.get("expiresAt")
