"""Whole agent loops through `handle`, driven by a scripted model: each turn is an output recorded in the
vendor's own JSON (what its SDK returns, dumped), chosen by looking at what the conversation holds so far.
No network but toolgate's."""
import json

from toolgate import Toolgate


def run_loop(script, turn, conversation):
    """Feeds the conversation to the scripted model until it makes no tool call; returns its last output."""
    for step in script:
        output = step(conversation)
        results = turn(output)
        if not results:
            return output
    raise AssertionError("the script ran out before the model stopped calling tools")


def test_openai_chat(session):
    tools = session.tools("openai")
    assert {"read_file", "write_file", "run_command"} <= {t["function"]["name"] for t in tools}
    messages = [{"role": "user", "content": "Write fizzbuzz and run it"}]

    def completion(message):
        return {"id": "chatcmpl-1", "object": "chat.completion", "model": "scripted", "choices": [{"index": 0, "finish_reason": "tool_calls" if message.get("tool_calls") else "stop", "message": message}]}

    def call(id, name, args):
        return {"id": id, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}

    script = [
        lambda conv: completion({"role": "assistant", "content": None, "tool_calls": [
            call("c1", "write_file", {"path": "fb.py", "content": "print(*['FizzBuzz' if i % 15 == 0 else i for i in range(1, 16)][-2:])\n"}),
            call("c2", "run_command", {"command": "python3 fb.py"}),
        ]}),
        lambda conv: completion({"role": "assistant", "content": None, "tool_calls": [call("c3", "read_file", {"path": "missing.py"})]}),
        lambda conv: completion({"role": "assistant", "content": "Done: " + conv[-1]["content"].split(":")[0]}),
    ]

    def turn(output):
        messages.append(output["choices"][0]["message"])
        results = session.handle(output)
        messages.extend(results)
        return results

    last = run_loop(script, turn, messages)
    tool_messages = [m for m in messages if m["role"] == "tool"]
    assert [m["tool_call_id"] for m in tool_messages] == ["c1", "c2", "c3"]
    assert tool_messages[1]["content"].startswith("Exit code 0") and tool_messages[1]["content"].endswith("stdout:\n14 FizzBuzz\n")
    assert tool_messages[2]["content"].startswith("Error FILE_NOT_FOUND")
    assert last["choices"][0]["message"]["content"] == "Done: Error FILE_NOT_FOUND"


def test_openai_responses_with_a_v4a_apply_patch(session):
    tools = session.tools("openai-responses", builtins=["apply_patch", "shell"])
    types = [t["type"] for t in tools]
    assert "apply_patch" in types and "shell" in types
    assert "apply_patch" not in [t.get("name") for t in tools if t["type"] == "function"]
    items = [{"role": "user", "content": "Add a greeting"}]

    def response(output):
        return {"id": "resp_1", "object": "response", "status": "completed", "output": output}

    script = [
        lambda conv: response([
            {"type": "reasoning", "id": "rs_1", "summary": []},
            {"type": "apply_patch_call", "id": "apc_1", "call_id": "call_create", "status": "completed",
             "operation": {"type": "create_file", "path": "greet.py", "diff": "+def greet():\n+    return 'hi'\n"}},
        ]),
        lambda conv: response([
            {"type": "apply_patch_call", "id": "apc_2", "call_id": "call_update", "status": "completed",
             "operation": {"type": "update_file", "path": "greet.py", "diff": "@@ def greet():\n-    return 'hi'\n+    return 'hello'\n"}},
            {"type": "shell_call", "id": "sh_1", "call_id": "call_shell", "status": "completed",
             "action": {"commands": ["python3 -c 'import greet; print(greet.greet())'"], "timeout_ms": 10000, "max_output_length": None}},
        ]),
        lambda conv: response([{"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
                                "content": [{"type": "output_text", "text": "Greeting updated.", "annotations": []}]}]),
    ]

    def turn(output):
        items.extend(output["output"])
        results = session.handle(output)
        items.extend(results)
        return results

    run_loop(script, turn, items)
    outputs = {item["call_id"]: item for item in items if item.get("type", "").endswith("_output")}
    assert outputs["call_create"]["type"] == "apply_patch_call_output" and outputs["call_create"]["status"] == "completed"
    assert outputs["call_update"]["status"] == "completed"
    shell = outputs["call_shell"]
    assert shell["type"] == "shell_call_output"
    assert shell["output"][0]["stdout"] == "hello\n" and shell["output"][0]["outcome"] == {"type": "exit", "exit_code": 0}
    assert session.read_file(path="greet.py")["content"] == "def greet():\n    return 'hello'"


def test_anthropic_with_the_text_editor_and_bash(session):
    tools = session.tools("anthropic", builtins=["text_editor_20250728", "bash_20250124"])
    names = [t["name"] for t in tools]
    assert "str_replace_based_edit_tool" in names and "bash" in names
    messages = [{"role": "user", "content": "Write notes"}]

    def message(content, stop="tool_use"):
        return {"id": "msg_1", "type": "message", "role": "assistant", "model": "scripted", "content": content, "stop_reason": stop}

    def use(id, name, input):
        return {"type": "tool_use", "id": id, "name": name, "input": input}

    script = [
        lambda conv: message([
            {"type": "text", "text": "Creating the notes."},
            use("toolu_1", "str_replace_based_edit_tool", {"command": "create", "path": "NOTES.md", "file_text": "# Notes\nfirst\n"}),
            use("toolu_2", "bash", {"command": "wc -l NOTES.md"}),
        ]),
        lambda conv: message([
            use("toolu_3", "str_replace_based_edit_tool", {"command": "str_replace", "path": "NOTES.md", "old_str": "first", "new_str": "second"}),
            use("toolu_4", "str_replace_based_edit_tool", {"command": "view", "path": "NOTES.md"}),
            use("toolu_5", "str_replace_based_edit_tool", {"command": "str_replace", "path": "NOTES.md", "old_str": "absent", "new_str": "x"}),
        ]),
        lambda conv: message([{"type": "text", "text": "Notes written."}], stop="end_turn"),
    ]

    def turn(output):
        messages.append({"role": "assistant", "content": output["content"]})
        results = session.handle(output)
        messages.extend(results)
        return results

    run_loop(script, turn, messages)
    answers = [block for m in messages if m["role"] == "user" and isinstance(m["content"], list) for block in m["content"]]
    by_id = {a["tool_use_id"]: a for a in answers}
    assert by_id["toolu_1"]["content"] == "File created successfully at: NOTES.md"
    assert by_id["toolu_2"]["content"] == "2 NOTES.md"
    assert by_id["toolu_4"]["content"] == "     1\t# Notes\n     2\tsecond"
    assert by_id["toolu_5"]["is_error"] is True
    assert by_id["toolu_5"]["content"].startswith("Error: No match found for replacement.")


def test_gemini(session):
    declarations = session.tools("gemini")[0]["functionDeclarations"]
    assert "read_file" in [d["name"] for d in declarations]
    contents = [{"role": "user", "parts": [{"text": "Write and read a file"}]}]

    def response(parts):
        return {"candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP"}]}

    script = [
        lambda conv: response([{"functionCall": {"name": "write_file", "args": {"path": "g.txt", "content": "gemini\n"}}}]),
        lambda conv: response([{"functionCall": {"id": "fc_2", "name": "read_file", "args": {"path": "g.txt"}}}]),
        lambda conv: response([{"text": "Read: " + conv[-1]["parts"][0]["functionResponse"]["response"]["output"]}]),
    ]

    def turn(output):
        contents.append(output["candidates"][0]["content"])
        results = session.handle(output)
        contents.extend(results)
        return results

    last = run_loop(script, turn, contents)
    first = contents[2]["parts"][0]["functionResponse"]
    assert first["name"] == "write_file" and "output" in first["response"]
    assert contents[4]["parts"][0]["functionResponse"]["id"] == "fc_2"
    assert last["candidates"][0]["content"]["parts"][0]["text"] == "Read: 1\tgemini"


def test_handle_takes_sdk_objects_and_says_when_there_is_nothing_to_run(session):
    class Dumped:  # what every vendor SDK object offers (pydantic)
        def __init__(self, data):
            self.data = data

        def model_dump(self, **_):
            return self.data

    assert session.handle(Dumped({"role": "assistant", "content": "no tools"})) == []
    assert session.handle(Dumped({"id": "m", "type": "message", "role": "assistant", "content": [{"type": "text", "text": "hi"}]})) == []
    answer = session.handle(Dumped({"role": "assistant", "content": None, "tool_calls": [
        {"id": "c9", "type": "function", "function": {"name": "list_directory", "arguments": "{}"}}]}))
    assert answer[0]["tool_call_id"] == "c9"


def test_langchain_tool_is_invoked(tg: Toolgate):
    from toolgate.langchain import toolgate_tools

    with tg.session(profile="read-write", files={"a.txt": "alpha\nbeta\n"}) as s:
        tools = {t.name: t for t in toolgate_tools(s)}
        assert "run_command" not in tools and "write_file" in tools
        assert tools["read_file"].invoke({"path": "a.txt"}) == "1\talpha\n2\tbeta"
        assert tools["write_file"].invoke({"path": "b.txt", "content": "b\n"}).startswith("Created")
        assert s.read_file(path="b.txt")["content"] == "b"
        failed = tools["read_file"].invoke({"path": "missing.txt"})
        assert failed.startswith("Error FILE_NOT_FOUND")


def test_anthropic_text_editor_max_characters_from_the_tools_list(session):
    session.call("write_file", {"path": "long.txt", "content": "\n".join("line %d" % i for i in range(1, 201))})
    view = {"type": "tool_use", "id": "toolu_v", "name": "str_replace_based_edit_tool", "input": {"command": "view", "path": "long.txt"}}
    tools = [{"type": "text_editor_20250728", "name": "str_replace_based_edit_tool", "max_characters": 100}]
    [answer] = session.handle({"role": "assistant", "content": [view]}, tools=tools)
    text = answer["content"][0]["content"]
    shown, note = text.split("\n<response clipped: ", 1)
    last = int(shown.rsplit("line ", 1)[1])
    assert len(shown) <= 100 and last > 1
    assert "view_range [%d, -1]" % (last + 1) in note
    [whole] = session.handle({"role": "assistant", "content": [view]})
    assert "<response clipped" not in whole["content"][0]["content"]
