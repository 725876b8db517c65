"""The synchronous client: `Toolgate` (the service, with the admin key) and `Session` (one workspace, with
its token), on one pooled httpx.Client. The async twin is _async.py, line for line."""
from __future__ import annotations

import os
import time
from typing import Any, Dict, Iterator, List, Optional, Sequence, Union

import httpx

from . import _http
from ._errors import ToolgateError
from ._loop import batch_body, plain, to_append
from ._models import SessionInfo, StreamEvent, ToolResult
from ._tools import ToolMethods

Body = Union[bytes, str]


class _Transport:
    def __init__(self, url: str, timeout: float, retry: _http.RetryPolicy, client: Optional[httpx.Client]) -> None:
        self.url = url.rstrip("/")
        self.retry = retry
        self.owned = client is None
        self.client = client or httpx.Client(timeout=timeout, headers={"User-Agent": _http.USER_AGENT})

    def send(
        self,
        method: str,
        path: str,
        token: Optional[str],
        *,
        json: Any = None,
        content: Optional[bytes] = None,
        params: Optional[Dict[str, Any]] = None,
        headers: Optional[Dict[str, str]] = None,
    ) -> httpx.Response:
        all_headers = dict(headers or {})
        if token:
            all_headers["Authorization"] = f"Bearer {token}"
        safe = _http.retryable(method, all_headers)
        attempt = 0
        while True:
            try:
                response = self.client.request(
                    method, self.url + path, json=json, content=content, params=params, headers=all_headers
                )
            except httpx.TransportError as err:
                sent = not isinstance(err, (httpx.ConnectError, httpx.ConnectTimeout))
                if attempt >= self.retry.max_retries or (sent and not safe):
                    raise
                time.sleep(self.retry.delay(attempt))
                attempt += 1
                continue
            if safe and _http.should_retry_status(response) and attempt < self.retry.max_retries:
                time.sleep(self.retry.delay(attempt, response))
                attempt += 1
                continue
            return response

    def close(self) -> None:
        if self.owned:
            self.client.close()


class Session(ToolMethods):
    """A toolgate session. Use it as a context manager to delete it (and its workspace) on exit."""

    def __init__(self, transport: _Transport, id: str, token: str, info: Optional[SessionInfo] = None) -> None:
        self._transport = transport
        self.id = id
        self.token = token
        self.info = info
        self._base = f"/v1/sessions/{_http.path_segment(id)}"

    # --- tool calls -------------------------------------------------------------------------------------
    def call(self, name: str, args: Optional[Dict[str, Any]] = None, *, idempotency_key: Optional[str] = None) -> ToolResult:
        """Runs a tool (POST /v1/sessions/{id}/tools/{name}): its envelope, or raises ToolgateError."""
        key = idempotency_key or _http.new_idempotency_key()
        response = self._transport.send(
            "POST", f"{self._base}/tools/{name}", self.token, json=args or {}, headers={"Idempotency-Key": key}
        )
        return _http.tool_result(_http.decode(response))

    def _tool(self, name: str, args: Dict[str, Any], idempotency_key: Optional[str]) -> Any:
        return self.call(name, _http.compact(args), idempotency_key=idempotency_key).data

    def stream(
        self, name: str, args: Optional[Dict[str, Any]] = None, *, idempotency_key: Optional[str] = None
    ) -> Iterator[StreamEvent]:
        """Runs a tool with its output streamed (SSE): `start`, `output` events as the command writes, then
        `end` with the envelope. A failed call raises ToolgateError after its output."""
        key = idempotency_key or _http.new_idempotency_key()
        headers = {
            "Authorization": f"Bearer {self.token}",
            "Accept": "text/event-stream",
            "Idempotency-Key": key,
        }
        url = f"{self._transport.url}{self._base}/tools/{name}"
        with self._transport.client.stream("POST", url, json=args or {}, headers=headers) as response:
            if "text/event-stream" not in response.headers.get("content-type", ""):
                response.read()
                _http.decode(response)
                raise ToolgateError("UNEXPECTED_RESPONSE", "The service did not stream", status=response.status_code)
            parser = _http.SseParser()
            for event in parser.feed(response.iter_lines()):
                if event.event == "end":
                    _http.end_of_stream(event)
                yield event

    def batch(self, body: Union[Dict[str, Any], Sequence[Dict[str, Any]]]) -> Dict[str, Any]:
        """POST /v1/sessions/{id}/calls: a list of `{name, arguments}` calls, or a body in a vendor's format."""
        payload = {"calls": list(body)} if isinstance(body, (list, tuple)) else body
        return _http.decode(self._transport.send("POST", f"{self._base}/calls", self.token, json=payload))  # type: ignore[no-any-return]

    # --- the agent loop ---------------------------------------------------------------------------------
    def tools(
        self,
        format: str = "openai",
        *,
        builtins: Sequence[str] = (),
        category: Optional[str] = None,
        strict: Optional[bool] = None,
    ) -> List[Dict[str, Any]]:
        """The declarations of the tools this session may call, in a vendor's format (the request's `tools`).

        `builtins` adds the vendor's own tools that toolgate runs, by type (`apply_patch`, `shell` for
        openai-responses; `text_editor_20250728`, `bash_20250124` for anthropic), in place of the tools
        they stand for."""
        params: Dict[str, Any] = {"format": format}
        if category:
            params["category"] = category
        if strict is not None:
            params["strict"] = "true" if strict else "false"
        listing = _http.decode(self._transport.send("GET", "/v1/tools", self.token, params=params))
        return _with_builtins(listing, builtins)

    def handle(self, model_output: Any, *, tools: Optional[List[Any]] = None) -> List[Dict[str, Any]]:
        """Runs the tool calls of a model's output through the batch endpoint; returns what to append to the
        conversation after the model's turn (empty when it made no tool call: the loop is done). `tools`: the
        Anthropic request's tools list, whose text editor's max_characters cuts its views."""
        fmt, body = batch_body(model_output)
        if body is None:
            return []
        if tools is not None and fmt == "anthropic":
            body = {**body, "tools": [plain(tool) for tool in tools]}
        return to_append(fmt, self.batch(body))

    # --- files, archives, checkpoints ------------------------------------------------------------------
    def upload(self, path: str, content: Body, *, expected_sha256: Optional[str] = None) -> Dict[str, Any]:
        """Writes a file byte for byte (PUT /files/{path}); `expected_sha256` makes it a compare-and-swap."""
        data = content.encode("utf-8") if isinstance(content, str) else content
        headers = {"Content-Type": "application/octet-stream"}
        if expected_sha256 is not None:
            headers["Expected-SHA256"] = expected_sha256
        response = self._transport.send(
            "PUT", f"{self._base}/files/{_http.file_path(path)}", self.token, content=data, headers=headers
        )
        return _http.decode(response)  # type: ignore[no-any-return]

    def download(self, path: str) -> bytes:
        """A file's bytes (GET /files/{path})."""
        response = self._transport.send("GET", f"{self._base}/files/{_http.file_path(path)}", self.token)
        _http.raise_for_bytes(response)
        return response.content

    def upload_archive(self, archive: bytes, *, path: str = ".") -> Dict[str, Any]:
        """Extracts a tar, tar.gz or zip into a directory of the workspace."""
        response = self._transport.send(
            "POST",
            f"{self._base}/archive",
            self.token,
            content=archive,
            params={"path": path},
            headers={"Content-Type": "application/octet-stream"},
        )
        return _http.decode(response)  # type: ignore[no-any-return]

    def download_archive(self, *, path: str = ".", format: str = "tar.gz", gitignore: bool = False) -> bytes:
        """A directory of the workspace as a tar.gz or zip."""
        params = {"path": path, "format": format, "gitignore": "true" if gitignore else "false"}
        response = self._transport.send("GET", f"{self._base}/archive", self.token, params=params)
        _http.raise_for_bytes(response)
        return response.content

    def create_checkpoint(self, name: Optional[str] = None) -> Dict[str, Any]:
        body = {"name": name} if name else {}
        response = self._transport.send("POST", f"{self._base}/checkpoints", self.token, json=body)
        return _http.decode(response)  # type: ignore[no-any-return]

    def list_checkpoints(self) -> Dict[str, Any]:
        response = self._transport.send("GET", f"{self._base}/checkpoints", self.token)
        return _http.decode(response)  # type: ignore[no-any-return]

    def restore_checkpoint(self, checkpoint: str) -> Dict[str, Any]:
        path = f"{self._base}/checkpoints/{_http.path_segment(checkpoint)}/restore"
        return _http.decode(self._transport.send("POST", path, self.token))  # type: ignore[no-any-return]

    def delete_checkpoint(self, checkpoint: str) -> None:
        path = f"{self._base}/checkpoints/{_http.path_segment(checkpoint)}"
        _http.decode(self._transport.send("DELETE", path, self.token))

    # --- lifetime ---------------------------------------------------------------------------------------
    def refresh(self) -> SessionInfo:
        self.info = SessionInfo.model_validate(_http.decode(self._transport.send("GET", self._base, self.token)))
        return self.info

    def delete(self) -> None:
        """Deletes the session and its workspace (a session already gone is not an error)."""
        try:
            _http.decode(self._transport.send("DELETE", self._base, self.token))
        except ToolgateError as err:
            if err.status not in (401, 404):
                raise

    def __enter__(self) -> "Session":
        return self

    def __exit__(self, *exc: object) -> None:
        self.delete()


def _with_builtins(listing: Dict[str, Any], builtins: Sequence[str]) -> List[Dict[str, Any]]:
    tools: List[Dict[str, Any]] = listing["tools"]
    if not builtins:
        return tools
    chosen = [b for b in listing.get("builtins", []) if b["tool"].get("type") in builtins]
    missing = set(builtins) - {b["tool"].get("type") for b in chosen}
    if missing:
        offered = ", ".join(sorted(b["tool"].get("type", "?") for b in listing.get("builtins", [])))
        raise ValueError(f"no built-in tool {', '.join(sorted(missing))} in this format (offered: {offered or 'none'})")
    replaced = {name for b in chosen for name in b.get("mapsTo", [])}
    return [b["tool"] for b in chosen] + [t for t in tools if t.get("name") not in replaced]


class Toolgate:
    """The service. `url` and `api_key` default to TOOLGATE_URL and TOOLGATE_API_KEY."""

    def __init__(
        self,
        url: Optional[str] = None,
        api_key: Optional[str] = None,
        *,
        timeout: float = 660.0,
        retry: _http.RetryPolicy = _http.RetryPolicy(),
        http_client: Optional[httpx.Client] = None,
    ) -> None:
        self.url = url or os.environ.get("TOOLGATE_URL", "http://127.0.0.1:8080")
        self.api_key = api_key or os.environ.get("TOOLGATE_API_KEY")
        self._transport = _Transport(self.url, timeout, retry, http_client)

    def session(
        self,
        *,
        profile: Optional[str] = None,
        files: Optional[Dict[str, str]] = None,
        image: Optional[str] = None,
        **options: Any,
    ) -> Session:
        """Creates a session (POST /v1/sessions; other settings by their API names: ttlSeconds, network, …)."""
        body = _http.compact({"profile": profile, "files": files, "image": image, **options})
        created = _http.decode(self._transport.send("POST", "/v1/sessions", self.api_key, json=body))
        info = SessionInfo.model_validate(created)
        return Session(self._transport, info.id, created["token"], info)

    def attach(self, id: str, token: str) -> Session:
        """A session created elsewhere, by its id and token."""
        return Session(self._transport, id, token)

    def tools(self, format: str = "toolgate", *, category: Optional[str] = None) -> Dict[str, Any]:
        params = _http.compact({"format": format, "category": category})
        return _http.decode(self._transport.send("GET", "/v1/tools", self.api_key, params=params))  # type: ignore[no-any-return]

    def health(self) -> Dict[str, Any]:
        return _http.decode(self._transport.send("GET", "/healthz", None))  # type: ignore[no-any-return]

    def close(self) -> None:
        self._transport.close()

    def __enter__(self) -> "Toolgate":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
