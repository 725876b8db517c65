#!/usr/bin/env python3
"""An agent loop with OpenAI's native coding tools, the workspace behind toolgate.

The model (Responses API, `openai` SDK) gets OpenAI's built-in apply_patch and shell tools plus
toolgate's other tools as functions (GET /v1/tools?format=openai-responses). Each response's output is
posted as is to toolgate's batch endpoint, which runs the apply_patch_call, shell_call, function_call
and custom_tool_call items through its tools (permissions, limits, audit) and answers the matching
*_output items: they are appended to the next request's input unchanged.

Environment: OPENAI_BASE_URL, OPENAI_API_KEY (read by the SDK), MODEL (default gpt-5), MAX_TURNS
(default 30), and toolgate's (see toolgate_client.py). Requires: pip install openai

Usage: python3 native_openai.py "Add a --verbose flag to cli.py"
"""
import os
import sys

import pydantic
from openai import OpenAI
from openai.types.responses import ResponseInputItemParam, ToolParam

from toolgate_client import Session, checked

CALL_ITEMS = {"function_call", "custom_tool_call", "apply_patch_call", "shell_call"}


def main():
    task = " ".join(sys.argv[1:]) or "List the files in the workspace."
    session = Session()
    listing = session.tools("openai-responses")
    # The native apply_patch and shell replace the functions they map to.
    native = [b["tool"] for b in listing["builtins"] if b["tool"]["type"] in ("apply_patch", "shell")]
    replaced = {name for b in listing["builtins"] if b["tool"] in native for name in b["mapsTo"]}
    functions = [tool for tool in listing["tools"] if tool["name"] not in replaced]
    tools = checked(pydantic.TypeAdapter(list[ToolParam]), native + functions)
    item_type = pydantic.TypeAdapter(ResponseInputItemParam)

    client = OpenAI()
    items = [{"role": "user", "content": task}]
    for _ in range(int(os.environ.get("MAX_TURNS", "30"))):
        response = client.responses.create(model=os.environ.get("MODEL", "gpt-5"), input=items, tools=tools)
        output = [item.model_dump(exclude_none=True) for item in response.output]
        items += output
        if not any(item["type"] in CALL_ITEMS for item in output):
            print(response.output_text)
            return
        answer = session.run({"output": output})
        items += [checked(item_type, item) for item in answer["input"]]
        for item in answer["input"]:
            print(f"[{item['type']}] {item['call_id']}", file=sys.stderr)
    raise SystemExit("gave up: too many turns")


if __name__ == "__main__":
    main()
