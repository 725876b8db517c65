#!/usr/bin/env python3
"""An agent loop with Anthropic's native coding tools, the workspace behind toolgate.

The model (Messages API, `anthropic` SDK) gets Anthropic's built-in text editor
(text_editor_20250728, named str_replace_based_edit_tool) and bash tool (bash_20250124), as listed by
GET /v1/tools?format=anthropic. Each assistant content with tool_use blocks is posted as is to
toolgate's batch endpoint, which runs view / create / str_replace / insert and the commands through its
tools (permissions, limits, audit) and answers a user message of tool_result blocks in the words those
models know: it is appended to the conversation unchanged.

Environment: ANTHROPIC_BASE_URL, ANTHROPIC_API_KEY (read by the SDK), MODEL (default
claude-sonnet-4-5), MAX_TURNS (default 30), and toolgate's (see toolgate_client.py).
Requires: pip install anthropic

Usage: python3 native_anthropic.py "Fix the failing test in tests/test_cli.py"
"""
import os
import sys

import pydantic
from anthropic import Anthropic
from anthropic.types import MessageParam, ToolUnionParam

from toolgate_client import Session, checked


def main():
    task = " ".join(sys.argv[1:]) or "List the files in the workspace."
    session = Session()
    listing = session.tools("anthropic")
    wanted = ("text_editor_20250728", "bash_20250124")
    tools = [b["tool"] for b in listing["builtins"] if b["tool"]["type"] in wanted]
    tools = checked(pydantic.TypeAdapter(list[ToolUnionParam]), tools)
    message_type = pydantic.TypeAdapter(MessageParam)

    client = Anthropic()
    messages = [{"role": "user", "content": task}]
    for _ in range(int(os.environ.get("MAX_TURNS", "30"))):
        response = client.messages.create(
            model=os.environ.get("MODEL", "claude-sonnet-4-5"), max_tokens=4096, tools=tools, messages=messages
        )
        content = [block.model_dump(exclude_none=True) for block in response.content]
        messages.append({"role": "assistant", "content": content})
        if response.stop_reason != "tool_use":
            print("".join(block.text for block in response.content if block.type == "text"))
            return
        answer = checked(message_type, session.run({"content": content}))
        messages.append(answer)
        for block in answer["content"]:
            print(f"[tool_result] {block['tool_use_id']} error={block['is_error']}", file=sys.stderr)
    raise SystemExit("gave up: too many turns")


if __name__ == "__main__":
    main()
