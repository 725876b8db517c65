"""The agent loop's glue: a vendor's model output (an SDK object or its JSON) → the batch body toolgate
reads (POST /v1/sessions/{id}/calls, docs/agents.md), and the batch answer → what to append to the
conversation. Accepted: OpenAI Chat Completions (the completion, the message, or its tool_calls),
OpenAI Responses (the response or its output items: function_call, custom_tool_call, apply_patch_call,
shell_call), Anthropic Messages (the message or its content: tool_use blocks, the text editor and bash
included) and Gemini (the GenerateContentResponse, a candidate or its Content: functionCall parts).
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

RESPONSES_CALL_ITEMS = frozenset({"function_call", "custom_tool_call", "apply_patch_call", "shell_call"})


def plain(value: Any) -> Any:
    """An SDK object as JSON data (pydantic models of openai, anthropic, google-genai; dicts as they are)."""
    if hasattr(value, "model_dump"):
        # google-genai's models are snake_case in Python with camelCase aliases on the wire.
        return value.model_dump(mode="json", exclude_none=True, by_alias=True)
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(item) for item in value]
    return value


def batch_body(model_output: Any) -> Tuple[str, Optional[Dict[str, Any]]]:
    """(format, body): the body is None when the output holds no tool call (the loop is done)."""
    out = plain(model_output)
    if isinstance(out, list):
        return _list_body(out)
    if not isinstance(out, dict):
        raise TypeError(f"handle() takes a model's output (an SDK object or its JSON), got {type(out).__name__}")
    if "choices" in out:  # a ChatCompletion
        return batch_body(out["choices"][0]["message"])
    if "candidates" in out:  # a Gemini GenerateContentResponse
        candidates = out.get("candidates") or []
        return batch_body(candidates[0].get("content", {"parts": []}) if candidates else {"parts": []})
    if "tool_calls" in out or out.get("role") == "assistant" and "content" not in out:
        calls = out.get("tool_calls") or []
        return "openai", ({"tool_calls": calls} if calls else None)
    if "output" in out:  # a Responses response
        items = [item for item in out["output"] if item.get("type") in RESPONSES_CALL_ITEMS]
        return "openai-responses", ({"output": items} if items else None)
    if "parts" in out:  # Gemini Content
        calls = [part for part in out["parts"] if "functionCall" in part or "function_call" in part]
        return "gemini", ({"role": "model", "parts": out["parts"]} if calls else None)
    if isinstance(out.get("content"), dict) and "parts" in out["content"]:  # a Gemini candidate
        return batch_body(out["content"])
    if "content" in out and isinstance(out["content"], list):  # an Anthropic message
        return _list_body(out["content"])
    if "message" in out and "finish_reason" in out:  # a Chat Completions choice
        return batch_body(out["message"])
    if "content" in out and out.get("role") == "assistant":  # a chat message without tool calls
        return "openai", None
    raise ValueError(
        "handle() did not recognise this model output: pass an OpenAI ChatCompletion or message, a Responses "
        "response or its output, an Anthropic message or its content, or a Gemini response or Content"
    )


def _list_body(items: List[Any]) -> Tuple[str, Optional[Dict[str, Any]]]:
    types = {item.get("type") for item in items if isinstance(item, dict)}
    if any(isinstance(item, dict) and "function" in item for item in items):
        return "openai", {"tool_calls": items}
    if types & {"tool_use", "text", "thinking", "redacted_thinking", "server_tool_use"}:
        blocks = [item for item in items if item.get("type") == "tool_use"]
        return "anthropic", ({"content": items} if blocks else None)
    if any(isinstance(item, dict) and ("functionCall" in item or "function_call" in item) for item in items):
        return "gemini", {"role": "model", "parts": items}
    calls = [item for item in items if isinstance(item, dict) and item.get("type") in RESPONSES_CALL_ITEMS]
    return "openai-responses", ({"output": calls} if calls else None)


def to_append(fmt: str, answer: Dict[str, Any]) -> List[Dict[str, Any]]:
    """What goes into the conversation after the model's turn, as a list to extend it with."""
    if fmt == "openai":
        return list(answer["messages"])
    if fmt == "openai-responses":
        return list(answer["input"])
    return [answer]  # Anthropic: one user message of tool_result blocks; Gemini: one user Content
