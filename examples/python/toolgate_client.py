"""The few toolgate requests the native-tool agents make (standard library), and a check of answer
items against an SDK's own parameter types.

Environment: TOOLGATE_URL (default http://127.0.0.1:8080), and TOOLGATE_TOKEN with TOOLGATE_SESSION,
or TOOLGATE_API_KEY to create a session (profile TOOLGATE_PROFILE, default execute).
"""
import json
import os
import sys
import urllib.error
import urllib.request

TOOLGATE_URL = os.environ.get("TOOLGATE_URL", "http://127.0.0.1:8080").rstrip("/")


def request_json(method, path, token, body=None):
    data = None if body is None else json.dumps(body).encode("utf-8")
    req = urllib.request.Request(f"{TOOLGATE_URL}{path}", data=data, method=method)
    req.add_header("Authorization", f"Bearer {token}")
    if data is not None:
        req.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=600) as res:
            return json.loads(res.read().decode("utf-8"))
    except urllib.error.HTTPError as err:
        detail = err.read().decode("utf-8", "replace")
        raise SystemExit(f"{method} {path} failed with {err.code}: {detail}") from None


class Session:
    """A toolgate session: its tool declarations and its batch endpoint."""

    def __init__(self):
        self.token, self.id = os.environ.get("TOOLGATE_TOKEN"), os.environ.get("TOOLGATE_SESSION")
        if not (self.token and self.id):
            admin_key = os.environ.get("TOOLGATE_API_KEY")
            if not admin_key:
                raise SystemExit("Set TOOLGATE_TOKEN and TOOLGATE_SESSION, or TOOLGATE_API_KEY")
            profile = os.environ.get("TOOLGATE_PROFILE", "execute")
            created = request_json("POST", "/v1/sessions", admin_key, {"profile": profile})
            self.token, self.id = created["token"], created["id"]
            print(f"[toolgate] created session {self.id} ({profile})", file=sys.stderr)

    def tools(self, fmt):
        return request_json("GET", f"/v1/tools?format={fmt}", self.token)

    def run(self, body):
        return request_json("POST", f"/v1/sessions/{self.id}/calls", self.token, body)


def checked(adapter, value):
    """`value` validated by a pydantic TypeAdapter of an SDK type (nested iterables included: pydantic
    validates those lazily, so they are walked here). Raises on a mismatch."""

    def walk(item):
        if isinstance(item, dict):
            return {key: walk(sub) for key, sub in item.items()}
        if isinstance(item, (list, tuple)):
            return [walk(sub) for sub in item]
        if hasattr(item, "__next__"):
            return [walk(sub) for sub in item]
        return item

    return walk(adapter.validate_python(value))
