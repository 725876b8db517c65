"""The client against the real service: typed tool methods, envelopes, streams, files, archives,
checkpoints, errors as exceptions, retries that never run a call twice, and the async twin."""
import asyncio
import io
import zipfile

import httpx
import pytest

from toolgate import TOOL_NAMES, AsyncToolgate, RetryPolicy, Toolgate, ToolgateError


def test_typed_methods_return_the_data(session):
    written = session.write_file(path="src/app.py", content="print('a')\n")
    assert written["created"] is True
    edited = session.edit_file(path="src/app.py", old_string="'a'", new_string="'b'")
    assert edited["replacements"] == 1
    read = session.read_file(path="src/app.py")
    assert read["content"] == "print('b')"
    assert read["totalLines"] == 1
    assert session.glob(pattern="**/*.py")["files"] == ["src/app.py"]
    ran = session.run_command(command="python3 src/app.py || echo b")
    assert ran["exitCode"] == 0 and ran["stdout"].strip() == "b"


def test_call_returns_the_envelope_and_leaves_out_none(session):
    result = session.call("list_directory", {"path": "."})
    assert result.call_id and result.metadata["tool"] == "list_directory"
    assert result.data["entries"] == []
    assert "read_file" in TOOL_NAMES


def test_errors_become_exceptions_with_the_envelope(session):
    with pytest.raises(ToolgateError) as missing:
        session.edit_file(path="nope.txt", old_string="a", new_string="b")
    assert (missing.value.status, missing.value.code, missing.value.type) == (404, "FILE_NOT_FOUND", "user_error")
    assert missing.value.call_id
    session.write_file(path="a.txt", content="one\ntwo\n")
    with pytest.raises(ToolgateError) as not_found:
        session.edit_file(path="a.txt", old_string="three", new_string="3")
    assert not_found.value.code == "EDIT_NOT_FOUND" and not_found.value.status == 422
    with pytest.raises(ToolgateError) as invalid:
        session.call("read_file", {"path": 7})
    assert invalid.value.code == "VALIDATION_FAILED" and invalid.value.status == 400
    with pytest.raises(ToolgateError) as outside:
        session.read_file(path="../../etc/passwd")
    assert outside.value.code == "PATH_OUTSIDE_WORKSPACE" and outside.value.status == 403


def test_a_read_only_session_is_refused_writes(tg):
    with tg.session(profile="read-only") as s:
        with pytest.raises(ToolgateError) as refused:
            s.write_file(path="x.txt", content="x")
        assert refused.value.status == 403 and refused.value.type == "permission_error"


def test_the_session_is_deleted_on_exit(tg):
    with tg.session(profile="read-only") as s:
        s.list_directory()
    with pytest.raises(ToolgateError) as gone:
        tg.attach(s.id, s.token).list_directory()
    assert gone.value.status == 401


def test_streamed_output_arrives_as_events(session):
    events = list(session.stream("run_command", {"command": "echo one; echo two >&2; echo three"}))
    assert events[0].event == "start" and events[-1].event == "end"
    output = [(e.stream, e.text) for e in events if e.event == "output"]
    assert "".join(text for stream, text in output if stream == "stdout") == "one\nthree\n"
    assert "".join(text for stream, text in output if stream == "stderr") == "two\n"
    assert events[-1].data["data"]["exitCode"] == 0


def test_a_failed_streamed_call_raises(session):
    with pytest.raises(ToolgateError) as failed:
        list(session.stream("read_file", {"path": "missing.txt"}))
    assert failed.value.code == "FILE_NOT_FOUND"


def test_files_and_archives(session):
    uploaded = session.upload("bin/data.bin", bytes(range(256)))
    assert uploaded["size"] == 256 and uploaded["created"] is True
    assert session.download("bin/data.bin") == bytes(range(256))
    with pytest.raises(ToolgateError) as conflict:
        session.upload("bin/data.bin", b"x", expected_sha256="")
    assert conflict.value.code == "CONFLICT"
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("pkg/mod.py", "x = 1\n")
    extracted = session.upload_archive(buffer.getvalue(), path="vendor")
    assert extracted["files"] == 1
    assert session.read_file(path="vendor/pkg/mod.py")["content"] == "x = 1"
    names = zipfile.ZipFile(io.BytesIO(session.download_archive(format="zip"))).namelist()
    assert "vendor/pkg/mod.py" in names and "bin/data.bin" in names


def test_checkpoints(session):
    session.write_file(path="keep.txt", content="v1\n")
    checkpoint = session.create_checkpoint("first")
    session.write_file(path="keep.txt", content="v2\n")
    session.write_file(path="new.txt", content="new\n")
    assert [c["id"] for c in session.list_checkpoints()["checkpoints"]] == [checkpoint["id"]]
    session.restore_checkpoint(checkpoint["id"])
    assert session.read_file(path="keep.txt")["content"] == "v1"
    assert session.list_directory()["entries"] == [{"path": "keep.txt", "type": "file", "size": 3}]
    session.delete_checkpoint(checkpoint["id"])
    assert session.list_checkpoints()["checkpoints"] == []


class LoseFirstAnswer(httpx.BaseTransport):
    """A network that delivers the first tool call to the service but loses its answer."""

    def __init__(self) -> None:
        self.inner = httpx.HTTPTransport()
        self.lost = 0

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        response = self.inner.handle_request(request)
        if "/tools/" in request.url.path and self.lost == 0:
            response.read()
            self.lost += 1
            raise httpx.ReadError("connection reset", request=request)
        return response


def test_a_retried_call_runs_once(tg):
    transport = LoseFirstAnswer()
    client = Toolgate(tg.url, tg.api_key, retry=RetryPolicy(base_delay=0.01), http_client=httpx.Client(transport=transport))
    with client.session(profile="execute") as s:
        ran = s.run_command(command="echo run >> runs.txt; wc -l < runs.txt")
        assert transport.lost == 1
        assert ran["stdout"].strip() == "1"
        assert s.read_file(path="runs.txt")["content"] == "run"


def test_without_retries_the_lost_answer_is_raised(tg):
    transport = LoseFirstAnswer()
    client = Toolgate(tg.url, tg.api_key, retry=RetryPolicy(max_retries=0), http_client=httpx.Client(transport=transport))
    with client.session(profile="execute") as s:
        with pytest.raises(httpx.ReadError):
            s.run_command(command="true")


def test_the_async_client(tg):
    async def main():
        async with AsyncToolgate(tg.url, tg.api_key) as atg, atg.session(profile="execute") as s:
            await s.write_file(path="n.md", content="# N\n")
            read, listed = await asyncio.gather(s.read_file(path="n.md"), s.list_directory())
            chunks = [e.text async for e in s.stream("run_command", {"command": "echo hi"}) if e.event == "output"]
            with pytest.raises(ToolgateError) as missing:
                await s.read_file(path="missing")
            answer = await s.handle({"tool_calls": [{"id": "c1", "type": "function", "function": {"name": "read_file", "arguments": '{"path": "n.md"}'}}]})
            return read, listed, chunks, missing.value.code, answer, s

    read, listed, chunks, code, answer, s = asyncio.run(main())
    assert read["content"] == "# N"
    assert listed["entries"][0]["path"] == "n.md"
    assert chunks == ["hi\n"]
    assert code == "FILE_NOT_FOUND"
    assert answer == [{"role": "tool", "tool_call_id": "c1", "content": "1\t# N"}]
    with pytest.raises(ToolgateError):
        tg.attach(s.id, s.token).list_directory()
