#!/usr/bin/env python3
"""A minimal tool-calling agent: an OpenAI-compatible chat model working in a toolgate workspace.

Standard library only. The model gets toolgate's tools in OpenAI format (GET /v1/tools?format=openai);
each assistant message with tool_calls is posted as is to the batch endpoint, whose answer is the list
of role "tool" messages to append. The loop ends when the model answers without tool calls.

Environment:
  OPENAI_BASE_URL   chat endpoint base (default https://api.openai.com/v1)
  OPENAI_API_KEY    its key
  MODEL             model name (default gpt-4o-mini)
  TOOLGATE_URL      toolgate base URL (default http://127.0.0.1:8080)
  TOOLGATE_TOKEN    a session token and
  TOOLGATE_SESSION  its session id, or instead:
  TOOLGATE_API_KEY  the admin key, to create a fresh session (profile TOOLGATE_PROFILE, default read-write)
  MAX_TURNS         model turns before giving up (default 20)

Usage: python3 agent.py "Add a README that explains the project"
"""
import json
import os
import sys
import urllib.error
import urllib.request


def request_json(method, url, token, body=None):
    data = None if body is None else json.dumps(body).encode("utf-8")
    req = urllib.request.Request(url, data=data, method=method)
    req.add_header("Authorization", f"Bearer {token}")
    if data is not None:
        req.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=600) as res:
            return json.loads(res.read().decode("utf-8"))
    except urllib.error.HTTPError as err:
        detail = err.read().decode("utf-8", "replace")
        raise SystemExit(f"{method} {url} failed with {err.code}: {detail}") from None


def session_from_env(toolgate_url):
    token, session_id = os.environ.get("TOOLGATE_TOKEN"), os.environ.get("TOOLGATE_SESSION")
    if token and session_id:
        return session_id, token
    admin_key = os.environ.get("TOOLGATE_API_KEY")
    if not admin_key:
        raise SystemExit("Set TOOLGATE_TOKEN and TOOLGATE_SESSION, or TOOLGATE_API_KEY to create a session")
    profile = os.environ.get("TOOLGATE_PROFILE", "read-write")
    created = request_json("POST", f"{toolgate_url}/v1/sessions", admin_key, {"profile": profile})
    print(f"[toolgate] created session {created['id']} ({profile})", file=sys.stderr)
    return created["id"], created["token"]


def main():
    task = " ".join(sys.argv[1:]) or os.environ.get("TASK") or "List the files in the workspace."
    base_url = os.environ.get("OPENAI_BASE_URL", "https://api.openai.com/v1").rstrip("/")
    api_key = os.environ.get("OPENAI_API_KEY", "")
    model = os.environ.get("MODEL", "gpt-4o-mini")
    toolgate_url = os.environ.get("TOOLGATE_URL", "http://127.0.0.1:8080").rstrip("/")
    max_turns = int(os.environ.get("MAX_TURNS", "20"))

    session_id, token = session_from_env(toolgate_url)
    tools = request_json("GET", f"{toolgate_url}/v1/tools?format=openai", token)["tools"]
    messages = [
        {"role": "system", "content": "You are a coding agent. Use the tools to work in the workspace."},
        {"role": "user", "content": task},
    ]

    for _ in range(max_turns):
        completion = request_json(
            "POST", f"{base_url}/chat/completions", api_key, {"model": model, "messages": messages, "tools": tools}
        )
        message = completion["choices"][0]["message"]
        messages.append(message)
        tool_calls = message.get("tool_calls") or []
        if not tool_calls:
            print(message.get("content") or "")
            return 0
        for call in tool_calls:
            print(f"[tool] {call['function']['name']} {call['function']['arguments'][:200]}", file=sys.stderr)
        # The batch endpoint takes the assistant message as is and answers with the tool messages.
        answer = request_json("POST", f"{toolgate_url}/v1/sessions/{session_id}/calls", token, message)
        messages.extend(answer["messages"])

    print(f"Gave up after {max_turns} turns", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
